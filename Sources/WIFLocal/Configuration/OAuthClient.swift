/// An OAuth 2.0 client of the development issuer's authorization server (`/oauth2/…`).
///
/// A client without a secret is public (a command-line tool, a mobile app): it must use PKCE (S256). A
/// client with a secret is confidential and authenticates at the token, device-authorization and
/// revocation endpoints with HTTP Basic (`client_secret_basic`) or form fields (`client_secret_post`).
///
/// A registered redirect URI on a loopback host (`http://127.0.0.1/…`, `http://[::1]/…`,
/// `http://localhost/…`) matches the same URI with any port, as native apps listen on a port picked at
/// run time (RFC 8252 §7.3); other redirect URIs must match exactly.
///
/// The description never shows the secret.
public struct OAuthClient: Sendable, Hashable, CustomStringConvertible {
    /// The client id, the `aud` of the ID tokens it receives.
    public var clientId: String
    /// The secret of a confidential client; `nil` for a public client.
    public var clientSecret: String?
    /// The redirect URIs the authorization endpoint may send the user back to.
    public var redirectURIs: [String]
    /// Whether any `http` loopback URI (`127.0.0.1`, `[::1]` or `localhost`, any port and path) is an
    /// accepted redirect URI, as for the development client.
    public var anyLoopbackRedirect: Bool

    /// Creates a client.
    /// - Parameters:
    ///   - clientId: The client id.
    ///   - clientSecret: The secret of a confidential client; `nil` for a public one.
    ///   - redirectURIs: The registered redirect URIs.
    ///   - anyLoopbackRedirect: Whether every `http` loopback redirect URI is accepted.
    public init(clientId: String, clientSecret: String? = nil, redirectURIs: [String] = [], anyLoopbackRedirect: Bool = false) {
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.redirectURIs = redirectURIs
        self.anyLoopbackRedirect = anyLoopbackRedirect
    }

    /// Whether the client has a secret.
    public var isConfidential: Bool { self.clientSecret != nil }

    /// The development client: public, PKCE required, any loopback redirect, and by default the client id
    /// of the `oidc` provider profile (`wif-local`) so that its ID tokens federate into `personal-store-oidc`.
    /// - Parameter clientId: The client id.
    /// - Returns: The client.
    public static func development(clientId: String = ProviderProfile.developmentClientId(for: .oidc)) -> OAuthClient {
        OAuthClient(clientId: clientId, anyLoopbackRedirect: true)
    }

    /// The client id and redirect URIs; the secret is never shown.
    public var description: String {
        "OAuthClient(clientId: \(self.clientId), clientSecret: \(self.clientSecret == nil ? "none" : "<redacted>"), "
            + "redirectURIs: \(self.redirectURIs), anyLoopbackRedirect: \(self.anyLoopbackRedirect))"
    }
}

extension LocalConfiguration {
    /// The lifetimes of what the development authorization server issues, in seconds, and its limit on
    /// guesses of user codes.
    public struct OAuth: Sendable, Hashable {
        /// The lifetime of ID tokens and access tokens (`expires_in`); 3600 by default.
        public var idTokenLifetime: Int
        /// The lifetime of each refresh token, counted from its issue (every refresh issues a new one);
        /// 30 days by default.
        public var refreshTokenLifetime: Int
        /// The lifetime of authorization codes; 60 by default.
        public var authorizationCodeLifetime: Int
        /// The lifetime of device codes and user codes; 600 by default.
        public var deviceCodeLifetime: Int
        /// The shortest time between two polls of the token endpoint with a device code; 5 by default,
        /// `0` for no limit.
        public var deviceInterval: Int
        /// The wrong user codes one remote address may submit to the verification page within
        /// ``userCodeGuessWindow`` before the page answers 429 with `Retry-After` until the window ends;
        /// 10 by default, 1 to 1000. The whole stack may take ten times as many.
        public var userCodeGuesses: Int
        /// The window of ``userCodeGuesses``, counted from the first wrong code; 60 by default.
        public var userCodeGuessWindow: Int

        /// The names of the settings, as in configuration files.
        static let names = [
            "idTokenLifetime", "refreshTokenLifetime", "authorizationCodeLifetime", "deviceCodeLifetime", "deviceInterval",
            "userCodeGuesses", "userCodeGuessWindow",
        ]
        /// The allowed ``userCodeGuesses``.
        static let userCodeGuessRange = 1...1000

        /// Each setting with its configuration-file name, its value and its allowed range.
        var settings: [(name: String, value: Int, range: ClosedRange<Int>)] {
            [
                ("idTokenLifetime", self.idTokenLifetime, 1...86_400),
                ("refreshTokenLifetime", self.refreshTokenLifetime, 1...31_536_000),
                ("authorizationCodeLifetime", self.authorizationCodeLifetime, 1...600),
                ("deviceCodeLifetime", self.deviceCodeLifetime, 1...3600),
                ("deviceInterval", self.deviceInterval, 0...300),
                ("userCodeGuessWindow", self.userCodeGuessWindow, 1...3600),
            ]
        }

        /// Creates lifetimes; every argument but `userCodeGuesses` (a count) is in seconds.
        public init(
            idTokenLifetime: Int = 3600,
            refreshTokenLifetime: Int = 30 * 86_400,
            authorizationCodeLifetime: Int = 60,
            deviceCodeLifetime: Int = 600,
            deviceInterval: Int = 5,
            userCodeGuesses: Int = 10,
            userCodeGuessWindow: Int = 60
        ) {
            self.idTokenLifetime = idTokenLifetime
            self.refreshTokenLifetime = refreshTokenLifetime
            self.authorizationCodeLifetime = authorizationCodeLifetime
            self.deviceCodeLifetime = deviceCodeLifetime
            self.deviceInterval = deviceInterval
            self.userCodeGuesses = userCodeGuesses
            self.userCodeGuessWindow = userCodeGuessWindow
        }
    }

    /// The OAuth client with the given id.
    /// - Parameter clientId: The client id, compared exactly.
    /// - Returns: The client, or `nil` when none has that id.
    public func oauthClient(id clientId: String) -> OAuthClient? {
        self.oauthClients.first { $0.clientId == clientId }
    }
}
