import Foundation

/// A browser sign-in in progress: the URL to open and what the redirect and the ID token must match.
///
/// Created by ``OAuth2Client/authorizationRequest(redirectURI:loginHint:logger:)`` and completed by
/// ``OAuth2Client/completeAuthorization(_:callbackParameters:logger:)``. Keep it private to the
/// sign-in: its PKCE verifier is what turns the code into tokens.
public struct OAuth2AuthorizationRequest: Sendable, Hashable, CustomStringConvertible {
    /// The authorization URL to open in the user's browser.
    public let url: URL
    /// The redirect URI sent, which the token request repeats.
    public let redirectURI: String
    /// The `state` the redirect must return.
    public let state: String
    /// The `nonce` the ID token must carry.
    public let nonce: String
    /// The PKCE pair; the challenge went in ``url``, the verifier goes to the token endpoint.
    public let pkce: OAuth2PKCE
    /// The issuer identifier a redirect's `iss` parameter must equal, when it has one (RFC 9207).
    public let issuer: String

    /// Creates a request record.
    /// - Parameters:
    ///   - url: The authorization URL.
    ///   - redirectURI: The redirect URI.
    ///   - state: The state value.
    ///   - nonce: The nonce value.
    ///   - pkce: The PKCE pair.
    ///   - issuer: The expected issuer identifier.
    public init(url: URL, redirectURI: String, state: String, nonce: String, pkce: OAuth2PKCE, issuer: String) {
        self.url = url
        self.redirectURI = redirectURI
        self.state = state
        self.nonce = nonce
        self.pkce = pkce
        self.issuer = issuer
    }

    /// The authorization endpoint and the redirect URI; not the state, nonce or verifier.
    public var description: String {
        let endpoint = "\(self.url.scheme ?? "https")://\(self.url.host ?? "")\(self.url.port.map { ":\($0)" } ?? "")\(self.url.path)"
        return "OAuth2AuthorizationRequest(endpoint: \(endpoint), redirectURI: \(self.redirectURI))"
    }
}

/// Reads `application/x-www-form-urlencoded` text, as in a redirect's query.
enum OAuth2FormDecoding {
    /// The parameters of a query string.
    /// - Returns: The parameters, or `nil` when one is repeated (RFC 6749 §3.1: parameters must not be
    ///   included more than once) or badly percent-encoded.
    static func parameters(_ query: Substring) -> [String: String]? {
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]) else { return nil }
            guard let value = Self.decode(parts.count > 1 ? parts[1] : "") else { return nil }
            guard result[name] == nil else { return nil }
            result[name] = value
        }
        return result
    }

    /// The parameters of a URL's query.
    static func parameters(of url: URL) -> [String: String]? {
        guard let query = url.query(percentEncoded: true) else { return [:] }
        return Self.parameters(Substring(query))
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
