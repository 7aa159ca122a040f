import HTTPTypes
import WIFAPIServer

/// An S3 API operation WIFLocal serves, with the IAM action that authorizes it.
enum S3Operation: String, Sendable, Hashable, CaseIterable {
    case listBuckets = "ListBuckets"
    case createBucket = "CreateBucket"
    case headBucket = "HeadBucket"
    case deleteBucket = "DeleteBucket"
    case getBucketLocation = "GetBucketLocation"
    case listObjectsV2 = "ListObjectsV2"
    case listObjects = "ListObjects"
    case listMultipartUploads = "ListMultipartUploads"
    case deleteObjects = "DeleteObjects"
    case putObject = "PutObject"
    case copyObject = "CopyObject"
    case getObject = "GetObject"
    case headObject = "HeadObject"
    case deleteObject = "DeleteObject"
    case createMultipartUpload = "CreateMultipartUpload"
    case uploadPart = "UploadPart"
    case uploadPartCopy = "UploadPartCopy"
    case completeMultipartUpload = "CompleteMultipartUpload"
    case abortMultipartUpload = "AbortMultipartUpload"
    case listParts = "ListParts"

    /// What an operation acts on, which fixes the resource ARN it is authorized against.
    enum Scope: Sendable, Hashable {
        /// The account's buckets (`ListBuckets`): resource `*`.
        case service
        /// A bucket: `arn:aws:s3:::bucket`.
        case bucket
        /// An object: `arn:aws:s3:::bucket/key`.
        case object
    }

    /// The IAM action that authorizes the operation, as the S3 documentation's "permissions required" lists
    /// it. `DeleteObjects` is authorized key by key with `s3:DeleteObject`; `CopyObject` needs `s3:GetObject`
    /// on the source as well.
    var action: String {
        switch self {
        case .listBuckets: "s3:ListAllMyBuckets"
        case .createBucket: "s3:CreateBucket"
        case .headBucket, .listObjectsV2, .listObjects: "s3:ListBucket"
        case .deleteBucket: "s3:DeleteBucket"
        case .getBucketLocation: "s3:GetBucketLocation"
        case .listMultipartUploads: "s3:ListBucketMultipartUploads"
        case .deleteObjects, .deleteObject: "s3:DeleteObject"
        case .putObject, .copyObject, .createMultipartUpload, .uploadPart, .uploadPartCopy, .completeMultipartUpload:
            "s3:PutObject"
        case .getObject, .headObject: "s3:GetObject"
        case .abortMultipartUpload: "s3:AbortMultipartUpload"
        case .listParts: "s3:ListMultipartUploadParts"
        }
    }

    /// What the operation acts on.
    var scope: Scope {
        switch self {
        case .listBuckets: .service
        case .createBucket, .headBucket, .deleteBucket, .getBucketLocation, .listObjectsV2, .listObjects,
            .listMultipartUploads, .deleteObjects:
            .bucket
        case .putObject, .copyObject, .getObject, .headObject, .deleteObject, .createMultipartUpload, .uploadPart,
            .uploadPartCopy, .completeMultipartUpload, .abortMultipartUpload, .listParts:
            .object
        }
    }

    /// Whether the operation reads a request body that it stores (streamed to disk rather than collected).
    var streamsBody: Bool {
        self == .putObject || self == .uploadPart
    }

    /// Whether the operation takes a small XML body that is collected and parsed.
    var takesXMLBody: Bool {
        self == .deleteObjects || self == .completeMultipartUpload || self == .createBucket
    }

    /// Subresources S3 has and WIFLocal does not serve; a request naming one gets `NotImplemented` rather than
    /// being mistaken for a plain object or bucket request.
    static let unsupportedSubresources: Set<String> = [
        "accelerate", "acl", "analytics", "attributes", "cors", "encryption", "intelligent-tiering", "inventory",
        "legal-hold", "lifecycle", "logging", "metadataConfiguration", "metadataTable", "metrics", "notification",
        "object-lock", "ownershipControls", "policy", "policyStatus", "publicAccessBlock", "renameObject", "replication",
        "requestPayment", "restore", "retention", "select", "session", "tagging", "torrent", "versioning", "versions",
        "website",
    ]

    /// The operation a request asks for.
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - address: The bucket and key.
    ///   - query: The query parameters.
    ///   - headers: The headers (`x-amz-copy-source` turns a `PUT` into a copy).
    /// - Throws: `NotImplemented` for subresources and operations WIFLocal does not serve, `MethodNotAllowed`
    ///   for a method that makes no sense on the resource, `InvalidArgument` for a bad `list-type`.
    static func route(
        method: HTTPRequest.Method, address: S3Address, query: S3Query, headers: HTTPFields
    ) throws(AWSErrorResponse) -> S3Operation {
        if let name = query.parameters.first(where: { Self.unsupportedSubresources.contains($0.name) })?.name {
            throw S3Errors.notImplemented("The '\(name)' subresource (\(method.rawValue) ?\(name))")
        }
        if let version = query["versionId"], version != "null" {
            throw S3Errors.notImplemented("Versioning (versionId=\(version))")
        }
        guard address.bucket != nil else {
            guard method == .get else { throw S3Errors.methodNotAllowed(method.rawValue, resource: "SERVICE") }
            return .listBuckets
        }
        let copySource = headers.value(of: HTTPField.Name("x-amz-copy-source")!) != nil
        guard address.key != nil else {
            switch method {
            case .get:
                if query.has("location") { return .getBucketLocation }
                if query.has("uploads") { return .listMultipartUploads }
                if let listType = query["list-type"] {
                    guard listType == "2" else {
                        throw S3Errors.invalidArgument("Invalid List Type specified", name: "list-type", value: listType)
                    }
                    return .listObjectsV2
                }
                return .listObjects
            case .head: return .headBucket
            case .put: return .createBucket
            case .delete: return .deleteBucket
            case .post:
                if query.has("delete") { return .deleteObjects }
                throw S3Errors.notImplemented("POST to a bucket without ?delete (browser-based uploads)")
            default:
                throw S3Errors.methodNotAllowed(method.rawValue, resource: "BUCKET")
            }
        }
        switch method {
        case .get:
            return query.has("uploadId") ? .listParts : .getObject
        case .head:
            return .headObject
        case .put:
            if query.has("partNumber") || query.has("uploadId") {
                return copySource ? .uploadPartCopy : .uploadPart
            }
            return copySource ? .copyObject : .putObject
        case .post:
            if query.has("uploads") { return .createMultipartUpload }
            if query.has("uploadId") { return .completeMultipartUpload }
            throw S3Errors.methodNotAllowed(method.rawValue, resource: "OBJECT")
        case .delete:
            return query.has("uploadId") ? .abortMultipartUpload : .deleteObject
        default:
            throw S3Errors.methodNotAllowed(method.rawValue, resource: "OBJECT")
        }
    }

    /// The resource ARN the operation is authorized against.
    static func resourceARN(bucket: String?, key: String?, scope: Scope, partition: String = "aws") -> String {
        switch scope {
        case .service: "arn:\(partition):s3:::*"
        case .bucket: "arn:\(partition):s3:::\(bucket ?? "")"
        case .object: "arn:\(partition):s3:::\(bucket ?? "")/\(key ?? "")"
        }
    }
}
