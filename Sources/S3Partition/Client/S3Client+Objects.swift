import Logging
import NIOCore
import NIOHTTP1
import WIFCredentials
import WIFHTTP

extension S3Client {
    /// Uploads bytes in memory with one `PutObject`, with a checksum S3 verifies.
    /// - Parameters:
    ///   - bucket: The bucket.
    ///   - key: The object key, 1 to 1,024 UTF-8 bytes.
    ///   - bytes: The object's content.
    ///   - options: Content type, metadata and overwrite protection.
    ///   - logger: Where to log request ids and retries, at debug level.
    /// - Returns: The new object's ETag, version and checksum.
    /// - Throws: ``S3Error``: S3's error (``S3Error/Code/accessDenied``, ``S3Error/Code/noSuchBucket``,
    ///   …), ``S3Error/Code/network`` once retries are spent, ``S3Error/Code/invalidArgument`` for a
    ///   bad key or option, ``S3Error/Code/credentialsUnavailable``; `CancellationError`.
    @discardableResult
    public func putObject(
        bucket: String, key: String, bytes: [UInt8], options: PutObjectOptions = PutObjectOptions(),
        logger: Logger = .noop
    ) async throws -> PutObjectResult {
        try await self.putObject(bucket: bucket, key: key, buffer: ByteBuffer(bytes: bytes), options: options, logger: logger)
    }

    /// Uploads a buffer with one `PutObject`, with a checksum S3 verifies.
    /// - Parameters:
    ///   - bucket: The bucket.
    ///   - key: The object key.
    ///   - buffer: The object's content (its readable bytes).
    ///   - options: Content type, metadata and overwrite protection.
    ///   - logger: Where to log.
    /// - Returns: The new object's ETag, version and checksum.
    /// - Throws: ``S3Error`` as for ``putObject(bucket:key:bytes:options:logger:)``.
    @discardableResult
    public func putObject(
        bucket: String, key: String, buffer: ByteBuffer, options: PutObjectOptions = PutObjectOptions(),
        logger: Logger = .noop
    ) async throws -> PutObjectResult {
        try Self.validate(bucket: bucket, key: key)
        let digest = buffer.withUnsafeReadableBytes { PayloadDigest(of: $0, kinds: self.digestKinds) }
        return try await self.putObject(
            bucket: bucket, key: key, body: .bytes(buffer, payload: self.signingPayload(digest)), digest: digest,
            options: options, progress: nil, logger: logger)
    }

    /// One `PutObject` of a body whose digests are known.
    func putObject(
        bucket: String, key: String, body: S3Request.Body, digest: PayloadDigest, options: PutObjectOptions,
        progress: ProgressTracker?, logger: Logger
    ) async throws -> PutObjectResult {
        var request = S3Request(operation: "PutObject", method: .PUT, bucket: bucket, key: key)
        request.headers = try options.headers(bucket: bucket, key: key)
        if let checksum = digest.checksumHeader(self.configuration.checksumAlgorithm) {
            request.headers.append(checksum)
        }
        request.body = body
        let size = body.length
        return try await self.perform(request, logger: logger, progress: progress) { response in
            PutObjectResult(
                eTag: response.header("etag").map(ObjectMetadata.unquoted), versionId: response.header("x-amz-version-id"),
                checksum: digest.checksumHeader(self.configuration.checksumAlgorithm)?.value, size: size)
        }
    }

    /// Reads an object (or a range of it) into memory, checking its length, and its ETag and checksum
    /// when the whole object is read.
    ///
    /// For large objects use ``getObject(bucket:key:toFile:progress:logger:)``, which streams to disk.
    /// - Parameters:
    ///   - bucket: The bucket.
    ///   - key: The object key.
    ///   - range: A byte range to read instead of the whole object.
    ///   - maximumBytes: Objects larger than this are refused before reading (64 MiB by default).
    ///   - logger: Where to log.
    /// - Returns: The metadata and bytes.
    /// - Throws: ``S3Error``: ``S3Error/Code/noSuchKey``, ``S3Error/Code/accessDenied``,
    ///   ``S3Error/Code/invalidRange``, ``S3Error/Code/integrityCheckFailed`` (after retries),
    ///   ``S3Error/Code/invalidArgument`` for an object over `maximumBytes`, …
    public func getObject(
        bucket: String, key: String, range: ClosedRange<Int64>? = nil, maximumBytes: Int = 64 * 1024 * 1024,
        logger: Logger = .noop
    ) async throws -> ObjectData {
        try Self.validate(bucket: bucket, key: key)
        var request = S3Request(operation: "GetObject", method: .GET, bucket: bucket, key: key)
        if let range {
            guard range.lowerBound >= 0 else { throw S3Error.invalidArgument("a range must not start before 0", bucket: bucket, key: key) }
            request.headers.append(("Range", "bytes=\(range.lowerBound)-\(range.upperBound)"))
        } else if self.configuration.transfer.verifiesDownloads {
            request.headers.append(("x-amz-checksum-mode", "ENABLED"))
        }
        let verifies = self.configuration.transfer.verifiesDownloads && range == nil
        return try await self.perform(request, logger: logger) { response in
            let length = try Self.contentLength(response, operation: "GetObject", bucket: bucket, key: key)
            guard length <= Int64(maximumBytes) else {
                throw S3Error.invalidArgument(
                    "the object is \(length) bytes, more than the \(maximumBytes) bytes allowed in memory; download it to a file",
                    bucket: bucket, key: key)
            }
            var verifier = BodyVerifier(headers: response.headers, expectedLength: length, verifies: verifies)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(Int(length))
            for try await buffer in response.body {
                verifier.update(buffer)
                guard bytes.count + buffer.readableBytes <= Int(length) else { break }
                bytes.append(contentsOf: buffer.readableBytesView)
            }
            try verifier.verify(bucket: bucket, key: key)
            var metadata = ObjectMetadata(headers: response.headers, contentLength: length)
            if let total = Self.contentRangeTotal(response) { metadata.contentLength = total }
            return ObjectData(metadata: metadata, bytes: bytes)
        }
    }

