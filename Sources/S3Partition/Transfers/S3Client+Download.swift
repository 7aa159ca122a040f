import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
import WIFHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension S3Client {
    /// Downloads an object to a file, streaming it to disk.
    ///
    /// The object is written to a temporary file beside the destination (`.<name>.<random>.wif-part`)
    /// and renamed onto the destination only once it is complete and verified, so the destination is
    /// either the whole object or untouched; on any failure, and on cancellation, the temporary file
    /// is removed. Objects larger than ``Transfer/multipartThreshold`` and than one
    /// ``Transfer/downloadPartSize`` are fetched as ranges of that size, ``Transfer/downloadConcurrency``
    /// at a time, written at their offsets, each conditional on the ETag of the first answer so that an object
    /// replaced mid-download fails the download instead of mixing versions.
    ///
    /// Checks: the length always; for objects fetched in one piece, the MD5 against a single-part
    /// ETag and the stored full-object checksum when S3 returns it (unless
    /// ``Transfer/verifiesDownloads`` is off). A connection that breaks mid-body is retried; a
    /// retried range is written again at its offset.
    /// - Parameters:
    ///   - bucket: The bucket.
    ///   - key: The object key.
    ///   - path: The destination file; replaced if it exists.
    ///   - progress: Called with the bytes received so far, from several tasks at once.
    ///   - logger: Where to log.
    /// - Returns: The object's metadata.
    /// - Throws: ``S3Error``: ``S3Error/Code/noSuchKey``, ``S3Error/Code/accessDenied``,
    ///   ``S3Error/Code/integrityCheckFailed``, ``S3Error/Code/preconditionFailed`` when the object
    ///   changed during the download, ``S3Error/Code/fileError`` when the file cannot be written,
    ///   ``S3Error/Code/network``; `CancellationError`.
    @discardableResult
    public func getObject(
        bucket: String, key: String, toFile path: String, progress: TransferProgressHandler? = nil,
        logger: Logger = .noop
    ) async throws -> ObjectMetadata {
        try Self.validate(bucket: bucket, key: key)
        let temporaryPath = try Self.temporaryPath(for: path)
        let file = try WritableFile.createNew(temporaryPath)
        do {
            let tracker = ProgressTracker(totalBytes: nil, handler: progress)
            let metadata = try await self.download(bucket: bucket, key: key, into: file, progress: tracker, logger: logger)
            let size = try file.currentSize()
            guard size == metadata.contentLength else {
                throw S3Error.integrity(
                    "the downloaded file has \(size) bytes where the object has \(metadata.contentLength)", bucket: bucket, key: key)
            }
            if self.configuration.transfer.syncsDownloads { try await file.sync() }
            guard rename(temporaryPath, path) == 0 else {
                throw S3Error.fileError("cannot move the download into place at '\(path)': \(systemErrorText(errno))")
            }
            return metadata
        } catch {
            _ = unlink(temporaryPath)
            throw error
        }
    }

    /// A temporary file name in the destination's folder, after checking the destination is not a
    /// folder.
    static func temporaryPath(for path: String) throws(S3Error) -> String {
        guard !path.isEmpty else { throw .fileError("the destination path is empty") }
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw .fileError("'\(path)' is a folder; give a file path")
        }
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let name = "." + url.lastPathComponent.prefix(160) + "." + random + ".wif-part"
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// What the first answer of a download leads to.
    enum FirstAnswer: Sendable {
        /// The whole object was written and verified.
        case complete(ObjectMetadata)
        /// The object is large: the first part is still to be read from `body`, the rest by ranges.
        case parts(ObjectMetadata, plan: PartPlan, firstPartSize: Int64, eTag: String?, body: HTTPClientResponse.Body)
    }

    /// Downloads into an open file: one request for small objects; for large ones, the first part
    /// from that request's body while the other parts are fetched as parallel ranges.
    func download(
        bucket: String, key: String, into file: WritableFile, progress: ProgressTracker, logger: Logger
    ) async throws -> ObjectMetadata {
        let transfer = self.configuration.transfer
        let request = self.wholeObjectRequest(bucket: bucket, key: key)
        let first = try await self.perform(request, logger: logger) { response -> FirstAnswer in
            let length = try Self.contentLength(response, operation: "GetObject", bucket: bucket, key: key)
            progress.setTotal(length)
            let metadata = ObjectMetadata(headers: response.headers, contentLength: length)
            let rangeSize = Int64(transfer.downloadPartSize)
            if length > Int64(transfer.multipartThreshold) && length > rangeSize {
                try file.truncate(to: length)
                return .parts(
                    metadata, plan: PartPlan(objectSize: length, partSize: rangeSize, startOffset: rangeSize), firstPartSize: rangeSize,
                    eTag: response.header("etag"), body: response.body)
            }
            var verifier = BodyVerifier(headers: response.headers, expectedLength: length, verifies: transfer.verifiesDownloads)
            let attempt = AttemptProgress(progress)
            var writer = OffsetWriter(file: file, offset: 0)
            do {
                for try await buffer in response.body {
                    verifier.update(buffer)
                    guard writer.position + Int64(buffer.readableBytes) <= length else { continue }
                    try writer.append(buffer)
                    attempt.add(buffer.readableBytes)
                }
                try writer.flush()
                try verifier.verify(bucket: bucket, key: key)
            } catch {
                writer.abandon()
                attempt.rollBack()
                throw error
            }
            return .complete(metadata)
        }
        switch first {
        case .complete(let metadata):
            progress.report()
            return metadata
        case .parts(let metadata, let plan, let firstPartSize, let eTag, let body):
            logger.debug("downloading in ranges", metadata: ["wif.s3.key": "\(key)", "wif.s3.parts": "\(plan.partCount + 1)"])
            let firstPart: @Sendable () async throws -> Void = {
                try await self.readFirstPart(
                    body, length: firstPartSize, objectSize: plan.objectSize, bucket: bucket, key: key, eTag: eTag, into: file,
                    progress: progress, logger: logger)
            }
            let otherParts: @Sendable (Int) async throws -> Void = { concurrency in
                _ = try await PartScheduler<Int64>.run(partCount: plan.partCount, concurrency: concurrency) { number in
                    let range = plan.range(ofPart: number)
                    return try await self.downloadRange(
                        bucket: bucket, key: key, offset: range.offset, length: range.length, objectSize: plan.objectSize,
                        eTag: eTag, into: file, progress: progress, logger: logger)
                }
            }
            if transfer.downloadConcurrency == 1 {
                try await firstPart()
                try await otherParts(1)
            } else {
                // The first part streams on its own connection while the others take the remaining slots.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await firstPart() }
                    group.addTask { try await otherParts(transfer.downloadConcurrency - 1) }
                    try await group.waitForAll()
                }
            }
            progress.report()
            return metadata
        }
    }

    /// Reads the first part of a large object from the first answer's body; if that connection
    /// breaks, fetches the part again as a range.
    func readFirstPart(
        _ body: HTTPClientResponse.Body, length: Int64, objectSize: Int64, bucket: String, key: String, eTag: String?,
        into file: WritableFile, progress: ProgressTracker, logger: Logger
    ) async throws {
        let attempt = AttemptProgress(progress)
        var writer = OffsetWriter(file: file, offset: 0)
        do {
            for try await buffer in body {
                let remaining = length - writer.position
                let slice = buffer.readableBytes > remaining ? buffer.getSlice(at: buffer.readerIndex, length: Int(remaining)) ?? buffer : buffer
                try writer.append(slice)
                attempt.add(slice.readableBytes)
                // The rest of this answer is fetched by ranged requests; the connection is dropped.
                if writer.position >= length { break }
            }
            try writer.flush()
            guard writer.position >= length else {
                throw S3Error.network("the connection closed after \(writer.position) of \(length) bytes", bucket: bucket, key: key)
            }
        } catch {
            writer.abandon()
            attempt.rollBack()
            if error is CancellationError || Task.isCancelled { throw error }
            logger.debug("the first part's connection broke; fetching it as a range", metadata: ["wif.s3.error": "\(error)"])
            _ = try await self.downloadRange(
                bucket: bucket, key: key, offset: 0, length: length, objectSize: objectSize, eTag: eTag, into: file,
                progress: progress, logger: logger)
        }
    }

    /// Downloads one range into the file at its offset.
    func downloadRange(
        bucket: String, key: String, offset: Int64, length: Int64, objectSize: Int64, eTag: String?, into file: WritableFile,
        progress: ProgressTracker, logger: Logger
    ) async throws -> Int64 {
        let request = Self.rangeRequest(bucket: bucket, key: key, offset: offset, length: length, eTag: eTag)
        let sink = RangeSink(
            file: file, offset: offset, length: length, objectSize: objectSize, bucket: bucket, key: key, progress: progress)
        do {
            try await self.perform(request, logger: logger, sink: sink) { _ in try sink.finish() }
        } catch {
            sink.abandon()
            throw error
        }
        return length
    }
}

