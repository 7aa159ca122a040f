import Foundation
import Synchronization
import Testing
import WIFCredentials

@testable import S3Partition
import WIFTestSupport

/// Multipart uploads and ranged downloads when parts fail: retried parts never corrupt the object,
/// failed uploads are aborted, failed downloads leave no file behind.
@Suite("Transfers under faults")
struct TransferFaultTests {
    static let partSize = S3Client.Transfer.minimumPartSize
    static let transfer = S3Client.Transfer(
        multipartThreshold: 6 * 1024 * 1024, partSize: partSize, concurrency: 3, downloadPartSize: partSize, downloadConcurrency: 3)

    static func isPart(_ number: Int) -> @Sendable (FaultServer.Request) -> Bool {
        { $0.method == "PUT" && $0.query["partNumber"] == String(number) }
    }

    static func isRange(startingAt offset: Int) -> @Sendable (FaultServer.Request) -> Bool {
        { $0.method == "GET" && $0.header("range")?.hasPrefix("bytes=\(offset)-") == true }
    }

    static let isPlainGet: @Sendable (FaultServer.Request) -> Bool = { $0.method == "GET" && $0.header("range") == nil }

    @Test("parts that fail once are sent again from their offsets and the object is exact")
    func retriedParts() async throws {
        let memory = MemoryS3()
        memory.inject(.close, when: Self.isPart(2))
        memory.inject(.error(status: 500, code: "InternalError"), when: Self.isPart(3))
        memory.inject(.error(status: 503, code: "SlowDown"), when: { $0.method == "POST" && $0.query["uploadId"] != nil })
        let folder = try TemporaryFolder()
        let size = 3 * Self.partSize + 4321
        let expected = patternBytes(size: size, seed: 11)
        FileManager.default.createFile(atPath: folder.file("big.bin"), contents: Data(expected))
        try await RetryTests.withClient(memory, transfer: Self.transfer) { client, clock in
            let progress = ProgressLog()
            let result = try await client.putObject(bucket: "bucket", key: "big.bin", fromFile: folder.file("big.bin"), progress: progress.record)
            #expect(result.partCount == 4)
            #expect(result.eTag?.hasSuffix("-4") == true)
            #expect(memory.object(key: "big.bin") == expected)
            #expect(memory.completedUploads.count == 1)
            #expect(memory.abortedUploads.isEmpty)
            #expect(clock.sleeps.count == 3)
            let partRequests = memory.log.filter { $0.query["partNumber"] != nil }
            #expect(partRequests.count == 6)
            #expect(partRequests.allSatisfy { $0.header("x-amz-checksum-sha256") != nil })
            #expect(partRequests.allSatisfy { $0.bodyCount == Self.partSize || $0.bodyCount == 4321 })
            #expect(progress.last?.bytesTransferred == Int64(size), "retried bytes are taken back, so the total ends exact")
            let create = try #require(memory.log.first { $0.query["uploads"] != nil })
            #expect(create.header("x-amz-checksum-algorithm") == "SHA256")
            // Every completion, the retried one too, states the size the parts add up to.
            let completions = memory.log.filter { $0.method == "POST" && $0.query["uploadId"] != nil }
            #expect(completions.count == 2)
            #expect(completions.allSatisfy { $0.header("x-amz-mp-object-size") == String(size) })
        }
    }

