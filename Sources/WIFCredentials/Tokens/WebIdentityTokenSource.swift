import Foundation
import Logging

/// A web-identity token: an OIDC ID token (a JWT) or a provider's opaque access token.
///
/// The token's text never appears in `description`.
public struct WebIdentityToken: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The token as sent to STS.
    public var value: String
    /// The token's `exp` claim, read without verification when the token is a JWT.
    public var expiration: Date?

    /// Creates a token.
    /// - Parameters:
    ///   - value: The token text.
    ///   - expiration: When the token expires, if known.
    public init(value: String, expiration: Date? = nil) {
        self.value = value
        self.expiration = expiration
    }

    public var description: String {
        var text = "WebIdentityToken(\(self.value.utf8.count) bytes"
        if let expiration { text += ", expires \(expiration.formatted(.iso8601))" }
        return text + ")"
    }

    public var debugDescription: String { self.description }
}

/// Where a web-identity token comes from: a string, a file re-read when it changes, a closure, or an
/// OAuth2/OIDC sign-in that refreshes itself.
public protocol WebIdentityTokenSource: Sendable {
    /// Returns the token to send to STS.
    /// - Parameters:
    ///   - forceRefresh: `true` after STS rejected the previous token (`InvalidIdentityToken`,
    ///     `ExpiredTokenException`): the source should bypass any cache and re-read or refresh.
    ///   - logger: Where to log.
    /// - Returns: The current token.
    /// - Throws: ``WIFCredentialsError`` with code `tokenUnavailable` or `tokenExpired`.
    func token(forceRefresh: Bool, logger: Logger) async throws -> WebIdentityToken
}
