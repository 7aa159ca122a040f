import Foundation
import Synchronization
import Testing
import WIFCredentials

@testable import S3Partition
import WIFTestSupport

/// The client against moto's S3: a third-party server, so these check the wire format end to end.
@Suite("S3Client against moto", .enabled(if: MotoS3.isEnabled, MotoS3.skipReason), .serialized)
struct MotoTransferTests {
    @Test("put, head, get and delete bytes, with keys that need encoding")
    func bytesRoundTrip() async throws {
        try await MotoS3.withServer { moto in
            let client = try moto.client()
            try await moto.createBucket("roundtrip", with: client)
            let keys = ["plain.txt", "with space/and+plus.txt", "ünïcødé/файл.bin", "quote'and\"amp&.txt", "percent%41.txt", "tilde~star*.txt"]
            for (index, key) in keys.enumerated() {
                let bytes = patternBytes(size: 1000 + index, seed: UInt64(index + 1))
                let put = try await client.putObject(
                    bucket: "roundtrip", key: key, bytes: bytes, options: PutObjectOptions(contentType: "text/plain", metadata: ["origin": "test"]))
                #expect(put.eTag?.count == 32, "single-part ETag is an MD5: \(put.eTag ?? "nil")")
                let head = try await client.headObject(bucket: "roundtrip", key: key)
                #expect(head.contentLength == Int64(bytes.count))
                #expect(head.contentType == "text/plain")
                #expect(head.metadata["origin"] == "test")
                let got = try await client.getObject(bucket: "roundtrip", key: key)
                #expect(got.bytes == bytes, "key \(key)")
                let range = try await client.getObject(bucket: "roundtrip", key: key, range: 10...19)
                #expect(range.bytes == Array(bytes[10...19]))
            }
            let listed = try await client.listObjectsV2Pages(ListObjectsV2Request(bucket: "roundtrip")).objects.reduce(into: []) { $0.append($1.key) }
            #expect(listed.sorted() == keys.sorted())
            for key in keys { try await client.deleteObject(bucket: "roundtrip", key: key) }
            let error = await #expect(throws: S3Error.self) { try await client.headObject(bucket: "roundtrip", key: keys[0]) }
            #expect(error?.code == .noSuchKey)
            #expect(error?.httpStatus == 404)
        }
    }