/// Writes the answer to one range request into the file at the range's offset, as the body arrives.
///
/// With `HTTPClient` the writes run on the connection's event loop, each part written before the next
/// is read: no thread hand-off per part, and no pausing and resuming of the socket's reads while a
/// task catches up (a 1 GiB download made about 8,000 of each). A write that blocks holds that event
/// loop for its time. Each attempt starts again at ``accepts(status:headers:)``: what a broken attempt
/// wrote is overwritten, and its progress taken back.
final class RangeSink: ResponseBodySink {
    private struct Attempt {
        var writer: OffsetWriter
        var progress: AttemptProgress
        var expectedRange = ""
    }

    private let file: WritableFile
    private let offset: Int64
    private let length: Int64
    private let objectSize: Int64
    private let bucket: String
    private let key: String
    private let attempt: Mutex<Attempt>

    init(file: WritableFile, offset: Int64, length: Int64, objectSize: Int64, bucket: String, key: String, progress: ProgressTracker) {
        self.file = file
        self.offset = offset
        self.length = length
        self.objectSize = objectSize
        self.bucket = bucket
        self.key = key
        self.attempt = Mutex(Attempt(writer: OffsetWriter(file: file, offset: offset), progress: AttemptProgress(progress)))
    }

    func accepts(status: Int, headers: HTTPHeaders) throws -> Bool {
        self.abandon()
        guard (200..<300).contains(status) else { return false }
        let expectedRange = try S3Client.checkRange(
            status: status, headers: headers, offset: self.offset, length: self.length, objectSize: self.objectSize,
            bucket: self.bucket, key: self.key)
        self.attempt.withLock { $0.expectedRange = expectedRange }
        return true
    }

