import Foundation

/// How to reach one OAuth 2.0 / OpenID Connect issuer and who the client is there.
///
/// Give an issuer (its discovery document is read from `<issuer>/.well-known/openid-configuration`),
/// a discovery URL (when the document is served elsewhere than the issuer identifier says, as by the
/// local stack), or explicit endpoints. Explicit endpoints win over discovered ones.
///
/// ```swift
/// let google = OAuth2ClientConfiguration(
///     issuer: "https://accounts.google.com",
///     clientId: "1234.apps.googleusercontent.com",
///     clientSecret: "…"
/// )
/// let local = OAuth2ClientConfiguration(
///     discoveryURL: URL(string: "http://127.0.0.1:4566/.well-known/openid-configuration"),
///     clientId: "wif-local"
/// )
/// ```
///
/// The configuration is `Codable` so an account store can keep it; the client secret is kept too, but
/// never appears in `description`.
public struct OAuth2ClientConfiguration: Codable, Sendable, Hashable, CustomStringConvertible {
    /// Endpoints given explicitly instead of, or over, those of the discovery document.
    public struct Endpoints: Codable, Sendable, Hashable {
        /// The authorization endpoint (browser sign-in).
        public var authorization: URL?
        /// The token endpoint.
        public var token: URL?
        /// The device authorization endpoint (RFC 8628).
        public var deviceAuthorization: URL?
        /// The revocation endpoint (RFC 7009).
        public var revocation: URL?
        /// The issuer's JSON Web Key Set, which verifies ID tokens.
        public var jwks: URL?

        /// Creates a set of endpoints; leave out those to take from discovery or that the issuer lacks.
        /// - Parameters:
        ///   - authorization: The authorization endpoint.
        ///   - token: The token endpoint.
        ///   - deviceAuthorization: The device authorization endpoint.
        ///   - revocation: The revocation endpoint.
        ///   - jwks: The JWKS URL.
        public init(
            authorization: URL? = nil,
            token: URL? = nil,
            deviceAuthorization: URL? = nil,
            revocation: URL? = nil,
            jwks: URL? = nil
        ) {
            self.authorization = authorization
            self.token = token
            self.deviceAuthorization = deviceAuthorization
            self.revocation = revocation
            self.jwks = jwks
        }

        /// Whether every endpoint is left out.
        public var isEmpty: Bool {
            self.authorization == nil && self.token == nil && self.deviceAuthorization == nil && self.revocation == nil
                && self.jwks == nil
        }
    }

    /// How the client proves its identity to the token, device and revocation endpoints. Open-ended.
    public struct ClientAuthentication: Codable, Sendable, Hashable, CustomStringConvertible {
        enum Base: String, Sendable, Hashable {
            case none
            case clientSecretBasic = "client_secret_basic"
            case clientSecretPost = "client_secret_post"
        }

        let base: Base

        /// A public client: only `client_id` is sent (PKCE protects the code).
        public static let none = ClientAuthentication(base: .none)
        /// The secret in an HTTP Basic `Authorization` header (RFC 6749 §2.3.1).
        public static let clientSecretBasic = ClientAuthentication(base: .clientSecretBasic)
        /// The secret as a `client_secret` form parameter.
        public static let clientSecretPost = ClientAuthentication(base: .clientSecretPost)

        /// The method's name in discovery documents (`none`, `client_secret_basic`, `client_secret_post`).
        public var description: String { self.base.rawValue }

