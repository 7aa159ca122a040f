import Foundation
import S3Partition
import Testing

@testable import WIFEngines

/// What a SeaweedFS set-up says when SeaweedFS does not create the bucket.
@Suite("SeaweedFS set-up errors")
struct SeaweedFSSetupTests {
    static let endpoint = URL(string: "http://127.0.0.1:8333")!

    static func refusal(_ code: String, status: Int = 403, message: String = "no") -> EngineSetupError {
        SeaweedFSSetup.bucketError(
            S3Error(code: S3Error.Code(code), message: message, httpStatus: status, requestId: "18EA"), bucket: "wif-personal",
            endpoint: Self.endpoint)
    }

    @Test(arguments: [
        ("SignatureDoesNotMatch", EngineSetupError.Code.signatureDoesNotMatch, "refused the admin credentials"),
        ("InvalidAccessKeyId", .invalidAccessKeyId, "refused the admin credentials"),
        ("AccessDenied", .accessDenied, "may not create the bucket 'wif-personal'"),
        ("BucketAlreadyExists", .bucketAlreadyExists, "belongs to another identity"),
        ("InternalError", .internalError, "did not create the bucket 'wif-personal'"),
    ])
    func aRefusalKeepsS3sCodeAndSaysWhatToDo(code: String, expected: EngineSetupError.Code, text: String) {
        let error = Self.refusal(code, status: code == "InternalError" ? 500 : 403)
        #expect(error.code == expected)
        #expect(error.reason.contains(text), "\(error.reason)")
        #expect(error.reason.contains("\(code): no [request id 18EA]"), "\(error.reason)")
        #expect(error.s3Error?.code == S3Error.Code(code))
        #expect(error.requestId == "18EA")
    }

    @Test func anUnreachableSeaweedFSIsANetworkError() {
        let error = SeaweedFSSetup.bucketError(
            S3Error(code: .network, message: "connection refused"), bucket: "wif-personal", endpoint: Self.endpoint)
        #expect(error.code == .network)
        #expect(error.reason == "cannot reach SeaweedFS at http://127.0.0.1:8333 to create the bucket: connection refused")
    }

    @Test func anOtherRefusalNamesItsStatus() {
        #expect(Self.refusal("InternalError", status: 500).reason.hasSuffix("(HTTP 500)"))
    }
}