    func write(_ buffer: ByteBuffer) throws {
        try self.attempt.withLock { attempt throws(S3Error) in
            guard attempt.writer.position - self.offset + Int64(buffer.readableBytes) <= self.length else {
                throw .integrity("S3 sent more than the \(self.length) bytes of \(attempt.expectedRange)", bucket: self.bucket, key: self.key)
            }
            try attempt.writer.append(buffer)
            attempt.progress.add(buffer.readableBytes)
        }
    }

    /// Writes what is pending once the answer is over, and checks that the whole range came.
    func finish() throws(S3Error) {
        try self.attempt.withLock { attempt throws(S3Error) in
            try attempt.writer.flush()
            let received = attempt.writer.position - self.offset
            guard received == self.length else {
                throw .network(
                    "the connection closed after \(received) of \(self.length) bytes of \(attempt.expectedRange)", bucket: self.bucket,
                    key: self.key)
            }
        }
    }

    /// Drops the current attempt: nothing pending is written, and its progress is taken back.
    func abandon() {
        self.attempt.withLock { attempt in
            attempt.writer.abandon()
            attempt.progress.rollBack()
            attempt.writer = OffsetWriter(file: self.file, offset: self.offset)
        }
    }
}

extension S3Client {
    /// A `GetObject` of a whole object, asking for its stored checksum when downloads are verified.
    func wholeObjectRequest(bucket: String, key: String) -> S3Request {
        var request = S3Request(operation: "GetObject", method: .GET, bucket: bucket, key: key)
        if self.configuration.transfer.verifiesDownloads { request.headers.append(("x-amz-checksum-mode", "ENABLED")) }
        return request
    }

