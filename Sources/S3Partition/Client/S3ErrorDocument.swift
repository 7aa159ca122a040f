import NIOHTTP1
import WIFFoundation

/// Turns an S3 error answer into an ``S3Error``.
///
/// S3 answers `<Error><Code>…</Code><Message>…</Message><RequestId>…</RequestId><HostId>…</HostId></Error>`;
/// some S3-compatible servers wrap it (`<ErrorResponse><Error>…` or `<ErrorResponse><Errors><Error>…`).
/// HEAD answers have no body, and proxies answer HTML: then the code comes from the status.
///
/// Package access: the engine set-up reads the status of IAM answers without a document the same way.
package enum S3ErrorDocument {
    /// The longest error body read; S3's are under 1 KB.
    static let maximumBytes = 64 * 1024

    /// Builds the error for an answer.
    /// - Parameters:
    ///   - status: The HTTP status.
    ///   - headers: The answer's headers (for `x-amz-request-id`, `x-amz-id-2`, `x-amz-bucket-region`).
    ///   - body: The body, possibly empty.
    ///   - bucket: The request's bucket.
    ///   - key: The request's key; a `404` without a document is ``S3Error/Code/noSuchKey`` when set.
    /// - Returns: The error.
    static func error(status: Int, headers: HTTPHeaders, body: [UInt8], bucket: String?, key: String?) -> S3Error {
        var code: String?
        var message: String?
        var requestId = headers.first(name: "x-amz-request-id")
        var hostId = headers.first(name: "x-amz-id-2")
        if !body.isEmpty, let root = try? XMLReader.parse(body), let error = root.first("Error") {
            code = error.text("Code").flatMap { $0.isEmpty ? nil : $0 }
            message = error.text("Message")
            if let id = error.text("RequestId") ?? root.text("RequestId"), !id.isEmpty { requestId = id }
            if let id = error.text("HostId"), !id.isEmpty { hostId = id }
        }
        let resolvedCode = code.map(S3Error.Code.init) ?? Self.code(forStatus: status, isObject: key != nil)
        var text = message ?? ""
        if text.isEmpty {
            // Some S3-compatible servers (Ceph RGW) send the code with an empty Message.
            text = code == nil ? "S3 answered HTTP \(status) without an error document" : Self.meaning(of: resolvedCode) ?? "S3 answered HTTP \(status)"
        }
        if resolvedCode == .permanentRedirect || status == 301, let region = headers.first(name: "x-amz-bucket-region") {
            text += " (the bucket is in region \(region))"
        }
        return S3Error(
            code: resolvedCode, message: text, httpStatus: status, requestId: requestId, hostId: hostId, bucket: bucket,
            key: key)
    }

    /// What a common code means, for answers whose `Message` is empty.
    static func meaning(of code: S3Error.Code) -> String? {
        switch code {
        case .accessDenied: return "access denied (the service gave no message; the credentials' policies do not allow this request)"
        case .noSuchKey: return "the object does not exist (the service gave no message)"
        case .noSuchBucket: return "the bucket does not exist (the service gave no message)"
        case .signatureDoesNotMatch: return "the signature does not match (the service gave no message)"
        case .invalidAccessKeyId: return "the access key is unknown to the service (the service gave no message)"
        default: return nil
        }
    }

    /// The code for an answer without an error document.
    /// - Parameters:
    ///   - status: The HTTP status.
    ///   - isObject: Whether the request was about one object (a `404` is then `NoSuchKey`).
    /// - Returns: The code.
    package static func code(forStatus status: Int, isObject: Bool) -> S3Error.Code {
        switch status {
        case 301: return .permanentRedirect
        case 400: return S3Error.Code("BadRequest")
        case 403: return .accessDenied
        case 404: return isObject ? .noSuchKey : .notFound
        case 405: return S3Error.Code("MethodNotAllowed")
        case 409: return S3Error.Code("Conflict")
        case 412: return .preconditionFailed
        case 416: return .invalidRange
        case 429: return S3Error.Code("TooManyRequests")
        case 500: return .internalError
        case 503: return .serviceUnavailable
        default: return S3Error.Code("HTTP\(status)")
        }
    }
}
