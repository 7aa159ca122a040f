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

    /// Returns a token to use instead of one STS rejected (`InvalidIdentityToken`,
    /// `ExpiredTokenException`); the caller retries once with it.
    ///
    /// Knowing which token was refused lets a source shared by several callers renew once: when the
    /// refused token is no longer its current one, it returns the current one. The default calls
    /// ``token(forceRefresh:logger:)`` with `forceRefresh: true`.
    /// - Parameters:
    ///   - rejected: The token STS refused.
    ///   - logger: Where to log.
    /// - Returns: A token other than `rejected` when the source can get one.
    /// - Throws: ``WIFCredentialsError`` as ``token(forceRefresh:logger:)`` does.
    func token(replacing rejected: WebIdentityToken, logger: Logger) async throws -> WebIdentityToken
}

extension WebIdentityTokenSource {
    /// Reads the token again, bypassing caches: `token(forceRefresh: true, logger:)`.
    /// - Parameters:
    ///   - rejected: The token STS refused (not needed by sources that simply re-read).
    ///   - logger: Where to log.
    /// - Returns: The token read again.
    /// - Throws: What ``token(forceRefresh:logger:)`` throws.
    public func token(replacing rejected: WebIdentityToken, logger: Logger) async throws -> WebIdentityToken {
        try await self.token(forceRefresh: true, logger: logger)
    }
}

extension WebIdentityToken: CustomReflectable {
    /// No children: `dump` and `Mirror(reflecting:)` would otherwise list the stored secrets that
    /// ``description`` leaves out.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
