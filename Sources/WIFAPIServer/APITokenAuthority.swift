public import AccessRules
public import Foundation
import Logging
public import WIFCredentials

/// An issuer whose JSON Web Tokens an API accepts: a Cognito user pool (ID and access tokens) or another
/// OpenID Connect provider (ID tokens).
public struct APITokenAuthority: Sendable {
    /// What kind of tokens, which fixes the claims checked.
    public enum Kind: Sendable, Hashable {
        /// A Cognito user pool: `token_use` must be `id` (then `aud` is a client id) or `access` (then
        /// `client_id` is), and the caller's groups are `cognito:groups`.
        case userPool
        /// Another OpenID Connect provider: `aud` must include a client id, when any are configured.
        case oidc
    }

    /// The kind.
    public var kind: Kind
    /// The `iss` of the tokens, exactly.
    public var issuer: String
    /// The accepted app client ids; for OIDC an empty list accepts any audience, as AppSync does when no
    /// client id is set.
    public var clientIds: Set<String>
    /// How far clocks may disagree when judging `exp`, `nbf` and `iat`.
    public var leeway: Duration
    /// The longest an OIDC token may have been issued ago (AppSync's `iatTTL`); `nil` for no limit.
    public var issuedAtLimit: Duration?

    let keys: IDTokenKeyCache
    /// Tokens already verified.
    let verified = VerifiedTokenCache()

    /// An authority whose keys are fetched by `loadJWKS` on first use, and again (at most once a minute)
    /// when a token names a key it lacks.
    /// - Parameters:
    ///   - kind: User pool or OIDC.
    ///   - issuer: The tokens' `iss`.
    ///   - clientIds: The accepted client ids.
    ///   - leeway: Allowed clock disagreement; one minute by default.
    ///   - issuedAtLimit: The longest since `iat`, for OIDC.
    ///   - timeSource: The clock judging times.
    ///   - loadJWKS: Returns the issuer's JWKS document.
    public init(
        kind: Kind, issuer: String, clientIds: Set<String>, leeway: Duration = .seconds(60), issuedAtLimit: Duration? = nil,
        timeSource: TimeSource = .system, loadJWKS: @escaping @Sendable () async throws -> [UInt8]
    ) {
        self.kind = kind
        self.issuer = issuer
        self.clientIds = clientIds
        self.leeway = leeway
        self.issuedAtLimit = issuedAtLimit
        self.keys = IDTokenKeyCache(source: "the JWKS of \(issuer)", timeSource: timeSource, load: { _ in try await loadJWKS() })
        self.timeSource = timeSource
    }

    /// An authority with a fixed key set.
    /// - Parameters:
    ///   - kind: User pool or OIDC.
    ///   - issuer: The tokens' `iss`.
    ///   - clientIds: The accepted client ids.
    ///   - jwks: The issuer's JWKS document.
    ///   - timeSource: The clock judging times.
    public init(kind: Kind, issuer: String, clientIds: Set<String>, jwks: [UInt8], timeSource: TimeSource = .system) {
        self.init(kind: kind, issuer: issuer, clientIds: clientIds, timeSource: timeSource, loadJWKS: { jwks })
    }

    let timeSource: TimeSource

    /// The mode tokens of this authority are sent in.
    public var mode: APIAuthorizationMode {
        self.kind == .userPool ? .userPools : .oidc
    }
}