    @Test("an upload whose part keeps failing is aborted and reports the part's error")
    func abortedOnFailure() async throws {
        let memory = MemoryS3()
        memory.inject(.error(status: 403, code: "AccessDenied"), times: 10, when: Self.isPart(2))
        let folder = try TemporaryFolder()
        try folder.writePatternFile("big.bin", size: 2 * Self.partSize + 10)
        try await RetryTests.withClient(memory, transfer: Self.transfer) { client, _ in
            let error = await #expect(throws: S3Error.self) {
                try await client.putObject(bucket: "bucket", key: "big.bin", fromFile: folder.file("big.bin"))
            }
            #expect(error?.code == .accessDenied)
            #expect(memory.abortedUploads == ["upload-1"])
            #expect(memory.openUploads == 0)
            #expect(memory.object(key: "big.bin") == nil)
        }
    }

    @Test("a cancelled upload is aborted")
    func abortedOnCancellation() async throws {
        let memory = MemoryS3()
        let folder = try TemporaryFolder()
        try folder.writePatternFile("big.bin", size: 4 * Self.partSize)
        let sequential = S3Client.Transfer(
            multipartThreshold: Self.partSize, partSize: Self.partSize, concurrency: 1, downloadPartSize: Self.partSize, downloadConcurrency: 1)
        try await RetryTests.withClient(memory, transfer: sequential) { client, _ in
            let handle = Mutex<Task<PutObjectResult, any Error>?>(nil)
            let task = Task {
                try await client.putObject(bucket: "bucket", key: "big.bin", fromFile: folder.file("big.bin")) { progress in
                    if progress.bytesTransferred > Int64(Self.partSize) { handle.withLock { $0?.cancel() } }
                }
            }
            handle.withLock { $0 = task }
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(memory.abortedUploads == ["upload-1"])
            #expect(memory.object(key: "big.bin") == nil)
        }
    }

    @Test("a download whose connection breaks mid-body is retried and the file is exact")
    func retriedDownload() async throws {
        let memory = MemoryS3()
        let small = patternBytes(size: 300_000, seed: 5)
        memory.store(small, key: "small.bin")
        memory.inject(.truncate(after: 100_000), times: 2, when: Self.isPlainGet)
        let folder = try TemporaryFolder()
        try await RetryTests.withClient(memory, transfer: Self.transfer) { client, clock in
            let metadata = try await client.getObject(bucket: "bucket", key: "small.bin", toFile: folder.file("small.bin"))
            #expect(metadata.contentLength == 300_000)
            #expect(metadata.eTag == MemoryS3.md5Hex(small))
            #expect(FileManager.default.contents(atPath: folder.file("small.bin")) == Data(small))
            #expect(clock.sleeps.count == 2)
            #expect(folder.contents() == ["small.bin"])
        }
    }

    @Test("a download to a descriptor whose connection breaks resumes where it stopped and writes each byte once")
    func resumedStream() async throws {
        let memory = MemoryS3()
        let bytes = patternBytes(size: 300_000, seed: 7)
        memory.store(bytes, key: "stream.bin")
        memory.inject(.truncate(after: 100_000), when: Self.isPlainGet)
        let folder = try TemporaryFolder()
        let descriptor = open(folder.file("out.bin"), O_WRONLY | O_CREAT | O_EXCL, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try await RetryTests.withClient(memory, transfer: Self.transfer) { client, _ in
            let progress = ProgressLog()
            let metadata = try await client.getObject(
                bucket: "bucket", key: "stream.bin", toDescriptor: descriptor, progress: progress.record)
            #expect(metadata.contentLength == 300_000)
            #expect(FileManager.default.contents(atPath: folder.file("out.bin")) == Data(bytes))
            let ranges = memory.log.compactMap { $0.header("range") }
            #expect(ranges.count == 1)
            let resumedAt = try #require(ranges.first.flatMap { Int($0.dropFirst("bytes=".count).prefix { $0 != "-" }) })
            #expect(resumedAt > 0 && resumedAt <= 100_000)
            #expect(ranges.first == "bytes=\(resumedAt)-299999")
            #expect(memory.log.filter { $0.header("range") != nil }.allSatisfy { $0.header("if-match") == "\"\(MemoryS3.md5Hex(bytes))\"" })
            #expect(progress.last == TransferProgress(bytesTransferred: 300_000, totalBytes: 300_000))
        }
    }

    @Test("a streamed download whose bytes do not match the ETag fails after writing them")
    func streamedMismatch() async throws {
        let memory = MemoryS3()
        memory.store(patternBytes(size: 50_000, seed: 3), key: "bad.bin")
        memory.inject(
            .reply(.response(status: 200, headers: [("ETag", "\"00000000000000000000000000000000\""), ("Content-Length", "5")], body: Array("hello".utf8))),
            times: 10, when: Self.isPlainGet)
        let folder = try TemporaryFolder()
        let descriptor = open(folder.file("out.bin"), O_WRONLY | O_CREAT | O_EXCL, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try await RetryTests.withClient(memory, transfer: Self.transfer) { client, _ in
            let error = await #expect(throws: S3Error.self) {
                try await client.getObject(bucket: "bucket", key: "bad.bin", toDescriptor: descriptor)
            }
            #expect(error?.code == .integrityCheckFailed)
            #expect(FileManager.default.contents(atPath: folder.file("out.bin")) == Data("hello".utf8))
        }
    }

    @Test("a large download fetches parallel ranges conditional on the ETag, and retries a broken range")
    func rangedDownload() async throws {
        let memory = MemoryS3()
        let size = 3 * Self.partSize + 777
        let bytes = patternBytes(size: size, seed: 9)
        memory.store(bytes, key: "big.bin")
        memory.inject(.truncate(after: 1000), when: Self.isRange(startingAt: 2 * Self.partSize))
        let folder = try TemporaryFolder()
        try await RetryTests.withClient(memory, transfer: Self.transfer) { client, _ in
            let progress = ProgressLog()
            try await client.getObject(bucket: "bucket", key: "big.bin", toFile: folder.file("big.bin"), progress: progress.record)
            #expect(FileManager.default.contents(atPath: folder.file("big.bin")) == Data(bytes))
            let ranges = memory.log.filter { $0.header("range") != nil }
            // On a machine loaded enough for the first answer's connection to time out, part 1 is
            // recovered as a range too (the behaviour tested below); that is the only extra request allowed.
            let firstPartRange = "bytes=0-\(Self.partSize - 1)"
            let recovered = ranges.filter { $0.header("range") == firstPartRange }.count
            #expect(recovered <= 1)
            #expect(ranges.count == 4 + recovered, "parts 2, 3 (twice) and 4")
            #expect(ranges.allSatisfy { $0.header("if-match") == "\"\(MemoryS3.md5Hex(bytes))\"" })
            #expect(Set(ranges.compactMap { $0.header("range") }).subtracting([firstPartRange]) == [
                "bytes=\(Self.partSize)-\(2 * Self.partSize - 1)", "bytes=\(2 * Self.partSize)-\(3 * Self.partSize - 1)",
                "bytes=\(3 * Self.partSize)-\(size - 1)",
            ])
            #expect(progress.last == TransferProgress(bytesTransferred: Int64(size), totalBytes: Int64(size)))
        }
    }

    @Test("when the first answer of a large download breaks inside the first part, that part is fetched as a range")
    func firstPartFallback() async throws {
        let memory = MemoryS3()
        let size = 2 * Self.partSize + 99
        let bytes = patternBytes(size: size, seed: 13)
        memory.store(bytes, key: "big.bin")
        memory.inject(.truncate(after: 70_000), when: Self.isPlainGet)
        let folder = try TemporaryFolder()
        try await RetryTests.withClient(memory, transfer: Self.transfer) { client, _ in
            let progress = ProgressLog()
            try await client.getObject(bucket: "bucket", key: "big.bin", toFile: folder.file("big.bin"), progress: progress.record)
            #expect(FileManager.default.contents(atPath: folder.file("big.bin")) == Data(bytes))
            let ranges = Set(memory.log.compactMap { $0.header("range") })
            #expect(ranges.contains("bytes=0-\(Self.partSize - 1)"))
            #expect(progress.last == TransferProgress(bytesTransferred: Int64(size), totalBytes: Int64(size)))
            #expect(folder.contents() == ["big.bin"])
        }
    }

    @Test("a download that keeps failing leaves neither the destination nor a temporary file")
    func failedDownloadLeavesNothing() async throws {
        let memory = MemoryS3()
        memory.store(patternBytes(size: 200_000, seed: 1), key: "doc.bin")
        memory.inject(.truncate(after: 50_000), times: 100, when: Self.isPlainGet)
        let folder = try TemporaryFolder()
        try await RetryTests.withClient(memory) { client, _ in
            let error = await #expect(throws: S3Error.self) {
                try await client.getObject(bucket: "bucket", key: "doc.bin", toFile: folder.file("doc.bin"))
            }
            #expect(error?.code == .network)
            #expect(folder.contents().isEmpty)
        }
    }

    @Test("a failed download keeps an existing destination file untouched")
    func existingFileKept() async throws {
        let memory = MemoryS3()
        memory.store(patternBytes(size: 10_000, seed: 1), key: "doc.bin")
        memory.inject(.truncate(after: 5000), times: 100, when: Self.isPlainGet)
        let folder = try TemporaryFolder()
        FileManager.default.createFile(atPath: folder.file("doc.bin"), contents: Data("old".utf8))
        try await RetryTests.withClient(memory, retry: .disabled) { client, _ in
            await #expect(throws: S3Error.self) { try await client.getObject(bucket: "bucket", key: "doc.bin", toFile: folder.file("doc.bin")) }
            #expect(FileManager.default.contents(atPath: folder.file("doc.bin")) == Data("old".utf8))
            #expect(folder.contents() == ["doc.bin"])
        }
    }

    @Test("a body that does not match its ETag fails verification and leaves no file")
    func eTagMismatch() async throws {
        let memory = MemoryS3()
        memory.store(Array("tampered".utf8), key: "doc.txt", eTag: MemoryS3.md5Hex(Array("original".utf8)))
        let folder = try TemporaryFolder()
        try await RetryTests.withClient(memory, retry: .init(maxAttempts: 2)) { client, _ in
            let error = await #expect(throws: S3Error.self) {
                try await client.getObject(bucket: "bucket", key: "doc.txt", toFile: folder.file("doc.txt"))
            }
            #expect(error?.code == .integrityCheckFailed)
            #expect(error?.message.contains("differs from the object's ETag") == true)
            #expect(folder.contents().isEmpty)
            let inMemory = await #expect(throws: S3Error.self) { try await client.getObject(bucket: "bucket", key: "doc.txt") }
            #expect(inMemory?.code == .integrityCheckFailed)
        }
    }

    @Test("an object replaced during a ranged download fails with PreconditionFailed and leaves no file")
    func replacedMidDownload() async throws {
        let memory = MemoryS3()
        memory.store(patternBytes(size: 2 * Self.partSize + 5, seed: 2), key: "big.bin")
        memory.inject(.error(status: 412, code: "PreconditionFailed"), times: 10, when: { $0.header("if-match") != nil })
        let folder = try TemporaryFolder()
        try await RetryTests.withClient(memory, transfer: Self.transfer) { client, _ in
            let error = await #expect(throws: S3Error.self) {
                try await client.getObject(bucket: "bucket", key: "big.bin", toFile: folder.file("big.bin"))
            }
            #expect(error?.code == .preconditionFailed)
            #expect(folder.contents().isEmpty)
        }
    }

    @Test("download destinations that cannot be written are file errors", arguments: ["missing/out.bin", ""])
    func badDestination(relative: String) async throws {
        let memory = MemoryS3()
        memory.store([1, 2, 3], key: "a")
        let folder = try TemporaryFolder()
        try await RetryTests.withClient(memory) { client, _ in
            let path = relative.isEmpty ? folder.path : folder.file(relative)
            let error = await #expect(throws: S3Error.self) { try await client.getObject(bucket: "bucket", key: "a", toFile: path) }
            #expect(error?.code == .fileError)
            #expect(memory.log.isEmpty, "nothing is fetched for a destination that cannot be written")
        }
    }

    @Test("an upload of a missing file is a file error naming it")
    func missingSource() async throws {
        let memory = MemoryS3()
        try await RetryTests.withClient(memory) { client, _ in
            let error = await #expect(throws: S3Error.self) {
                try await client.putObject(bucket: "bucket", key: "a", fromFile: "/nonexistent/file.bin")
            }
            #expect(error?.code == .fileError)
            #expect(error?.message.contains("/nonexistent/file.bin") == true)
            #expect(memory.log.isEmpty)
        }
    }

    @Test("overwrite protection sends If-None-Match and reports PreconditionFailed")
    func noOverwrite() async throws {
        let memory = MemoryS3()
        memory.store([1], key: "taken")
        try await RetryTests.withClient(memory) { client, _ in
            let error = await #expect(throws: S3Error.self) {
                try await client.putObject(bucket: "bucket", key: "taken", bytes: [2], options: PutObjectOptions(overwrite: false))
            }
            #expect(error?.code == .preconditionFailed)
            #expect(memory.object(key: "taken") == [1])
        }
    }
}