        /// Reads the method's name.
        /// - Throws: `DecodingError` for a name this client does not implement.
        public init(from decoder: any Decoder) throws {
            let name = try decoder.singleValueContainer().decode(String.self)
            guard let base = Base(rawValue: name) else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: decoder.codingPath,
                        debugDescription: "'\(name)' is not a client authentication method; expected none, client_secret_basic or client_secret_post"
                    )
                )
            }
            self.base = base
        }

        /// Writes the method's name.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(self.base.rawValue)
        }

        init(base: Base) {
            self.base = base
        }
    }

    /// The scopes asked for when none are given: an ID token (`openid`) and a refresh token
    /// (`offline_access`).
    public static let defaultScopes = ["openid", "offline_access"]

    /// The issuer identifier expected in the discovery document and in every ID token's `iss`; `nil`
    /// takes the discovery document's. Also where discovery is read from when ``discoveryURL`` is `nil`.
    public var issuer: String?
    /// Where to read the discovery document; `nil` derives it from ``issuer``, unless ``endpoints``
    /// give a token endpoint and a JWKS.
    public var discoveryURL: URL?
    /// Endpoints that replace discovered ones.
    public var endpoints: Endpoints
    /// The client id registered at the issuer.
    public var clientId: String
    /// The client secret of a confidential client. Never printed.
    public var clientSecret: String?
    /// How to authenticate the client; `nil` sends the secret with HTTP Basic when there is one, and
    /// nothing otherwise.
    public var clientAuthentication: ClientAuthentication?
    /// The redirect URI of browser sign-ins: a loopback `http://127.0.0.1/<path>` or `http://[::1]/<path>`
    /// (any port registered matches, RFC 8252 §7.3). `nil` uses `http://127.0.0.1/callback` on a port
    /// picked when the sign-in starts.
    public var redirectURI: URL?
    /// The scopes to ask for; must include `openid`.
    public var scopes: [String]

    /// Creates a configuration.
    /// - Parameters:
    ///   - issuer: The expected issuer identifier, and the discovery base when `discoveryURL` is `nil`.
    ///   - discoveryURL: Where the discovery document is served.
    ///   - endpoints: Endpoints that replace discovered ones.
    ///   - clientId: The client id.
    ///   - clientSecret: The secret of a confidential client.
    ///   - clientAuthentication: How to authenticate the client; `nil` to choose from the secret.
    ///   - redirectURI: The loopback redirect URI of browser sign-ins.
    ///   - scopes: The scopes; `openid offline_access` by default.
    public init(
        issuer: String? = nil,
        discoveryURL: URL? = nil,
        endpoints: Endpoints = Endpoints(),
        clientId: String,
        clientSecret: String? = nil,
        clientAuthentication: ClientAuthentication? = nil,
        redirectURI: URL? = nil,
        scopes: [String] = OAuth2ClientConfiguration.defaultScopes
    ) {
        self.issuer = issuer
        self.discoveryURL = discoveryURL
        self.endpoints = endpoints
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.clientAuthentication = clientAuthentication
        self.redirectURI = redirectURI
        self.scopes = scopes
    }

    /// The authentication method in effect: the configured one, else Basic with a secret and none
    /// without.
    public var effectiveClientAuthentication: ClientAuthentication {
        self.clientAuthentication ?? (self.clientSecret == nil ? .none : .clientSecretBasic)
    }

    /// Where the discovery document is read: ``discoveryURL``, else `<issuer>/.well-known/openid-configuration`
    /// (OpenID Connect Discovery §4), else `nil` when ``endpoints`` must do.
    public var effectiveDiscoveryURL: URL? {
        if let discoveryURL { return discoveryURL }
        guard let issuer, self.endpoints.token == nil || self.endpoints.jwks == nil else { return nil }
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        return URL(string: base + "/.well-known/openid-configuration")
    }

    /// The issuer, discovery URL, client id, redirect URI and scopes; the secret only as `<redacted>`.
    public var description: String {
        var parts: [String] = []
        if let issuer { parts.append("issuer: \(issuer)") }
        if let discoveryURL { parts.append("discoveryURL: \(discoveryURL.absoluteString)") }
        if !self.endpoints.isEmpty {
            let named: [(String, URL?)] = [
                ("authorization", self.endpoints.authorization), ("token", self.endpoints.token),
                ("deviceAuthorization", self.endpoints.deviceAuthorization), ("revocation", self.endpoints.revocation),
                ("jwks", self.endpoints.jwks),
            ]
            let listed = named.compactMap { name, url in url.map { "\(name): \($0.absoluteString)" } }
            parts.append("endpoints: [\(listed.joined(separator: ", "))]")
        }
        parts.append("clientId: \(self.clientId)")
        if self.clientSecret != nil { parts.append("clientSecret: <redacted>") }
        if let clientAuthentication { parts.append("clientAuthentication: \(clientAuthentication)") }
        if let redirectURI { parts.append("redirectURI: \(redirectURI.absoluteString)") }
        parts.append("scopes: \(self.scopes.joined(separator: " "))")
        return "OAuth2ClientConfiguration(\(parts.joined(separator: ", ")))"
    }
}

extension OAuth2ClientConfiguration: CustomReflectable {
    /// No children: `dump` and `Mirror(reflecting:)` would otherwise list the stored secrets that
    /// ``description`` leaves out.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