    /// Reads an object's metadata with `HeadObject`.
    /// - Parameters:
    ///   - bucket: The bucket.
    ///   - key: The object key.
    ///   - logger: Where to log.
    /// - Returns: The metadata.
    /// - Throws: ``S3Error``: ``S3Error/Code/noSuchKey`` when the object does not exist (HEAD answers
    ///   carry no error document, so a `404` becomes `NoSuchKey`), ``S3Error/Code/accessDenied``, …
    public func headObject(bucket: String, key: String, logger: Logger = .noop) async throws -> ObjectMetadata {
        try Self.validate(bucket: bucket, key: key)
        var request = S3Request(operation: "HeadObject", method: .HEAD, bucket: bucket, key: key)
        request.headers.append(("x-amz-checksum-mode", "ENABLED"))
        return try await self.perform(request, logger: logger) { response in
            let length = try Self.contentLength(response, operation: "HeadObject", bucket: bucket, key: key)
            return ObjectMetadata(headers: response.headers, contentLength: length)
        }
    }

    /// Deletes an object. Deleting a key that does not exist succeeds, as in S3.
    /// - Parameters:
    ///   - bucket: The bucket.
    ///   - key: The object key.
    ///   - logger: Where to log.
    /// - Throws: ``S3Error``: ``S3Error/Code/accessDenied``, ``S3Error/Code/noSuchBucket``, …
    public func deleteObject(bucket: String, key: String, logger: Logger = .noop) async throws {
        try Self.validate(bucket: bucket, key: key)
        let request = S3Request(operation: "DeleteObject", method: .DELETE, bucket: bucket, key: key)
        try await self.perform(request, logger: logger) { response in
            for try await _ in response.body {}
        }
    }

    // MARK: Helpers

    /// Checks a bucket and key before they go into a URL.
    static func validate(bucket: String, key: String) throws(S3Error) {
        try S3BucketName.validate(bucket)
        if key.isEmpty { throw .invalidArgument("the object key is empty", bucket: bucket) }
        if key.utf8.count > NameRules.maximumKeyBytes {
            throw S3Error(
                code: .keyTooLong, message: "the key is \(key.utf8.count) UTF-8 bytes; S3 allows \(NameRules.maximumKeyBytes)",
                bucket: bucket, key: String(key.prefix(64)) + "…")
        }
    }

    /// The digests uploads need: SHA-256 to sign (unless unsigned) and the checksum.
    var digestKinds: DigestKinds {
        let checksum = self.configuration.checksumAlgorithm
        return DigestKinds(sha256: !self.sendsUnsignedPayload || checksum == .sha256, crc32: checksum == .crc32)
    }

    /// Whether bodies go as `UNSIGNED-PAYLOAD`: only when asked and over HTTPS.
    var sendsUnsignedPayload: Bool {
        !self.configuration.signsPayload && self.endpoint.scheme == "https"
    }

    func signingPayload(_ digest: PayloadDigest) -> SigV4Signer.Payload {
        self.sendsUnsignedPayload ? .unsigned : digest.signingPayload
    }

    /// The `Content-Length` of an answer, which S3 always sends for objects.
    static func contentLength(_ response: S3Response, operation: String, bucket: String?, key: String?) throws(S3Error) -> Int64 {
        guard let text = response.header("content-length"), let length = Int64(text), length >= 0 else {
            throw .malformedResponse(
                "S3 answered \(operation) without a valid Content-Length", status: response.status,
                requestId: response.header("x-amz-request-id"), bucket: bucket, key: key)
        }
        return length
    }

    /// The object size from a `Content-Range: bytes a-b/size` header.
    static func contentRangeTotal(_ response: S3Response) -> Int64? {
        guard let range = response.header("content-range"), let slash = range.lastIndex(of: "/") else { return nil }
        return Int64(range[range.index(after: slash)...])
    }
}
