import Logging
import NIOCore
import WIFFoundation

/// A part S3 accepted: what `CompleteMultipartUpload` lists.
struct CompletedPart: Sendable, Hashable {
    /// The 1-based part number.
    var number: Int
    /// The part's ETag exactly as S3 returned it (with quotes).
    var eTag: String
    /// The part's checksum in base64, when one was sent.
    var checksum: String?
}

extension S3Client {
    /// Starts a multipart upload and returns its id, then checks for cancellation.
    ///
    /// The request runs in a task of its own: cancelled while it is on the wire, it would lose the id
    /// of an upload the server has already begun, which then could not be aborted. Cancellation is
    /// checked once the id is known, and the caller aborts the upload when it is thrown.
    /// - Returns: The upload id, and the cancellation to throw after aborting, if the caller was
    ///   cancelled meanwhile.
    func startMultipartUpload(
        bucket: String, key: String, options: PutObjectOptions, logger: Logger
    ) async throws -> (uploadId: String, cancelled: Bool) {
        let client = self
        let uploadId = try await Task {
            try await client.createMultipartUpload(bucket: bucket, key: key, options: options, logger: logger)
        }.value
        return (uploadId, Task.isCancelled)
    }

    /// Starts a multipart upload and returns its id.
    func createMultipartUpload(
        bucket: String, key: String, options: PutObjectOptions, logger: Logger
    ) async throws -> String {
        var request = S3Request(operation: "CreateMultipartUpload", method: .POST, bucket: bucket, key: key)
        request.query = [("uploads", nil)]
        request.headers = try options.headers(bucket: bucket, key: key)
        let algorithm = self.configuration.checksumAlgorithm
        if algorithm != .none {
            request.headers.append(("x-amz-checksum-algorithm", algorithm.description))
        }
        let (response, body) = try await self.performCollecting(request, logger: logger, limit: S3ErrorDocument.maximumBytes)
        let root = try Self.parseDocument(body, operation: "CreateMultipartUpload", response: response, bucket: bucket, key: key)
        guard root.name == "InitiateMultipartUploadResult", let uploadId = root.text("UploadId"), !uploadId.isEmpty else {
            throw S3Error.malformedResponse(
                "the CreateMultipartUpload answer has no <UploadId>", status: response.status,
                requestId: response.header("x-amz-request-id"), bucket: bucket, key: key)
        }
        return uploadId
    }

    /// Uploads one part from a file, its digests computed first from the same bytes.
    func uploadPart(
        bucket: String, key: String, uploadId: String, number: Int, file: ReadableFile, offset: Int64, length: Int64,
        progress: ProgressTracker?, logger: Logger
    ) async throws -> CompletedPart {
        let digest = try await file.digest(at: offset, length: length, kinds: self.digestKinds)
        return try await self.uploadPart(
            bucket: bucket, key: key, uploadId: uploadId, number: number,
            body: .file(file, offset: offset, length: length, payload: self.signingPayload(digest)),
            checksum: digest.checksumHeader(self.configuration.checksumAlgorithm), progress: progress, logger: logger)
    }

    /// Sends one part's body with the checksum header S3 verifies it against.
    func uploadPart(
        bucket: String, key: String, uploadId: String, number: Int, body: S3Request.Body, checksum: (name: String, value: String)?,
        progress: ProgressTracker?, logger: Logger
    ) async throws -> CompletedPart {
        var request = S3Request(operation: "UploadPart", method: .PUT, bucket: bucket, key: key)
        request.query = [("partNumber", String(number)), ("uploadId", uploadId)]
        if let checksum { request.headers.append(checksum) }
        request.body = body
        return try await self.perform(request, logger: logger, progress: progress) { response in
            for try await _ in response.body {}
            guard let eTag = response.header("etag"), !eTag.isEmpty else {
                throw S3Error.malformedResponse(
                    "S3 accepted part \(number) without an ETag", status: response.status,
                    requestId: response.header("x-amz-request-id"), bucket: bucket, key: key)
            }
            return CompletedPart(number: number, eTag: eTag, checksum: checksum?.value)
        }
    }

