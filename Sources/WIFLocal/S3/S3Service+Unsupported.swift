import HTTPTypes
import WIFAPIServer
import WIFFoundation

extension S3Service {
    /// Refuses, with S3's answer, request headers that ask for something the stack does not do, so that
    /// none is accepted and ignored: access control lists beyond the owner's, and KMS encryption.
    ///
    /// Buckets here behave as S3 buckets with ACLs disabled (object ownership "bucket owner enforced", S3's
    /// default): `x-amz-acl: private` and `bucket-owner-full-control` are accepted, since they grant
    /// nothing more, and every other canned ACL or grant is `AccessControlListNotSupported`. SSE-S3 and
    /// SSE-C are done (``encryptionRequest(_:)``); SSE-KMS is `NotImplemented` (501), there being no KMS;
    /// conflicting or unknown encryption headers are S3's 400.
    static func refuseUnsupportedHeaders(_ call: Call) throws(AWSErrorResponse) {
        switch call.operation {
        case .createBucket, .putObject, .copyObject, .createMultipartUpload:
            try Self.refuseACL(call.headers)
        default:
            break
        }
        switch call.operation {
        case .putObject, .copyObject, .createMultipartUpload, .uploadPart, .uploadPartCopy, .getObject, .headObject,
            .completeMultipartUpload:
            try Self.refuseEncryption(call.headers)
        default:
            break
        }
    }

    /// The canned ACLs a bucket with ACLs disabled accepts.
    static let acceptedCannedACLs: Set<String> = ["private", "bucket-owner-full-control"]

    private static func refuseACL(_ headers: HTTPFields) throws(AWSErrorResponse) {
        if let acl = headers.value(of: HTTPField.Name("x-amz-acl")!), !Self.acceptedCannedACLs.contains(acl.trimming(.whitespaces)) {
            throw Self.aclNotSupported()
        }
        if headers.contains(where: { $0.name.canonicalName.hasPrefix("x-amz-grant-") }) {
            throw Self.aclNotSupported()
        }
    }

    private static func aclNotSupported() -> AWSErrorResponse {
        AWSErrorResponse("AccessControlListNotSupported", "The bucket does not allow ACLs")
    }

    private static func refuseEncryption(_ headers: HTTPFields) throws(AWSErrorResponse) {
        let method = headers[S3Headers.serverSideEncryption]
        let kmsKey = headers.value(of: HTTPField.Name("x-amz-server-side-encryption-aws-kms-key-id")!)
        // A copy's source keys (x-amz-copy-source-server-side-encryption-customer-*) say nothing of the target.
        let customer = headers.contains { $0.name.canonicalName.hasPrefix(S3Service.customerKeyPrefix) }
        if customer, method != nil {
            throw S3Errors.invalidArgument(
                "Server Side Encryption with Customer provided key is incompatible with the encryption method specified",
                name: "x-amz-server-side-encryption", value: method)
        }
        if kmsKey != nil, method?.hasPrefix("aws:kms") != true {
            throw S3Errors.invalidArgument(
                "Server Side Encryption with AWS KMS managed key requires HTTP header x-amz-server-side-encryption : aws:kms",
                name: "x-amz-server-side-encryption-aws-kms-key-id", value: nil)
        }
        guard let method else { return }
        switch method {
        case "aws:kms", "aws:kms:dsse":
            throw S3Errors.notImplemented("Server-side encryption with KMS keys (\(method); the stack has no KMS)")
        case StoredEncryption.Mode.s3.rawValue:
            return
        default:
            throw S3Errors.invalidArgument(
                "The encryption method specified is not supported", name: "x-amz-server-side-encryption", value: method)
        }
    }
}
