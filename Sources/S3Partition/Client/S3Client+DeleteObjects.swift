import Crypto
import Foundation
import Logging
import NIOCore
import WIFFoundation
import WIFHTTP

/// What a `DeleteObjects` call did: the keys deleted and the keys S3 refused.
public struct DeleteObjectsResult: Sendable, Hashable {
    /// A key S3 did not delete, with its error.
    public struct Failure: Sendable, Hashable {
        /// The key.
        public var key: String
        /// S3's code for this key, such as ``S3Error/Code/accessDenied``.
        public var code: S3Error.Code
        /// S3's message.
        public var message: String

        /// Creates a failure.
        /// - Parameters:
        ///   - key: The key.
        ///   - code: The error code.
        ///   - message: The message.
        public init(key: String, code: S3Error.Code, message: String) {
            self.key = key
            self.code = code
            self.message = message
        }
    }

    /// The keys deleted (S3 counts keys that did not exist as deleted).
    public var deleted: [String]
    /// The keys not deleted.
    public var failures: [Failure]

    /// Creates a result.
    /// - Parameters:
    ///   - deleted: The keys deleted.
    ///   - failures: The keys not deleted.
    public init(deleted: [String] = [], failures: [Failure] = []) {
        self.deleted = deleted
        self.failures = failures
    }
}

extension S3Client {
    /// The most keys one `DeleteObjects` request takes.
    public static let maximumKeysPerDelete = 1000

    /// Deletes many objects with `DeleteObjects`, in batches of 1,000 keys.
    ///
    /// A key S3 refuses (for example ``S3Error/Code/accessDenied``) does not fail the call; it is
    /// listed in ``DeleteObjectsResult/failures``.
    /// - Parameters:
    ///   - bucket: The bucket.
    ///   - keys: The keys to delete.
    ///   - logger: Where to log.
    /// - Returns: The keys deleted and the keys refused.
    /// - Throws: ``S3Error`` when a whole request fails (``S3Error/Code/accessDenied``,
    ///   ``S3Error/Code/noSuchBucket``, ``S3Error/Code/network``, …) or a key is empty or too long.
    public func deleteObjects(bucket: String, keys: [String], logger: Logger = .noop) async throws -> DeleteObjectsResult {
        for key in keys { try Self.validate(bucket: bucket, key: key) }
        var result = DeleteObjectsResult()
        var start = 0
        while start < keys.count {
            let batch = Array(keys[start..<min(start + Self.maximumKeysPerDelete, keys.count)])
            let part = try await self.deleteBatch(bucket: bucket, keys: batch, logger: logger)
            result.deleted += part.deleted
            result.failures += part.failures
            start += batch.count
        }
        return result
    }

    private func deleteBatch(bucket: String, keys: [String], logger: Logger) async throws -> DeleteObjectsResult {
        var document = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Quiet>true</Quiet>"
        for key in keys {
            document += "<Object><Key>" + XMLWriter.escape(key) + "</Key></Object>"
        }
        document += "</Delete>"
        let buffer = ByteBuffer(string: document)
        // DeleteObjects requires an integrity header; Content-MD5 is the one every S3 implementation knows.
        let digest = buffer.withUnsafeReadableBytes { PayloadDigest(of: $0, kinds: DigestKinds(sha256: true, crc32: false, md5: true)) }
        var request = S3Request(operation: "DeleteObjects", method: .POST, bucket: bucket)
        request.query = [("delete", nil)]
        request.headers = [("Content-Type", "application/xml"), ("Content-MD5", digest.md5Base64 ?? "")]
        request.body = .bytes(buffer, payload: digest.signingPayload)
        let (response, body) = try await self.performCollecting(request, logger: logger)
        let requestId = response.header("x-amz-request-id")
        let root: XMLTreeElement
        do {
            root = try XMLReader.parse(body)
        } catch {
            throw S3Error.malformedResponse(
                "the DeleteObjects answer is not XML: \(error.reason)", status: response.status, requestId: requestId, bucket: bucket)
        }
        guard root.name == "DeleteResult" else {
            if root.name == "Error" {
                throw S3ErrorDocument.error(status: response.status, headers: response.headers, body: body, bucket: bucket, key: nil)
            }
            throw S3Error.malformedResponse(
                "the DeleteObjects answer is <\(root.name)>, not <DeleteResult>", status: response.status, requestId: requestId,
                bucket: bucket)
        }
        var failures: [DeleteObjectsResult.Failure] = []
        var failed: Set<String> = []
        for error in root.children(named: "Error") {
            let key = error.text("Key") ?? ""
            failed.insert(key)
            failures.append(.init(key: key, code: S3Error.Code(error.text("Code") ?? "Unknown"), message: error.text("Message") ?? ""))
        }
        return DeleteObjectsResult(deleted: keys.filter { !failed.contains($0) }, failures: failures)
    }
}
