import AsyncHTTPClient
import Crypto
import Foundation
import JWTKit
import Logging
import NIOCore
import Testing
import WIFCredentials

@testable import WIFLocal
import WIFFoundation
import WIFTestSupport

/// A running stack and the HTTP calls an OAuth client and a browser make to it.
struct OAuthHarness: Sendable {
    /// The redirect URI of the development client: loopback, on a port the "app" picked.
    static let redirectURI = "http://127.0.0.1:53682/callback"
    /// The development client.
    static let clientId = "wif-local"

    let endpoint: LocalEndpoint
    let directory: String
    /// The stack's clock when the test injected one.
    let clock: TestClock?

    var base: String { self.endpoint.url }

    /// An HTTP client that never follows redirects, so a test reads the `Location` a browser would follow.
    static let client = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10), read: .seconds(30)))
    )

    /// Runs a stack over a fresh data directory (removed afterwards).
    static func run<T: Sendable>(
        clock: TestClock? = nil, logger: Logger = LocalStack.silentLogger,
        configure: (inout LocalConfiguration) -> Void = { _ in },
        _ body: (OAuthHarness) async throws -> T
    ) async throws -> T {
        let directory = TemporaryFolder.url("wif-oauth").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try IdentitySharedKey.seed(directory)
        return try await self.run(in: directory, clock: clock, logger: logger, configure: configure, body)
    }

    /// Runs a stack over an existing data directory.
    static func run<T: Sendable>(
        in directory: String, clock: TestClock? = nil, logger: Logger = LocalStack.silentLogger,
        configure: (inout LocalConfiguration) -> Void = { _ in },
        _ body: (OAuthHarness) async throws -> T
    ) async throws -> T {
        var configuration = LocalConfiguration.default(dataDirectory: directory)
        configure(&configuration)
        return try await LocalStack.run(configuration, logger: logger, timeSource: clock?.timeSource ?? .system) { endpoint in
            try await body(OAuthHarness(endpoint: endpoint, directory: directory, clock: clock))
        }
    }

    // MARK: HTTP

    /// An answer, read whole.
    struct Answer: Sendable {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: String

        func header(_ name: String) -> String? {
            self.headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// The body as a JSON object.
        func json() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(self.body.utf8)) as? [String: Any], "not JSON: \(self.body)")
        }

        /// The `error` of a JSON error answer.
        var error: String? {
            (try? JSONSerialization.jsonObject(with: Data(self.body.utf8)) as? [String: Any])?["error"] as? String
        }

        /// The query parameters of the `Location` header.
        func redirectParameters() throws -> [String: String] {
            let location = try #require(self.header("Location"), "no Location; status \(self.status): \(self.body)")
            let items = try #require(URLComponents(string: location)?.queryItems)
            var parameters: [String: String] = [:]
            for item in items { parameters[item.name] = item.value ?? "" }
            return parameters
        }
    }

    func send(_ method: String, _ pathOrURL: String, headers: [(String, String)] = [], body: String? = nil) async throws -> Answer {
        var request = HTTPClientRequest(url: pathOrURL.hasPrefix("http") ? pathOrURL : self.base + pathOrURL)
        request.method = .init(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await Self.client.execute(request, timeout: .seconds(30))
        let collected = try await response.body.collect(upTo: 1 << 20)
        return Answer(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: String(buffer: collected))
    }

    /// Form or query text from pairs.
    static func encode(_ pairs: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return pairs.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&")
    }

    /// `GET /oauth2/authorize` with parameters.
    func authorize(_ pairs: [(String, String)]) async throws -> Answer {
        try await self.send("GET", "/oauth2/authorize?" + Self.encode(pairs))
    }

    /// `POST /oauth2/token` with a form.
    func token(_ pairs: [(String, String)], headers: [(String, String)] = []) async throws -> Answer {
        try await self.send("POST", "/oauth2/token", headers: headers, body: Self.encode(pairs))
    }

    // MARK: Flows

    /// A PKCE pair made independently of the server: 32 random bytes base64url, and its SHA-256.
    static func pkce() -> (verifier: String, challenge: String) {
        let verifier = IdentityJWT.base64URL((0..<32).map { _ in UInt8.random(in: 0...255) })
        return (verifier, IdentityJWT.base64URL(Array(SHA256.hash(data: Data(verifier.utf8)))))
    }

    /// The parameters of an authorization request of the development client.
    static func authorizationRequest(
        user: String? = "alice", scope: String = "openid offline_access", state: String = "state-1", nonce: String? = "nonce-1",
        challenge: String, clientId: String = Self.clientId, redirectURI: String = Self.redirectURI
    ) -> [(String, String)] {
        var pairs = [
            ("response_type", "code"), ("client_id", clientId), ("redirect_uri", redirectURI), ("scope", scope), ("state", state),
            ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ]
        if let nonce { pairs.append(("nonce", nonce)) }
        if let user { pairs.append(("login_hint", user)) }
        return pairs
    }

    /// The browser step: authorize with a login hint and read the code from the redirect.
    func code(user: String = "alice", scope: String = "openid offline_access", nonce: String? = "nonce-1") async throws
        -> (code: String, verifier: String)
    {
        let pkce = Self.pkce()
        let answer = try await self.authorize(Self.authorizationRequest(user: user, scope: scope, nonce: nonce, challenge: pkce.challenge))
        #expect(answer.status == 302, "authorize answered \(answer.status): \(answer.body)")
        let parameters = try answer.redirectParameters()
        #expect(parameters["state"] == "state-1")
        return (try #require(parameters["code"], "no code in \(parameters)"), pkce.verifier)
    }

    /// Redeems a code.
    func exchange(_ code: String, verifier: String?, redirectURI: String = Self.redirectURI, clientId: String = Self.clientId) async throws -> Answer {
        var pairs = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("client_id", clientId)]
        if let verifier { pairs.append(("code_verifier", verifier)) }
        return try await self.token(pairs)
    }

    /// Signs in through the code flow and returns the token answer's JSON.
    func signIn(user: String = "alice", scope: String = "openid offline_access", nonce: String? = "nonce-1") async throws -> [String: Any] {
        let (code, verifier) = try await self.code(user: user, scope: scope, nonce: nonce)
        let answer = try await self.exchange(code, verifier: verifier)
        #expect(answer.status == 200, "token answered \(answer.status): \(answer.body)")
        return try answer.json()
    }

    /// Presents a refresh token.
    func refresh(_ token: String, clientId: String = Self.clientId, scope: String? = nil) async throws -> Answer {
        var pairs = [("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", clientId)]
        if let scope { pairs.append(("scope", scope)) }
        return try await self.token(pairs)
    }

    /// Starts a device authorization.
    func deviceAuthorization(clientId: String = Self.clientId, scope: String? = "openid offline_access") async throws -> Answer {
        var pairs = [("client_id", clientId)]
        if let scope { pairs.append(("scope", scope)) }
        return try await self.send("POST", "/oauth2/device_authorization", body: Self.encode(pairs))
    }

    /// Polls with a device code.
    func poll(_ deviceCode: String, clientId: String = Self.clientId) async throws -> Answer {
        try await self.token([("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode), ("client_id", clientId)])
    }

    /// The stack's JWKS as jwt-kit keys.
    func keys() async throws -> JWTKeyCollection {
        let jwks = try await self.send("GET", "/.well-known/jwks.json")
        let keys = JWTKeyCollection()
        try await keys.add(jwksJSON: jwks.body)
        return keys
    }
}

/// The claims of the authorization server's ID tokens.
struct OAuthIDTokenClaims: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var azp: String?
    var nonce: String?
    var iat: IssuedAtClaim
    var auth_time: Int64?
    var exp: ExpirationClaim
    var email: String?
    var name: String?

    /// Signature only: expiry is checked by the tests against the stack's clock.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
