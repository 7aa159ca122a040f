import Foundation

/// What a sign-in or a refresh yields: an ID token (what STS accepts), an access token, and usually a
/// refresh token to renew them.
///
/// `Codable` so a store can keep them. None of the tokens ever appears in `description` or
/// `debugDescription`; only the subject, expiry and scope do.
public struct OAuth2Tokens: Codable, Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The OpenID Connect ID token (a signed JWT), verified when it was received. Never printed.
    public var idToken: String
    /// The access token. Never printed.
    public var accessToken: String
    /// The refresh token, when the issuer granted offline access. Never printed.
    public var refreshToken: String?
    /// The access token's type, normally `Bearer`.
    public var tokenType: String
    /// The ID token's `exp`.
    public var idTokenExpiresAt: Date
    /// The ID token's `iat`, when known.
    public var idTokenIssuedAt: Date?
    /// When the access token expires (`expires_in` after receipt), when the issuer said.
    public var accessTokenExpiresAt: Date?
    /// When the access token was received, when known: a refresh may renew it without a new ID token,
    /// so its lifetime is not the ID token's.
    public var accessTokenIssuedAt: Date?
    /// The granted scopes, space-separated as the issuer sent them; `nil` when it did not say.
    public var scope: String?
    /// The ID token's `iss`.
    public var issuer: String?
    /// The ID token's `sub`: who signed in.
    public var subject: String?

    /// Creates tokens.
    /// - Parameters:
    ///   - idToken: The ID token.
    ///   - accessToken: The access token.
    ///   - refreshToken: The refresh token, if any.
    ///   - tokenType: The access token's type.
    ///   - idTokenExpiresAt: The ID token's expiry.
    ///   - idTokenIssuedAt: The ID token's issue time.
    ///   - accessTokenExpiresAt: The access token's expiry.
    ///   - accessTokenIssuedAt: When the access token was received.
    ///   - scope: The granted scopes, space-separated.
    ///   - issuer: The ID token's issuer.
    ///   - subject: The ID token's subject.
    public init(
        idToken: String,
        accessToken: String,
        refreshToken: String? = nil,
        tokenType: String = "Bearer",
        idTokenExpiresAt: Date,
        idTokenIssuedAt: Date? = nil,
        accessTokenExpiresAt: Date? = nil,
        accessTokenIssuedAt: Date? = nil,
        scope: String? = nil,
        issuer: String? = nil,
        subject: String? = nil
    ) {
        self.idToken = idToken
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.tokenType = tokenType
        self.idTokenExpiresAt = idTokenExpiresAt
        self.idTokenIssuedAt = idTokenIssuedAt
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.accessTokenIssuedAt = accessTokenIssuedAt
        self.scope = scope
        self.issuer = issuer
        self.subject = subject
    }

    /// The granted scopes as a list.
    public var scopes: [String] {
        (self.scope ?? "").split(separator: " ").map(String.init)
    }

    /// The ID token as a web-identity token for STS, with its expiry.
    public var webIdentityToken: WebIdentityToken {
        WebIdentityToken(value: self.idToken, expiration: self.idTokenExpiresAt)
    }

    /// Whether the ID token has expired at `date`.
    /// - Parameter date: The moment to judge against.
    /// - Returns: `true` when `idTokenExpiresAt` is not after `date`.
    public func isIDTokenExpired(at date: Date) -> Bool {
        self.idTokenExpiresAt <= date
    }

    /// Subject, issuer, expiry and scope; every token as `<redacted>`.
    public var description: String {
        var parts: [String] = []
        if let subject { parts.append("subject: \(subject)") }
        if let issuer { parts.append("issuer: \(issuer)") }
        parts.append("idToken: <redacted>, expires \(self.idTokenExpiresAt.formatted(.iso8601))")
        parts.append("accessToken: <redacted>")
        parts.append("refreshToken: \(self.refreshToken == nil ? "none" : "<redacted>")")
        if let scope { parts.append("scope: \(scope)") }
        return "OAuth2Tokens(\(parts.joined(separator: ", ")))"
    }

    /// The same as ``description``.
    public var debugDescription: String { self.description }
}

extension OAuth2Tokens: CustomReflectable {
    /// No children: `dump` and `Mirror(reflecting:)` would otherwise list the stored secrets that
    /// ``description`` leaves out.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