    /// A `GetObject` of `length` bytes from `offset`, conditional on the ETag when there is one.
    static func rangeRequest(bucket: String, key: String, offset: Int64, length: Int64, eTag: String?) -> S3Request {
        var request = S3Request(operation: "GetObject", method: .GET, bucket: bucket, key: key)
        request.headers.append(("Range", "bytes=\(offset)-\(offset + length - 1)"))
        if let eTag { request.headers.append(("If-Match", eTag)) }
        return request
    }

    /// Checks that an answer to ``rangeRequest(bucket:key:offset:length:eTag:)`` carries exactly that range.
    /// - Returns: The range as `Content-Range` states it, for messages.
    /// - Throws: ``S3Error/Code/malformedResponse`` for another status or range.
    static func checkRange(
        _ response: S3Response, offset: Int64, length: Int64, objectSize: Int64, bucket: String, key: String
    ) throws(S3Error) -> String {
        try Self.checkRange(
            status: response.status, headers: response.headers, offset: offset, length: length, objectSize: objectSize, bucket: bucket,
            key: key)
    }

    /// ``checkRange(_:offset:length:objectSize:bucket:key:)`` from the answer's status and headers.
    static func checkRange(
        status: Int, headers: HTTPHeaders, offset: Int64, length: Int64, objectSize: Int64, bucket: String, key: String
    ) throws(S3Error) -> String {
        let expectedRange = "bytes \(offset)-\(offset + length - 1)/\(objectSize)"
        guard status == 206, headers.first(name: "content-range") == expectedRange else {
            throw .malformedResponse(
                "S3 answered a request for \(expectedRange) with HTTP \(status) and Content-Range '\(headers.first(name: "content-range") ?? "")'",
                status: status, requestId: headers.first(name: "x-amz-request-id"), bucket: bucket, key: key)
        }
        return expectedRange
    }
}

/// Collects received buffers and writes them to a file at consecutive offsets, 128 KiB at a time,
/// with one `pwritev` and no copy into a buffer of their own.
///
/// The write runs on the thread that reads the body: the reading task, or for a range the connection's
/// event loop (``RangeSink``). Handing each batch to a thread pool and resuming afterwards woke two
/// threads per 128 KiB, which on a machine whose cores the server also needs cost more than the write,
/// a copy into the page cache. The cost is that a write that blocks (a slow network file system, the
/// kernel throttling a writer of too much unwritten data) holds that thread for its time.
///
/// The size balances system calls against the cache: a batch small enough to be still in the CPU's
/// cache when the kernel copies it, and writes short enough that parts writing at once wait little for
/// the file's lock (64, 128 and 256 KiB measured alike; 512 KiB was slower).
struct OffsetWriter {
    static let flushSize = 128 * 1024

    let file: WritableFile
    /// Where the next byte goes (everything before it is written or pending).
    private(set) var position: Int64
    /// Where the pending buffers go; they hold `position - pendingStart` bytes.
    private var pendingStart: Int64
    private var pending: [ByteBuffer] = []

    init(file: WritableFile, offset: Int64) {
        self.file = file
        self.position = offset
        self.pendingStart = offset
    }

    mutating func append(_ buffer: ByteBuffer) throws(S3Error) {
        guard buffer.readableBytes > 0 else { return }
        self.pending.append(buffer)
        self.position += Int64(buffer.readableBytes)
        if self.position - self.pendingStart >= Self.flushSize { try self.flush() }
    }

    /// Writes what is pending (into the page cache).
    mutating func flush() throws(S3Error) {
        guard !self.pending.isEmpty else { return }
        let buffers = self.pending
        self.pending = []
        try self.file.write(buffers, at: self.pendingStart)
        self.pendingStart = self.position
    }

    /// Drops what is pending, so that a failed attempt writes nothing more.
    mutating func abandon() {
        self.pending = []
        self.pendingStart = self.position
    }
}
