import Logging
import NIOCore
import NIOFoundationCompat
import WIFCredentials
import WIFHTTP

extension S3Client {
    /// The bytes in each signed `aws-chunked` chunk of a streamed part.
    static let streamingChunkSize = 64 * 1024

    /// Uploads bytes of unknown length, read from `input` until it ends (such as standard input).
    ///
    /// The input is read in parts of ``Transfer/partSize`` bytes. When it ends before the first part is
    /// full, the bytes go up as one `PutObject`; otherwise as a multipart upload whose parts are sent in
    /// signed `aws-chunked` chunks (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD`), each part read while the one
    /// before is sent, so at most two parts are held in memory. A failed or cancelled multipart upload is
    /// aborted. Empty input stores an empty object.
    /// - Parameters:
    ///   - bucket: The bucket.
    ///   - key: The object key.
    ///   - input: Where the bytes come from; read to its end.
    ///   - options: Content type, metadata and overwrite protection.
    ///   - progress: Called with the bytes sent so far; the total is unknown until the input ends.
    ///   - logger: Where to log.
    /// - Returns: The new object's ETag, checksum, size and part count.
    /// - Throws: ``S3Error``: ``S3Error/Code/fileError`` when the input cannot be read,
    ///   ``S3Error/Code/invalidArgument`` when it needs more than 10,000 parts, S3's errors,
    ///   ``S3Error/Code/network`` once retries are spent; `CancellationError`.
    @discardableResult
    public func putObject(
        bucket: String, key: String, from input: SequentialInput, options: PutObjectOptions = PutObjectOptions(),
        progress: TransferProgressHandler? = nil,
        logger: Logger = .noop
    ) async throws -> PutObjectResult {
        try Self.validate(bucket: bucket, key: key)
        _ = try options.headers(bucket: bucket, key: key)
        let partSize = self.configuration.transfer.partSize
        let allocator = ByteBufferAllocator()
        let tracker = ProgressTracker(totalBytes: nil, handler: progress)
        let first = try await input.read(upTo: partSize, allocator: allocator)
        if first.readableBytes < partSize {
            tracker.setTotal(Int64(first.readableBytes))
            let digest = first.withUnsafeReadableBytes { PayloadDigest(of: $0, kinds: self.digestKinds) }
            return try await self.putObject(
                bucket: bucket, key: key, body: .bytes(first, payload: self.signingPayload(digest)), digest: digest,
                options: options, progress: tracker, logger: logger)
        }
        let (uploadId, cancelled) = try await self.startMultipartUpload(bucket: bucket, key: key, options: options, logger: logger)
        logger.debug(
            "multipart upload of a stream started", metadata: ["wif.s3.upload_id": "\(uploadId)", "wif.s3.key": "\(key)"])
        do {
            if cancelled { throw CancellationError() }
            var parts: [CompletedPart] = []
            var size: Int64 = 0
            var current = first
            while true {
                let number = parts.count + 1
                guard number <= Transfer.maximumPartCount else {
                    throw S3Error.invalidArgument(
                        "\(input) holds more than \(Transfer.maximumPartCount) parts of \(partSize) bytes; raise the part size",
                        bucket: bucket, key: key)
                }
                // The next part is read while this one is sent.
                async let following = input.read(upTo: partSize, allocator: allocator)
                let part = try await self.uploadStreamedPart(
                    bucket: bucket, key: key, uploadId: uploadId, number: number, buffer: current, progress: tracker, logger: logger)
                parts.append(part)
                size += Int64(current.readableBytes)
                current = try await following
                if current.readableBytes == 0 { break }
            }
            tracker.setTotal(size)
            return try await self.completeMultipartUpload(
                bucket: bucket, key: key, uploadId: uploadId, parts: parts, size: size, logger: logger)
        } catch {
            await self.abortAfterFailure(bucket: bucket, key: key, uploadId: uploadId, logger: logger)
            throw error
        }
    }

    /// Uploads one part held in memory in signed `aws-chunked` chunks, with its checksum as a header.
    func uploadStreamedPart(
        bucket: String, key: String, uploadId: String, number: Int, buffer: ByteBuffer, progress: ProgressTracker, logger: Logger
    ) async throws -> CompletedPart {
        let algorithm = self.configuration.checksumAlgorithm
        let kinds = DigestKinds(sha256: algorithm == .sha256, crc32: algorithm == .crc32)
        let digest = buffer.withUnsafeReadableBytes { PayloadDigest(of: $0, kinds: kinds) }
        return try await self.uploadPart(
            bucket: bucket, key: key, uploadId: uploadId, number: number, body: .chunked(buffer, chunkSize: Self.streamingChunkSize),
            checksum: digest.checksumHeader(algorithm), progress: progress, logger: logger)
    }
}

/// A body in memory framed as signed `aws-chunked` chunks as it is sent: one chunk's frame is built at a
/// time, so the framing never holds a second copy of the body.
struct ChunkedBodySequence: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let buffer: ByteBuffer
    let chunks: SigV4ChunkSigner
    let progress: AttemptProgress

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: ByteBuffer
        var chunks: SigV4ChunkSigner
        let progress: AttemptProgress

        mutating func next() async throws -> ByteBuffer? {
            guard !self.chunks.isFinished else { return nil }
            let count = Swift.min(self.chunks.chunkSize, self.remaining.readableBytes)
            let slice = self.remaining.readSlice(length: count) ?? ByteBuffer()
            let framed = try self.chunks.frame(slice.readableBytesView)
            self.progress.add(count)
            return ByteBuffer(bytes: framed)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(remaining: self.buffer, chunks: self.chunks, progress: self.progress)
    }
}
