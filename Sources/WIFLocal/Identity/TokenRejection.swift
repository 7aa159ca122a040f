import Foundation

/// The errors STS answers when it refuses a web-identity token, with AWS's codes and, where AWS's wording
/// is known, its messages. No message ever contains the token; values quoted from a token (an issuer, an
/// algorithm) are shortened.
enum TokenRejection {
    /// `ValidationError`: the token is shorter than 4 or longer than 20,000 characters.
    static func length(_ count: Int) -> AWSErrorResponse {
        let constraint =
            count < TokenVerifier.minimumTokenLength
            ? "Member must have length greater than or equal to \(TokenVerifier.minimumTokenLength)"
            : "Member must have length less than or equal to \(TokenVerifier.maximumTokenLength)"
        return AWSErrorResponse("ValidationError", "1 validation error detected: Value at 'webIdentityToken' failed to satisfy constraint: \(constraint)")
    }

    /// `InvalidParameterValue`: a `ProviderId` other than the two OAuth 2.0 providers.
    static func unsupportedProviderId(_ providerId: String) -> AWSErrorResponse {
        AWSErrorResponse(
            "InvalidParameterValue",
            "ProviderId \(Self.quote(providerId)) is not supported: use graph.facebook.com or www.amazon.com for OAuth 2.0 access tokens, and no ProviderId for OpenID Connect ID tokens"
        )
    }

    /// `InvalidIdentityToken`: the token is not a compact JWS with JSON header and claims.
    static func malformed(_ reason: String) -> AWSErrorResponse {
        AWSErrorResponse("InvalidIdentityToken", "The ID Token provided is not a valid JWT (\(reason)). You may see this error if you sent an access token without its ProviderId.")
    }

    /// `InvalidIdentityToken`: `alg` is `none`, an HMAC algorithm or another the issuer does not sign with.
    static func unsupportedAlgorithm(_ algorithm: String) -> AWSErrorResponse {
        AWSErrorResponse(
            "InvalidIdentityToken",
            "The token's signing algorithm \(Self.quote(algorithm)) is not accepted; ID tokens must be signed with RS256, RS384, RS512, ES256, ES384 or ES512"
        )
    }

    /// `InvalidIdentityToken`: the header lists critical extensions, none of which are understood.
    static var criticalHeader: AWSErrorResponse {
        AWSErrorResponse("InvalidIdentityToken", "The token's header lists critical extensions (crit), which are not supported")
    }

    /// `InvalidIdentityToken`: a required claim is absent or of the wrong type.
    static func missingClaim(_ name: String) -> AWSErrorResponse {
        AWSErrorResponse("InvalidIdentityToken", "Missing a required claim: \(name)")
    }

    /// `InvalidIdentityToken`: a claim has the wrong type.
    static func invalidClaim(_ name: String, _ expected: String) -> AWSErrorResponse {
        AWSErrorResponse("InvalidIdentityToken", "The token's \(name) claim must be \(expected)")
    }

    /// `InvalidIdentityToken`: no provider profile or external issuer has the token's `iss`.
    static func unknownIssuer(_ issuer: String) -> AWSErrorResponse {
        AWSErrorResponse("InvalidIdentityToken", "No OpenIDConnect provider found in your account for \(Self.sanitized(issuer, limit: 256))")
    }

    /// `InvalidIdentityToken`: the issuer's keys could not be loaded.
    static var keysUnavailable: AWSErrorResponse {
        AWSErrorResponse(
            "InvalidIdentityToken",
            "Couldn't retrieve verification key from your identity provider,  please reference AssumeRoleWithWebIdentity documentation for requirements"
        )
    }

    /// `InvalidIdentityToken`: the issuer has no key with the token's `kid` (or the token has none and the
    /// issuer several).
    static func unknownKey(issuer: String, hasKeyId: Bool) -> AWSErrorResponse {
        AWSErrorResponse(
            "InvalidIdentityToken",
            hasKeyId
                ? "The token's kid names no signing key of \(Self.quote(issuer, limit: 256))"
                : "The token has no kid and \(Self.quote(issuer, limit: 256)) has several signing keys"
        )
    }

    /// `InvalidIdentityToken`: the signature does not verify with the issuer's key.
    static func badSignature(issuer: String) -> AWSErrorResponse {
        AWSErrorResponse("InvalidIdentityToken", "The token's signature could not be verified with the keys of \(Self.quote(issuer, limit: 256))")
    }

    /// `ExpiredTokenException`: `exp` has passed, beyond the leeway.
    static func expired(now: Int64, expiration: Int64) -> AWSErrorResponse {
        AWSErrorResponse("ExpiredTokenException", "Token expired: current date/time \(now) must be before the expiration date/time \(expiration)")
    }

    /// `InvalidIdentityToken`: `nbf` is later than now, beyond the leeway.
    static func notYetValid(now: Int64, notBefore: Int64) -> AWSErrorResponse {
        AWSErrorResponse("InvalidIdentityToken", "Token not yet valid: current date/time \(now) must not be before the not-before date/time \(notBefore)")
    }

    /// `InvalidIdentityToken`: `iat` is later than now, beyond the leeway.
    static func issuedInFuture(now: Int64, issuedAt: Int64) -> AWSErrorResponse {
        AWSErrorResponse("InvalidIdentityToken", "Token issued in the future: current date/time \(now) must not be before the issued-at date/time \(issuedAt)")
    }

    /// `InvalidIdentityToken`: no `aud` value (nor, for Google, `azp`) is a client id of the issuer.
    static var incorrectAudience: AWSErrorResponse {
        AWSErrorResponse("InvalidIdentityToken", "Incorrect token audience")
    }

    /// `InvalidIdentityToken`: an OAuth 2.0 provider that the configuration does not simulate.
    static func providerNotConfigured(_ providerId: String) -> AWSErrorResponse {
        AWSErrorResponse("InvalidIdentityToken", "No identity provider profile for \(providerId) is configured")
    }

    /// `IDPRejectedClaim`: the provider does not recognise the access token (altered, forged, or another
    /// provider's).
    static func accessTokenRejected(_ providerId: String) -> AWSErrorResponse {
        AWSErrorResponse("IDPRejectedClaim", "The identity provider \(providerId) rejected the access token: it is not a valid \(providerId) access token")
    }

    /// `IDPRejectedClaim`: the access token belongs to an app that is not a client id of the provider.
    static func accessTokenForOtherApp(_ providerId: String, appId: String) -> AWSErrorResponse {
        AWSErrorResponse(
            "IDPRejectedClaim",
            "The identity provider \(providerId) reports that the access token was issued to app \(Self.quote(appId)), which is not a client id of its profile"
        )
    }

    /// `text` in single quotes, shortened to `limit` characters and without control characters.
    static func quote(_ text: String, limit: Int = 64) -> String {
        "'\(Self.sanitized(text, limit: limit))'"
    }

    /// `text` shortened to `limit` characters, with control characters shown as `?`.
    static func sanitized(_ text: String, limit: Int) -> String {
        var shown = String(text.unicodeScalars.prefix(limit).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        if text.unicodeScalars.count > limit { shown += "…" }
        return shown
    }
}
