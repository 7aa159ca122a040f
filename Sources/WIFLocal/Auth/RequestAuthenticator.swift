import Hummingbird

/// Who signed a request.
enum Caller: Sendable {
    /// The account administrator's long-term credentials.
    case admin(accessKeyId: String)
    /// A role session issued by the local STS.
    case session(LocalSession)
}

/// A request whose signature was verified.
struct AuthenticatedRequest: Sendable {
    /// Who signed it.
    var caller: Caller
    /// The payload hash the signature covers: a hex SHA-256, `UNSIGNED-PAYLOAD`, or an `aws-chunked`
    /// streaming marker.
    var payloadHash: String
    /// Whether the signature came in the query string (a presigned URL).
    var presigned: Bool
}

// Placeholder until SigV4 verification lands: refuses every request.
struct RequestAuthenticator: Sendable {
    init(state: LocalState) {}

    func authenticate(_ request: Request, service: String) throws(AWSErrorResponse) -> AuthenticatedRequest {
        throw AWSErrorResponse("AccessDenied", "signature verification is not available", status: .forbidden)
    }
}
