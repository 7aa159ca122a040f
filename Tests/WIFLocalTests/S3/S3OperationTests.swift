import HTTPTypes
import Testing

@testable import WIFLocal

@Suite("S3 operation routing")
struct S3OperationTests {
    static func route(
        _ method: HTTPRequest.Method, _ path: String, _ query: String? = nil, headers: HTTPFields = HTTPFields()
    ) throws -> S3Operation {
        let address = try S3Address(host: "127.0.0.1:9000", rawPath: path, rule: S3HostRule())
        return try S3Operation.route(method: method, address: address, query: try S3Query(raw: query), headers: headers)
    }

    @Test(
        "methods, paths and subresources map to operations",
        arguments: [
            (HTTPRequest.Method.get, "/", nil, S3Operation.listBuckets),
            (.put, "/b1", nil, .createBucket),
            (.head, "/b1", nil, .headBucket),
            (.delete, "/b1", nil, .deleteBucket),
            (.get, "/b1", "location", .getBucketLocation),
            (.get, "/b1", "list-type=2&prefix=a", .listObjectsV2),
            (.get, "/b1/", "list-type=2", .listObjectsV2),
            (.get, "/b1", "prefix=a&marker=b", .listObjects),
            (.get, "/b1", nil, .listObjects),
            (.get, "/b1", "uploads", .listMultipartUploads),
            (.post, "/b1", "delete", .deleteObjects),
            (.put, "/b1/k", nil, .putObject),
            (.get, "/b1/k", nil, .getObject),
            (.get, "/b1/k", "x-id=GetObject&response-content-type=text%2Fplain", .getObject),
            (.head, "/b1/k", nil, .headObject),
            (.delete, "/b1/k", nil, .deleteObject),
            (.post, "/b1/k", "uploads", .createMultipartUpload),
            (.put, "/b1/k", "partNumber=1&uploadId=u", .uploadPart),
            (.post, "/b1/k", "uploadId=u", .completeMultipartUpload),
            (.delete, "/b1/k", "uploadId=u", .abortMultipartUpload),
            (.get, "/b1/k", "uploadId=u", .listParts),
            (.get, "/b1/k", "versionId=null", .getObject),
        ] as [(HTTPRequest.Method, String, String?, S3Operation)]
    )
    func routing(method: HTTPRequest.Method, path: String, query: String?, operation: S3Operation) throws {
        #expect(try Self.route(method, path, query) == operation)
    }

    @Test("x-amz-copy-source turns a put into a copy")
    func copy() throws {
        var headers = HTTPFields()
        headers[HTTPField.Name("x-amz-copy-source")!] = "/b1/source"
        #expect(try Self.route(.put, "/b1/k", headers: headers) == .copyObject)
        #expect(try Self.route(.put, "/b1/k", "partNumber=2&uploadId=u", headers: headers) == .uploadPartCopy)
    }

    @Test(
        "subresources WIFLocal does not serve are NotImplemented (501), never a plain object request",
        arguments: ["acl", "tagging", "versioning", "policy", "cors", "lifecycle", "versions", "retention", "legal-hold"]
    )
    func unsupported(subresource: String) throws {
        for (method, path) in [(HTTPRequest.Method.get, "/b1"), (.put, "/b1/k"), (.get, "/b1/k")] {
            #expect {
                try Self.route(method, path, subresource)
            } throws: { error in
                guard let error = error as? AWSErrorResponse else { return false }
                return error.code == "NotImplemented" && error.status == .notImplemented && error.message.contains("'\(subresource)'")
            }
        }
    }

    @Test("a version other than null, a bad list-type and senseless methods are refused with S3's codes")
    func refusals() {
        #expect {
            try Self.route(.get, "/b1/k", "versionId=3HL4kqtJlcpXroDTDmjVBH40Nrjfkd")
        } throws: { ($0 as? AWSErrorResponse)?.code == "NotImplemented" }
        #expect {
            try Self.route(.get, "/b1", "list-type=3")
        } throws: { ($0 as? AWSErrorResponse)?.code == "InvalidArgument" }
        #expect {
            try Self.route(.put, "/")
        } throws: { ($0 as? AWSErrorResponse)?.code == "MethodNotAllowed" }
        #expect {
            try Self.route(.post, "/b1/k")
        } throws: { ($0 as? AWSErrorResponse)?.status == .methodNotAllowed }
        #expect {
            try Self.route(.post, "/b1")
        } throws: { ($0 as? AWSErrorResponse)?.code == "NotImplemented" }
    }

    @Test(
        "operations are authorized with the IAM actions S3 documents",
        arguments: [
            (S3Operation.listBuckets, "s3:ListAllMyBuckets", S3Operation.Scope.service),
            (.createBucket, "s3:CreateBucket", .bucket),
            (.headBucket, "s3:ListBucket", .bucket),
            (.deleteBucket, "s3:DeleteBucket", .bucket),
            (.getBucketLocation, "s3:GetBucketLocation", .bucket),
            (.listObjectsV2, "s3:ListBucket", .bucket),
            (.listObjects, "s3:ListBucket", .bucket),
            (.listMultipartUploads, "s3:ListBucketMultipartUploads", .bucket),
            (.deleteObjects, "s3:DeleteObject", .bucket),
            (.putObject, "s3:PutObject", .object),
            (.copyObject, "s3:PutObject", .object),
            (.getObject, "s3:GetObject", .object),
            (.headObject, "s3:GetObject", .object),
            (.deleteObject, "s3:DeleteObject", .object),
            (.createMultipartUpload, "s3:PutObject", .object),
            (.uploadPart, "s3:PutObject", .object),
            (.uploadPartCopy, "s3:PutObject", .object),
            (.completeMultipartUpload, "s3:PutObject", .object),
            (.abortMultipartUpload, "s3:AbortMultipartUpload", .object),
            (.listParts, "s3:ListMultipartUploadParts", .object),
        ] as [(S3Operation, String, S3Operation.Scope)]
    )
    func actions(operation: S3Operation, action: String, scope: S3Operation.Scope) {
        #expect(operation.action == action)
        #expect(operation.scope == scope)
    }

    @Test("resource ARNs follow the operation's scope")
    func resources() {
        #expect(S3Operation.resourceARN(bucket: nil, key: nil, scope: .service) == "arn:aws:s3:::*")
        #expect(S3Operation.resourceARN(bucket: "b1", key: nil, scope: .bucket) == "arn:aws:s3:::b1")
        #expect(S3Operation.resourceARN(bucket: "b1", key: "a/b c", scope: .object) == "arn:aws:s3:::b1/a/b c")
    }
}
