import Foundation
import HTTPTypes

/// The S3 errors of the protocol layer (addressing, routing, headers, authorization), in AWS's codes,
/// messages and statuses. Errors about stored objects and buckets come from ``ObjectStoreError``.
enum S3Errors {
    static func invalidURI(_ path: String) -> AWSErrorResponse {
        AWSErrorResponse("InvalidURI", "Couldn't parse the specified URI.", details: [("URI", path)])
    }

    static func notImplemented(_ what: String) -> AWSErrorResponse {
        AWSErrorResponse(
            "NotImplemented", "\(what) is not implemented by WIFLocal.", status: .notImplemented, type: "Receiver")
    }

    static func methodNotAllowed(_ method: String, resource: String) -> AWSErrorResponse {
        AWSErrorResponse(
            "MethodNotAllowed", "The specified method is not allowed against this resource.", status: .methodNotAllowed,
            details: [("Method", method), ("ResourceType", resource)])
    }

    static func invalidRequest(_ message: String) -> AWSErrorResponse {
        AWSErrorResponse("InvalidRequest", message)
    }

    static func invalidArgument(_ message: String, name: String, value: String?) -> AWSErrorResponse {
        var details = [("ArgumentName", name)]
        if let value { details.append(("ArgumentValue", value)) }
        return AWSErrorResponse("InvalidArgument", message, details: details)
    }

    static func missingContentLength() -> AWSErrorResponse {
        AWSErrorResponse("MissingContentLength", "You must provide the Content-Length HTTP header.", status: .lengthRequired)
    }

    static func preconditionFailed(_ condition: String) -> AWSErrorResponse {
        AWSErrorResponse(
            "PreconditionFailed", "At least one of the pre-conditions you specified did not hold", status: .preconditionFailed,
            details: [("Condition", condition)])
    }

    /// A checksum header (or trailer) that is not the base64 of a digest of its algorithm's length: S3
    /// answers `InvalidRequest`.
    static func invalidDigest(_ header: String, value: String) -> AWSErrorResponse {
        AWSErrorResponse("InvalidRequest", "Value for \(header) header is invalid.", details: [(header, value)])
    }

    static func badDigest(_ header: String) -> AWSErrorResponse {
        AWSErrorResponse("BadDigest", "The \(header) you specified did not match the calculated checksum.")
    }

    static func invalidContentSHA256(_ value: String) -> AWSErrorResponse {
        AWSErrorResponse(
            "InvalidArgument", "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER, "
                + "STREAMING-AWS4-HMAC-SHA256-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER or a valid sha256 value.",
            details: [("ArgumentName", "x-amz-content-sha256"), ("ArgumentValue", value)])
    }

    static func incompleteBody() -> AWSErrorResponse {
        AWSErrorResponse("IncompleteBody", "The request body terminated unexpectedly")
    }

    static func invalidChunk(_ reason: String) -> AWSErrorResponse {
        AWSErrorResponse("IncompleteBody", "The aws-chunked request body is malformed: \(reason).")
    }

    static func chunkSignatureMismatch() -> AWSErrorResponse {
        AWSErrorResponse(
            "SignatureDoesNotMatch",
            "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
            status: .forbidden)
    }
}