    /// Completes a multipart upload from its parts.
    func completeMultipartUpload(
        bucket: String, key: String, uploadId: String, parts: [CompletedPart], size: Int64, logger: Logger
    ) async throws -> PutObjectResult {
        let checksumElement: String?
        switch self.configuration.checksumAlgorithm.base {
        case .sha256: checksumElement = "ChecksumSHA256"
        case .crc32: checksumElement = "ChecksumCRC32"
        case .none: checksumElement = nil
        }
        var document = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        for part in parts {
            document += "<Part><PartNumber>\(part.number)</PartNumber><ETag>\(XMLWriter.escape(part.eTag))</ETag>"
            if let element = checksumElement, let checksum = part.checksum {
                document += "<\(element)>\(checksum)</\(element)>"
            }
            document += "</Part>"
        }
        document += "</CompleteMultipartUpload>"
        let buffer = ByteBuffer(string: document)
        let digest = buffer.withUnsafeReadableBytes { PayloadDigest(of: $0, kinds: DigestKinds(sha256: true, crc32: false)) }
        var request = S3Request(operation: "CompleteMultipartUpload", method: .POST, bucket: bucket, key: key)
        request.query = [("uploadId", uploadId)]
        // The size the parts add up to: S3 refuses to complete an upload whose parts add up to another
        // (400 InvalidRequest), so a part lost or sent twice cannot become the object.
        request.headers = [("Content-Type", "application/xml"), ("x-amz-mp-object-size", String(size))]
        request.body = .bytes(buffer, payload: digest.signingPayload)
        return try await self.perform(request, logger: logger) { response in
            let body = try await response.collect(upTo: S3ErrorDocument.maximumBytes, operation: "CompleteMultipartUpload")
            let root = try Self.parseDocument(body, operation: "CompleteMultipartUpload", response: response, bucket: bucket, key: key)
            // S3 may answer 200 and then report a failure in the body.
            if root.name == "Error" {
                throw S3ErrorDocument.error(status: response.status, headers: response.headers, body: body, bucket: bucket, key: key)
            }
            // S3 names it CompleteMultipartUploadResult; some S3-compatible servers write ...Response.
            guard root.name == "CompleteMultipartUploadResult" || root.name == "CompleteMultipartUploadResponse" else {
                throw S3Error.malformedResponse(
                    "the CompleteMultipartUpload answer is <\(root.name)>", status: response.status,
                    requestId: response.header("x-amz-request-id"), bucket: bucket, key: key)
            }
            let checksum = checksumElement.flatMap { root.text($0) }
            return PutObjectResult(
                eTag: root.text("ETag").map(ObjectMetadata.unquoted), versionId: response.header("x-amz-version-id"),
                checksum: checksum, size: size, partCount: parts.count)
        }
    }

    /// Aborts a multipart upload so its parts stop taking space.
    func abortMultipartUpload(bucket: String, key: String, uploadId: String, logger: Logger) async throws {
        var request = S3Request(operation: "AbortMultipartUpload", method: .DELETE, bucket: bucket, key: key)
        request.query = [("uploadId", uploadId)]
        try await self.perform(request, logger: logger) { response in
            for try await _ in response.body {}
        }
    }

    /// Parses an XML answer, or says it is not one.
    static func parseDocument(
        _ body: [UInt8], operation: String, response: S3Response, bucket: String?, key: String?
    ) throws(S3Error) -> XMLTreeElement {
        do {
            return try XMLReader.parse(body)
        } catch {
            throw .malformedResponse(
                "the \(operation) answer is not XML: \(error.reason)", status: response.status,
                requestId: response.header("x-amz-request-id"), bucket: bucket, key: key)
        }
    }
}
