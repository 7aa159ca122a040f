import HTTPTypes

/// An OAuth 2.0 error answer: an `error` code (RFC 6749 §5.2, RFC 8628 §3.5, OpenID Connect Core §3.1.2.6),
/// an `error_description` that says what was wrong, and the HTTP status of a token-endpoint answer.
///
/// Descriptions never contain a code, token, verifier or secret. Errors are equal when their codes are,
/// so tests can build the error they expect.
struct OAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An `error` value. Open-ended: the registry of OAuth error codes grows.
    struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The value as sent.
        let rawValue: String

        static let invalidRequest = Code(rawValue: "invalid_request")
        static let invalidClient = Code(rawValue: "invalid_client")
        static let invalidGrant = Code(rawValue: "invalid_grant")
        static let unauthorizedClient = Code(rawValue: "unauthorized_client")
        static let unsupportedGrantType = Code(rawValue: "unsupported_grant_type")
        static let invalidScope = Code(rawValue: "invalid_scope")
        static let unsupportedResponseType = Code(rawValue: "unsupported_response_type")
        static let accessDenied = Code(rawValue: "access_denied")
        static let loginRequired = Code(rawValue: "login_required")
        static let authorizationPending = Code(rawValue: "authorization_pending")
        static let slowDown = Code(rawValue: "slow_down")
        static let expiredToken = Code(rawValue: "expired_token")
        static let serverError = Code(rawValue: "server_error")

        var description: String { self.rawValue }
    }

    /// The `error` value.
    var code: Code
    /// The `error_description`: printable ASCII without `"` and `\` (RFC 6749 §5.2).
    var message: String
    /// The status of a token-endpoint answer: 400, 401 for `invalid_client`, 500 for `server_error`.
    var status: HTTPResponse.Status

    init(_ code: Code, _ message: String, status: HTTPResponse.Status? = nil) {
        self.code = code
        self.message = Self.sanitize(message)
        self.status = status ?? (code == .invalidClient ? .unauthorized : code == .serverError ? .internalServerError : .badRequest)
    }

    static func invalidRequest(_ message: String) -> OAuthError { OAuthError(.invalidRequest, message) }
    static func invalidClient(_ message: String) -> OAuthError { OAuthError(.invalidClient, message) }
    static func invalidGrant(_ message: String) -> OAuthError { OAuthError(.invalidGrant, message) }
    static func invalidScope(_ message: String) -> OAuthError { OAuthError(.invalidScope, message) }
    static func serverError(_ message: String) -> OAuthError { OAuthError(.serverError, message) }

    static func == (lhs: OAuthError, rhs: OAuthError) -> Bool { lhs.code == rhs.code }

    var description: String { "\(self.code.rawValue): \(self.message)" }

    /// `{"error":…,"error_description":…}`.
    var json: String {
        #"{"error":"\#(self.code.rawValue)","error_description":"\#(self.message)"}"#
    }

    /// Replaces what `error_description` may not hold (anything outside %x20-21 / %x23-5B / %x5D-7E).
    private static func sanitize(_ message: String) -> String {
        guard message.utf8.contains(where: { $0 < 0x20 || $0 > 0x7E || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            return message
        }
        return String(decoding: message.utf8.map { byte in
            switch byte {
            case UInt8(ascii: "\""): UInt8(ascii: "'")
            case UInt8(ascii: "\\"), 0..<0x20, 0x7F...: UInt8(ascii: "?")
            default: byte
            }
        }, as: UTF8.self)
    }
}
