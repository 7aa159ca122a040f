import Foundation

/// The claims of an ID token whose signature, issuer, audience, expiry and nonce were checked by
/// ``IDTokenVerifier``. Holds no token.
public struct VerifiedIDToken: Sendable, Hashable, CustomStringConvertible {
    /// `iss`.
    public var issuer: String
    /// `sub`: who signed in.
    public var subject: String
    /// `aud`.
    public var audience: [String]
    /// `azp`, when present.
    public var authorizedParty: String?
    /// `exp`.
    public var expiresAt: Date
    /// `iat`.
    public var issuedAt: Date
    /// `auth_time`, when present.
    public var authenticatedAt: Date?
    /// `nonce`, when present.
    public var nonce: String?
    /// `email`, when present.
    public var email: String?
    /// The `kid` of the key that signed the token, when the header named one.
    public var keyId: String?
    /// The signature algorithm.
    public var algorithm: String

    /// Creates verified claims.
    /// - Parameters:
    ///   - issuer: `iss`.
    ///   - subject: `sub`.
    ///   - audience: `aud`.
    ///   - authorizedParty: `azp`.
    ///   - expiresAt: `exp`.
    ///   - issuedAt: `iat`.
    ///   - authenticatedAt: `auth_time`.
    ///   - nonce: `nonce`.
    ///   - email: `email`.
    ///   - keyId: The header's `kid`.
    ///   - algorithm: The header's `alg`.
    public init(
        issuer: String,
        subject: String,
        audience: [String],
        authorizedParty: String? = nil,
        expiresAt: Date,
        issuedAt: Date,
        authenticatedAt: Date? = nil,
        nonce: String? = nil,
        email: String? = nil,
        keyId: String? = nil,
        algorithm: String
    ) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.authorizedParty = authorizedParty
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.authenticatedAt = authenticatedAt
        self.nonce = nonce
        self.email = email
        self.keyId = keyId
        self.algorithm = algorithm
    }

    /// Issuer, subject, audience and expiry.
    public var description: String {
        "VerifiedIDToken(iss: \(self.issuer), sub: \(self.subject), aud: \(self.audience.joined(separator: ",")), exp: \(self.expiresAt.formatted(.iso8601)))"
    }
}
