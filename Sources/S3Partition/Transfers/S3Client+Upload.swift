import Logging
import NIOCore
import WIFHTTP

extension S3Client {
    /// Uploads a file, streaming it from disk: one `PutObject` below
    /// ``Transfer/multipartThreshold``, else a multipart upload whose parts go in parallel.
    ///
    /// Each body's digests are computed in a first pass over its bytes (one pass gives both the signed
    /// SHA-256 and the checksum header), then the bytes are read again as they are sent, so memory
    /// stays bounded whatever the file's size. A retried part is read again from its offset; S3
    /// checks it against the digests of the first pass, so a file that changes during the upload
    /// makes the upload fail rather than store a mixture. A failed or cancelled multipart upload is
    /// aborted.
    /// - Parameters:
    ///   - bucket: The bucket.
    ///   - key: The object key.
    ///   - path: The file to upload.
    ///   - options: Content type, metadata and overwrite protection.
    ///   - progress: Called with the bytes sent so far, from several tasks at once.
    ///   - logger: Where to log.
    /// - Returns: The new object's ETag, checksum, size and part count.
    /// - Throws: ``S3Error``: ``S3Error/Code/fileError`` when the file cannot be read, S3's errors,
    ///   ``S3Error/Code/network`` once retries are spent; `CancellationError`.
    @discardableResult
    public func putObject(
        bucket: String, key: String, fromFile path: String, options: PutObjectOptions = PutObjectOptions(),
        progress: TransferProgressHandler? = nil,
        logger: Logger = .noop
    ) async throws -> PutObjectResult {
        try Self.validate(bucket: bucket, key: key)
        _ = try options.headers(bucket: bucket, key: key)
        let file = try ReadableFile.open(path)
        let size = file.size
        let tracker = ProgressTracker(totalBytes: size, handler: progress)
        tracker.report()
        let transfer = self.configuration.transfer
        if size >= Int64(transfer.multipartThreshold) && size > Int64(Transfer.minimumPartSize) {
            return try await self.multipartUpload(bucket: bucket, key: key, file: file, options: options, progress: tracker, logger: logger)
        }
        if size <= Int64(Self.smallFileSize) {
            let buffer = try await file.read(at: 0, count: Int(size), allocator: ByteBufferAllocator())
            let digest = buffer.withUnsafeReadableBytes { PayloadDigest(of: $0, kinds: self.digestKinds) }
            return try await self.putObject(
                bucket: bucket, key: key, body: .bytes(buffer, payload: self.signingPayload(digest)), digest: digest,
                options: options, progress: tracker, logger: logger)
        }
        let digest = try await file.digest(at: 0, length: size, kinds: self.digestKinds)
        return try await self.putObject(
            bucket: bucket, key: key, body: .file(file, offset: 0, length: size, payload: self.signingPayload(digest)),
            digest: digest, options: options, progress: tracker, logger: logger)
    }

    /// Uploads a file in parts, in parallel, and aborts the upload if anything fails.
    func multipartUpload(
        bucket: String, key: String, file: ReadableFile, options: PutObjectOptions, progress: ProgressTracker, logger: Logger
    ) async throws -> PutObjectResult {
        let size = file.size
        let plan = PartPlan(objectSize: size, partSize: Int64(self.configuration.transfer.partSize(forObjectOfSize: size)))
        let (uploadId, cancelled) = try await self.startMultipartUpload(bucket: bucket, key: key, options: options, logger: logger)
        logger.debug(
            "multipart upload started",
            metadata: ["wif.s3.upload_id": "\(uploadId)", "wif.s3.parts": "\(plan.partCount)", "wif.s3.key": "\(key)"])
        do {
            if cancelled { throw CancellationError() }
            let parts = try await PartScheduler<CompletedPart>.run(
                partCount: plan.partCount, concurrency: self.configuration.transfer.concurrency
            ) { number in
                let range = plan.range(ofPart: number)
                return try await self.uploadPart(
                    bucket: bucket, key: key, uploadId: uploadId, number: number, file: file, offset: range.offset,
                    length: range.length, progress: progress, logger: logger)
            }
            return try await self.completeMultipartUpload(
                bucket: bucket, key: key, uploadId: uploadId, parts: parts, size: size, logger: logger)
        } catch {
            await self.abortAfterFailure(bucket: bucket, key: key, uploadId: uploadId, logger: logger)
            throw error
        }
    }

    /// Aborts a multipart upload that failed or was cancelled, so that its parts stop taking space; a
    /// failure to abort is logged, not thrown over the error that caused it.
    func abortAfterFailure(bucket: String, key: String, uploadId: String, logger: Logger) async {
        // The abort runs in its own task so that it is sent even when this task was cancelled.
        let client = self
        await Task {
            do {
                try await client.abortMultipartUpload(bucket: bucket, key: key, uploadId: uploadId, logger: logger)
            } catch {
                logger.debug(
                    "aborting the multipart upload failed",
                    metadata: ["wif.s3.upload_id": "\(uploadId)", "wif.s3.error": "\(error)"])
            }
        }.value
    }
}