    @Test("missing keys and buckets give NoSuchKey and NoSuchBucket")
    func missing() async throws {
        try await MotoS3.withServer { moto in
            let client = try moto.client()
            try await moto.createBucket("present", with: client)
            let noKey = await #expect(throws: S3Error.self) { try await client.getObject(bucket: "present", key: "absent") }
            #expect(noKey?.code == .noSuchKey)
            #expect(noKey?.key == "absent")
            let noBucket = await #expect(throws: S3Error.self) {
                try await client.listObjectsV2(ListObjectsV2Request(bucket: "absent-bucket", prefix: "x/"))
            }
            #expect(noBucket?.code == .noSuchBucket)
            let folder = try TemporaryFolder()
            let download = await #expect(throws: S3Error.self) {
                try await client.getObject(bucket: "present", key: "absent", toFile: folder.file("out"))
            }
            #expect(download?.code == .noSuchKey)
            #expect(folder.contents().isEmpty, "no destination and no temporary file")
        }
    }

    /// Transfers in parts and ranges of the smallest size S3 allows, `concurrency` at a time each way.
    static func minimumParts(threshold: Int, concurrency: Int) -> S3Client.Transfer {
        S3Client.Transfer(
            multipartThreshold: threshold, partSize: S3Client.Transfer.minimumPartSize, concurrency: concurrency,
            downloadPartSize: S3Client.Transfer.minimumPartSize, downloadConcurrency: concurrency)
    }

    @Test("a 21 MiB file goes up in parallel parts and comes down in parallel ranges, byte for byte")
    func multipartAndRanges() async throws {
        try await MotoS3.withServer { moto in
            let transfer = Self.minimumParts(threshold: 8 * 1024 * 1024, concurrency: 3)
            let client = try moto.client(transfer: transfer)
            try await moto.createBucket("large", with: client)
            let folder = try TemporaryFolder()
            let size = 21 * 1024 * 1024 + 123
            let digest = try folder.writePatternFile("source.bin", size: size, seed: 7)
            let progress = ProgressLog()
            let put = try await client.putObject(
                bucket: "large", key: "user/video.bin", fromFile: folder.file("source.bin"), progress: progress.record)
            #expect(put.partCount == 5)
            #expect(put.size == Int64(size))
            #expect(put.eTag?.hasSuffix("-5") == true, "multipart ETag: \(put.eTag ?? "nil")")
            #expect(progress.last == TransferProgress(bytesTransferred: Int64(size), totalBytes: Int64(size)))
            #expect(progress.all.map(\.bytesTransferred).max() == Int64(size))

            let head = try await client.headObject(bucket: "large", key: "user/video.bin")
            #expect(head.contentLength == Int64(size))

            let downloads = ProgressLog()
            let metadata = try await client.getObject(
                bucket: "large", key: "user/video.bin", toFile: folder.file("copy.bin"), progress: downloads.record)
            #expect(metadata.contentLength == Int64(size))
            #expect(try fileSHA256(folder.file("copy.bin")) == digest)
            #expect(downloads.last == TransferProgress(bytesTransferred: Int64(size), totalBytes: Int64(size)))
            #expect(folder.contents() == ["copy.bin", "source.bin"], "the temporary file was renamed away")
        }
    }

    @Test("ranges of a key that needs encoding come down whole, written as they arrive")
    func rangesOfAnEncodedKey() async throws {
        try await MotoS3.withServer { moto in
            let transfer = Self.minimumParts(threshold: 5 * 1024 * 1024, concurrency: 2)
            let client = try moto.client(transfer: transfer)
            try await moto.createBucket("encoded", with: client)
            let folder = try TemporaryFolder()
            let size = 11 * 1024 * 1024 + 7
            let digest = try folder.writePatternFile("source.bin", size: size, seed: 11)
            let key = "user/caf\u{e9} et cr\u{e8}me+plus%25/a b.bin"
            _ = try await client.putObject(bucket: "encoded", key: key, fromFile: folder.file("source.bin"))
            let downloads = ProgressLog()
            let metadata = try await client.getObject(bucket: "encoded", key: key, toFile: folder.file("copy.bin"), progress: downloads.record)
            #expect(metadata.contentLength == Int64(size))
            #expect(try fileSHA256(folder.file("copy.bin")) == digest)
            #expect(downloads.last == TransferProgress(bytesTransferred: Int64(size), totalBytes: Int64(size)))
        }
    }

    @Test("multipart uploads with CRC-32 part checksums, and without checksums", arguments: [S3Client.ChecksumAlgorithm.crc32, .none])
    func multipartChecksums(checksum: S3Client.ChecksumAlgorithm) async throws {
        try await MotoS3.withServer { moto in
            let transfer = Self.minimumParts(threshold: 6 * 1024 * 1024, concurrency: 2)
            let client = try moto.client(transfer: transfer, checksum: checksum)
            try await moto.createBucket("parts", with: client)
            let folder = try TemporaryFolder()
            let digest = try folder.writePatternFile("eleven.bin", size: 11 * 1024 * 1024, seed: 17)
            let put = try await client.putObject(bucket: "parts", key: "eleven.bin", fromFile: folder.file("eleven.bin"))
            #expect(put.partCount == 3)
            try await client.getObject(bucket: "parts", key: "eleven.bin", toFile: folder.file("back.bin"))
            #expect(try fileSHA256(folder.file("back.bin")) == digest)
        }
    }

    @Test("a file between 1 MiB and the threshold streams in one PutObject, with CRC-32 too")
    func streamedSinglePut() async throws {
        try await MotoS3.withServer { moto in
            for checksum in [S3Client.ChecksumAlgorithm.sha256, .crc32, .none] {
                let client = try moto.client(checksum: checksum)
                let bucket = "single-\(checksum.description.lowercased())"
                try await moto.createBucket(bucket, with: client)
                let folder = try TemporaryFolder()
                let digest = try folder.writePatternFile("medium.bin", size: 3 * 1024 * 1024 + 5, seed: 3)
                let put = try await client.putObject(bucket: bucket, key: "medium.bin", fromFile: folder.file("medium.bin"))
                #expect(put.partCount == 1)
                #expect(put.eTag?.count == 32)
                try await client.getObject(bucket: bucket, key: "medium.bin", toFile: folder.file("back.bin"))
                #expect(try fileSHA256(folder.file("back.bin")) == digest)
            }
        }
    }

    @Test("listing pages through more than 1,000 keys, and groups by delimiter")
    func pagination() async throws {
        try await MotoS3.withServer { moto in
            let client = try moto.client()
            try await moto.createBucket("many", with: client)
            let names = (0..<1105).map { String(format: "u/%04d.txt", $0) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for chunk in stride(from: 0, to: names.count, by: 140) {
                    let slice = names[chunk..<min(chunk + 140, names.count)]
                    group.addTask { for name in slice { try await client.putObject(bucket: "many", key: name, bytes: [1]) } }
                }
                try await group.waitForAll()
            }
            try await client.putObject(bucket: "many", key: "u/sub/a.txt", bytes: [2])
            try await client.putObject(bucket: "many", key: "other/b.txt", bytes: [3])

            var pages = 0
            var keys: [String] = []
            for try await page in client.listObjectsV2Pages(ListObjectsV2Request(bucket: "many", prefix: "u/")) {
                pages += 1
                keys += page.objects.map(\.key)
            }
            #expect(pages == 2)
            #expect(keys == names + ["u/sub/a.txt"])

            var folders: [String] = []
            var files = 0
            for try await page in client.listObjectsV2Pages(ListObjectsV2Request(bucket: "many", prefix: "u/", delimiter: "/")) {
                folders += page.commonPrefixes
                files += page.objects.count
            }
            #expect(folders == ["u/sub/"])
            #expect(files == names.count, "u/sub/a.txt is grouped under its folder")

            var small: [Int] = []
            for try await page in client.listObjectsV2Pages(ListObjectsV2Request(bucket: "many", prefix: "u/00", maxKeys: 40)) {
                small.append(page.objects.count)
            }
            #expect(small == [40, 40, 20])

            let deleted = try await client.deleteObjects(bucket: "many", keys: names + ["u/sub/a.txt"])
            #expect(deleted.deleted.count == 1106)
            #expect(deleted.failures.isEmpty)
            let rest = try await client.listObjectsV2(ListObjectsV2Request(bucket: "many"))
            #expect(rest.objects.map(\.key) == ["other/b.txt"])
        }
    }
}

/// Records progress reports.
final class ProgressLog: Sendable {
    private let reports = Mutex<[TransferProgress]>([])

    var record: TransferProgressHandler {
        { progress in self.reports.withLock { $0.append(progress) } }
    }

    var all: [TransferProgress] { self.reports.withLock { $0 } }
    var last: TransferProgress? { self.all.last }
}
