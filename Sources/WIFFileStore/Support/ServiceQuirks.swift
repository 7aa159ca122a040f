import AsyncHTTPClient
import Foundation
import Logging
import WIFCredentials
import WIFHTTP

/// Error answers of S3-compatible engines whose codes differ from AWS's for the same situation, so the
/// tool's exit status means the same thing on every engine. Refusals are told apart by their codes and
/// by the token itself, never by an engine's message text, which changes between releases.
package enum ServiceQuirks {
    /// Whether an STS error code alone says that the web-identity token itself was refused: AWS says
    /// `InvalidIdentityToken` or `ExpiredTokenException`; SeaweedFS says `InvalidParameterValue` (a
    /// wrong audience, a malformed token). Every other parameter of `AssumeRoleWithWebIdentity` is
    /// checked against STS's bounds before the request is sent
    /// (``AssumeRoleWithWebIdentityRequest/validate()``), so an invalid parameter value the engine
    /// finds can only be the token. A refused token is exit status 3 (sign in with a fresh or correct
    /// token), not 4 (the role's trust policy) or 7 (a service failure).
    /// - Parameter code: The error's `Code`.
    /// - Returns: Whether the token was refused.
    package static func refusesToken(code: String) -> Bool {
        Self.tokenRefusalCodes.contains(code)
    }

    /// Codes that name a refused token on AWS or on an engine.
    static let tokenRefusalCodes: Set<String> = ["InvalidIdentityToken", "ExpiredTokenException", "ExpiredToken", "InvalidParameterValue"]

    /// Codes that engines give both to a refused token and to a role that does not trust a good one:
    /// SeaweedFS and Ceph RGW answer `AccessDenied` for a token signed by a key its issuer does not
    /// publish and for a trust policy that does not match alike. ``TokenRefusalCheck`` tells them apart.
    static let ambiguousRefusalCodes: Set<String> = ["AccessDenied"]
}

/// Tells a refused token from a refused role when STS's code could mean either: the token is checked
/// against its own issuer, as STS would. An expired token, or one that does not verify against the
/// keys its `iss` publishes (OpenID Connect discovery, then `jwks_uri`), was the token's fault; a token
/// that verifies was refused by the role.
public enum TokenRefusalCheck {
    /// The error that says what was refused.
    /// - Parameters:
    ///   - error: What STS answered.
    ///   - token: The web-identity token that was sent.
    ///   - httpClient: The HTTP client to reach the token's issuer with.
    ///   - now: The time to judge the token's expiry by.
    ///   - logger: Where to log; never the token.
    /// - Returns: `error` itself unless its code is ambiguous and the token fails its issuer's checks;
    ///   then `tokenExpired` or `invalidIDToken` naming STS's code and the failed check. When the issuer
    ///   cannot be reached, `error` itself.
    public static func refine(
        _ error: WIFCredentialsError, token: String, httpClient: HTTPClient, now: Date = Date(), logger: Logger = .noop
    ) async -> WIFCredentialsError {
        guard error.code == .service, let service = error.serviceError, ServiceQuirks.ambiguousRefusalCodes.contains(service.code),
            let claims = UnverifiedJWTClaims(token: token), let issuer = claims.issuer,
            let url = URL(string: issuer), url.scheme == "https" || url.scheme == "http", let audience = claims.audience.first
        else { return error }
        if let expiration = claims.expiration, expiration <= now {
            return .tokenExpired(
                "STS refused the sign-in with \(service.code); the web identity token expired at \(expiration.formatted(.iso8601))")
        }
        do {
            let client = try OAuth2Client(
                configuration: OAuth2ClientConfiguration(issuer: issuer, clientId: audience), timeout: .seconds(5), httpClient: httpClient)
            _ = try await client.idTokenVerifier(logger: logger).verify(token, nonce: nil, logger: logger)
            return error
        } catch let check as WIFCredentialsError where check.code == .invalidIDToken {
            return .invalidIDToken(
                "STS refused the sign-in with \(service.code), and the web identity token does not verify against its issuer's keys: \(check.reason)")
        } catch let failure {
            logger.debug("could not check the refused token against its issuer", metadata: ["wif.refusal.reason": "\(failure)"])
            return error
        }
    }
}
