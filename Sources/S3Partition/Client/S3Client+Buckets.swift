import Logging
import NIOCore
import WIFHTTP

extension S3Client {
    /// Creates a bucket, or does nothing when the caller owns it already.
    ///
    /// Outside `us-east-1` the region is sent as the bucket's location constraint. `BucketAlreadyOwnedByYou`
    /// counts as success; `BucketAlreadyExists` (another owner has the name) does not.
    /// - Parameters:
    ///   - bucket: The bucket's name.
    ///   - logger: Where to log.
    /// - Throws: ``S3Error`` with the service's code, ``S3Error/Code/invalidBucketName`` for a name S3
    ///   would refuse, or ``S3Error/Code/network``.
    public func createBucket(_ bucket: String, logger: Logger = .noop) async throws {
        _ = try await self.createBucketIfMissing(bucket, logger: logger)
    }

    /// Creates a bucket as ``createBucket(_:logger:)`` does, and says whether it was there already, for
    /// set-ups that report what they changed.
    /// - Parameters:
    ///   - bucket: The bucket's name.
    ///   - logger: Where to log.
    /// - Returns: `true` when the bucket was created, `false` when the caller owned it already.
    /// - Throws: ``S3Error`` as ``createBucket(_:logger:)``.
    package func createBucketIfMissing(_ bucket: String, logger: Logger = .noop) async throws -> Bool {
        try S3BucketName.validate(bucket)
        var request = S3Request(operation: "CreateBucket", method: .PUT, bucket: bucket)
        if self.region != "us-east-1" {
            let body = "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><LocationConstraint>\(self.region)</LocationConstraint></CreateBucketConfiguration>"
            let bytes = Array(body.utf8)
            request.body = .bytes(.init(bytes: bytes), payload: .bytes(bytes))
        }
        do {
            _ = try await self.performCollecting(request, logger: logger)
        } catch let error as S3Error where error.code == .bucketAlreadyOwnedByYou {
            return false
        }
        return true
    }
}

extension S3Error.Code {
    /// The bucket to create exists and belongs to the caller.
    public static let bucketAlreadyOwnedByYou = S3Error.Code("BucketAlreadyOwnedByYou")
}
