/// Error answers of S3-compatible engines whose codes differ from AWS's for the same situation, so the
/// tool's exit status means the same thing on every engine.
package enum ServiceQuirks {
    /// Whether an STS error answer means that the web-identity token itself was refused: AWS says
    /// `InvalidIdentityToken` or `ExpiredTokenException`; SeaweedFS says `InvalidParameterValue` (a
    /// wrong audience, a malformed token) or `AccessDenied` (a signature from a key not in the issuer's
    /// JWKS), with a message about the web identity token. A refused token is exit status 3 (sign in
    /// with a fresh or correct token), not 4 (the role's trust policy) or 7 (a service failure).
    /// - Parameters:
    ///   - code: The error's `Code`.
    ///   - message: The error's `Message`.
    /// - Returns: Whether the token was refused.
    package static func refusesToken(code: String, message: String?) -> Bool {
        switch code {
        case "InvalidIdentityToken", "ExpiredTokenException", "ExpiredToken":
            return true
        case "InvalidParameterValue", "AccessDenied":
            // SeaweedFS: "failed to validate web identity token: …"; not "DurationSeconds must be …".
            return message?.lowercased().contains("web identity token") ?? false
        default:
            return false
        }
    }
}
