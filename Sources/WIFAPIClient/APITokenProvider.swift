public import WIFCredentials

/// Where tokens for `AMAZON_COGNITO_USER_POOLS`, `OPENID_CONNECT` and `AWS_LAMBDA` come from: the Swift
/// form of Amplify's `AmplifyOIDCAuthProvider` and function token providers.
public protocol APITokenProvider: Sendable {
    /// A token that is still valid, renewed when it is about to expire.
    func latestToken() async throws -> String
}

/// A token that does not change, such as one a test or a script was given.
public struct StaticAPIToken: APITokenProvider, CustomStringConvertible {
    let token: String

    /// Creates a provider of one token.
    /// - Parameter token: The token.
    public init(_ token: String) {
        self.token = token
    }

    public func latestToken() async throws -> String { self.token }

    /// Never the token.
    public var description: String { "StaticAPIToken(<redacted>)" }
}

/// A token provider over a web-identity token source, which renews the token before it expires.
public struct WebIdentityAPITokenProvider: APITokenProvider {
    let source: any WebIdentityTokenSource

    /// Creates a provider.
    /// - Parameter source: The token source.
    public init(_ source: any WebIdentityTokenSource) {
        self.source = source
    }

    public func latestToken() async throws -> String {
        try await self.source.token(forceRefresh: false, logger: .noop).value
    }
}

/// A token provider over an OAuth 2.0 / OpenID Connect sign-in: its access token (what AppSync and API
/// Gateway expect of a user pool by default) or its ID token, renewed with the refresh token before the
/// ID token's refresh window, as ``OIDCTokenSource`` renews.
///
/// ```swift
/// let source = OIDCTokenSource(client: client, tokens: signedIn)
/// let credentials = APIClientCredentials(userPoolTokens: OAuthAPITokenProvider(source, sending: .accessToken))
/// ```
public struct OAuthAPITokenProvider: APITokenProvider, CustomStringConvertible {
    /// Which of the sign-in's tokens a request carries.
    public enum Token: Sendable, Hashable {
        /// The access token.
        case accessToken
        /// The ID token.
        case idToken
    }

    let source: OIDCTokenSource
    /// The token sent.
    public let token: Token

    /// Creates a provider.
    /// - Parameters:
    ///   - source: The sign-in.
    ///   - token: Which token to send.
    public init(_ source: OIDCTokenSource, sending token: Token = .accessToken) {
        self.source = source
        self.token = token
    }

    public func latestToken() async throws -> String {
        switch self.token {
        case .accessToken: return try await self.source.accessToken()
        case .idToken: return try await self.source.tokens().idToken
        }
    }

    /// Never a token.
    public var description: String { "OAuthAPITokenProvider(\(self.token))" }
}
