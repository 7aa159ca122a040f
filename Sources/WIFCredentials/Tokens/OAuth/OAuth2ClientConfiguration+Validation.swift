import Foundation

extension OAuth2ClientConfiguration {
    /// The longest client id accepted.
    static let maximumClientIdLength = 512

    /// Checks the configuration before anything is sent.
    ///
    /// - The client id is 1–512 printable ASCII characters; a secret, when given, is not empty, and a
    ///   secret-based authentication method has one.
    /// - The scopes include `openid` and each is a scope token (RFC 6749 §3.3: printable ASCII without
    ///   space, `"` or `\`).
    /// - There is somewhere to learn the endpoints: a discovery URL, an issuer, or explicit token and JWKS
    ///   endpoints with an issuer to expect in ID tokens.
    /// - Every URL is `https`, or `http` on a loopback host (127.0.0.1, ::1, localhost), without a fragment.
    /// - A redirect URI is `http` on 127.0.0.1 or [::1] (RFC 8252 §7.3 and §8.3) without a fragment.
    /// - Throws: ``WIFCredentialsError`` with code `invalidConfiguration` naming the setting and the rule.
    public func validate() throws(WIFCredentialsError) {
        let idLength = self.clientId.utf8.count
        if idLength == 0 || idLength > Self.maximumClientIdLength {
            throw .invalidConfiguration(
                "OAuth2ClientConfiguration.clientId is \(idLength) bytes; it must be 1–\(Self.maximumClientIdLength)")
        }
        if !self.clientId.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) {
            throw .invalidConfiguration("OAuth2ClientConfiguration.clientId must be printable ASCII (RFC 6749 Appendix A.1)")
        }
        if let clientSecret, clientSecret.isEmpty {
            throw .invalidConfiguration("OAuth2ClientConfiguration.clientSecret is empty; leave it nil for a public client")
        }
        switch self.effectiveClientAuthentication.base {
        case .clientSecretBasic, .clientSecretPost:
            if self.clientSecret == nil {
                throw .invalidConfiguration(
                    "OAuth2ClientConfiguration.clientAuthentication is \(self.effectiveClientAuthentication) but there is no clientSecret")
            }
        case .none:
            if self.clientSecret != nil {
                throw .invalidConfiguration(
                    "OAuth2ClientConfiguration.clientAuthentication is none, which never sends the clientSecret; remove the secret or choose client_secret_basic or client_secret_post")
            }
        }

        if !self.scopes.contains("openid") {
            throw .invalidConfiguration(
                "OAuth2ClientConfiguration.scopes (\(self.scopes.joined(separator: " "))) must include 'openid': the ID token is what STS accepts")
        }
        for scope in self.scopes where !Self.isScopeToken(scope) {
            throw .invalidConfiguration(
                "OAuth2ClientConfiguration.scopes has '\(scope.prefix(64))', which is not a scope token (printable ASCII without spaces, quotes or backslashes)")
        }

        if let issuer {
            guard let url = URL(string: issuer), url.query == nil, url.fragment == nil else {
                throw .invalidConfiguration(
                    "OAuth2ClientConfiguration.issuer '\(issuer.prefix(200))' is not a URL without query or fragment (OpenID Connect Discovery §2)")
            }
            try Self.checkEndpoint(url, name: "issuer")
        }
        if let discoveryURL { try Self.checkEndpoint(discoveryURL, name: "discoveryURL") }
        let named: [(String, URL?)] = [
            ("endpoints.authorization", self.endpoints.authorization), ("endpoints.token", self.endpoints.token),
            ("endpoints.deviceAuthorization", self.endpoints.deviceAuthorization),
            ("endpoints.revocation", self.endpoints.revocation), ("endpoints.jwks", self.endpoints.jwks),
        ]
        for (name, url) in named {
            if let url { try Self.checkEndpoint(url, name: name) }
        }
        if self.effectiveDiscoveryURL == nil {
            if self.endpoints.token == nil || self.endpoints.jwks == nil || self.issuer == nil {
                throw .invalidConfiguration(
                    "OAuth2ClientConfiguration needs an issuer or a discoveryURL, or explicit endpoints.token and endpoints.jwks together with the issuer to expect in ID tokens")
            }
        }
        if let redirectURI { _ = try Self.loopbackRedirect(redirectURI) }
    }

    /// The host to bind and the port and path of a loopback redirect URI.
    /// - Throws: `invalidConfiguration` unless the URI is `http` on 127.0.0.1 or [::1] without fragment.
    static func loopbackRedirect(_ uri: URL) throws(WIFCredentialsError) -> (bindHost: String, port: Int, path: String) {
        let text = uri.absoluteString
        guard uri.scheme?.lowercased() == "http", let host = uri.host, uri.fragment == nil else {
            throw .invalidConfiguration(
                "OAuth2ClientConfiguration.redirectURI '\(text.prefix(200))' must be an http loopback URI without fragment, such as http://127.0.0.1/callback (RFC 8252 §7.3)")
        }
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        guard bare == "127.0.0.1" || bare == "::1" else {
            throw .invalidConfiguration(
                "OAuth2ClientConfiguration.redirectURI '\(text.prefix(200))' must use the loopback address 127.0.0.1 or [::1]; a host name such as localhost can resolve elsewhere (RFC 8252 §8.3)")
        }
        let port = uri.port ?? 0
        guard (0...65535).contains(port) else {
            throw .invalidConfiguration("OAuth2ClientConfiguration.redirectURI has port \(port), outside 0–65535")
        }
        let path = uri.path.isEmpty ? "/" : uri.path
        return (bare, port, path)
    }

    /// Whether `url` is https, or http on a loopback host, with a host and no fragment.
    static func checkEndpoint(_ url: URL, name: String) throws(WIFCredentialsError) {
        let text = url.absoluteString.prefix(200)
        guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw .invalidConfiguration("OAuth2ClientConfiguration.\(name) '\(text)' is not an absolute URL with a host")
        }
        if url.fragment != nil {
            throw .invalidConfiguration("OAuth2ClientConfiguration.\(name) '\(text)' must not have a fragment")
        }
        switch scheme {
        case "https":
            return
        case "http" where Self.isLoopback(host):
            return
        case "http":
            throw .invalidConfiguration(
                "OAuth2ClientConfiguration.\(name) '\(text)' uses http on a host that is not loopback; tokens and secrets need https")
        default:
            throw .invalidConfiguration("OAuth2ClientConfiguration.\(name) '\(text)' must be an https URL")
        }
    }

    /// Whether a host names this machine: 127.0.0.0/8, ::1 or localhost.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" || bare.hasSuffix(".localhost") { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Whether `scope` is a scope token: `1*( %x21 / %x23-5B / %x5D-7E )`.
    static func isScopeToken(_ scope: String) -> Bool {
        !scope.isEmpty
            && scope.unicodeScalars.allSatisfy { scalar in
                let value = scalar.value
                return value == 0x21 || (0x23...0x5B).contains(value) || (0x5D...0x7E).contains(value)
            }
    }
}
