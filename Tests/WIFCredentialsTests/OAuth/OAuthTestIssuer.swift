import Crypto
import Foundation
import Logging
import Synchronization
import Testing

@testable import WIFCredentials
import WIFHTTP

/// An OAuth 2.0 / OpenID Connect issuer in memory, reached through the client's transport seam: it
/// serves discovery and a JWKS, issues codes with PKCE, rotates refresh tokens with reuse detection,
/// runs device codes and revocation, and signs ES256 ID tokens with its own key on the test's clock.
///
/// Tests can queue raw answers for the token endpoint, hold token requests at a gate, and read what
/// was asked.
final class OAuthTestIssuer: HTTPTransport {
    static let issuer = "https://issuer.test"
    static let clientId = "test-client"
    static let keyId = "key-1"

    struct Code {
        var clientId: String
        var redirectURI: String
        var challenge: String
        var nonce: String?
        var subject: String
    }

    enum DeviceState {
        case pending
        case approved(String)
        case denied
    }

    struct State {
        var codes: [String: Code] = [:]
        /// refresh token -> (family, subject, active)
        var refreshTokens: [String: (family: Int, subject: String, active: Bool)] = [:]
        var revokedFamilies: Set<Int> = []
        var nextFamily = 0
        var nextSerial = 0
        var devices: [String: DeviceState] = [:]
        var deviceScript: [String] = []
        var scripted: [TransportResponse] = []
        var requests: [TransportRequest] = []
        var jwksFetches = 0
        var refreshGrants = 0
        var revocations: [(token: String, hint: String?)] = []
        var gate: Gate?
        var keys: [(id: String, key: P256.Signing.PrivateKey)]
        var signingKeyIndex = 0
        var idTokenLifetime: TimeInterval = 3600
        var accessTokenLifetime = 3600
        var grantsRefreshTokens = true
        var omitIDTokenOnRefresh = false
        var nextNonceOverride: String??
        var issuerInTokens = OAuthTestIssuer.issuer
        var deviceInterval = 5
        var deviceExpiresIn = 600
    }

    let state: Mutex<State>
    let now: @Sendable () -> Date

    init(now: @escaping @Sendable () -> Date) {
        self.now = now
        self.state = Mutex(State(keys: [(Self.keyId, P256.Signing.PrivateKey())]))
    }

    /// A configuration for this issuer with its discovery document.
    static func configuration(scopes: [String] = OAuth2ClientConfiguration.defaultScopes) -> OAuth2ClientConfiguration {
        OAuth2ClientConfiguration(issuer: Self.issuer, clientId: Self.clientId, scopes: scopes)
    }

    /// A client of this issuer.
    func client(timeSource: TimeSource, configuration: OAuth2ClientConfiguration = OAuthTestIssuer.configuration()) throws -> OAuth2Client {
        try OAuth2Client(configuration: configuration, transport: self, timeSource: timeSource)
    }

    var requests: [TransportRequest] { self.state.withLock { $0.requests } }
    var refreshGrants: Int { self.state.withLock { $0.refreshGrants } }
    var jwksFetches: Int { self.state.withLock { $0.jwksFetches } }

    /// The form of each request to `path`.
    func forms(to path: String) -> [[String: String]] {
        self.requests.filter { $0.url.path == path }.map { OAuth2FormDecoding.parameters(Substring(String(decoding: $0.body, as: UTF8.self))) ?? [:] }
    }

    func script(_ responses: TransportResponse...) {
        self.state.withLock { $0.scripted.append(contentsOf: responses) }
    }

    func configure(_ change: (inout State) -> Void) {
        self.state.withLock { change(&$0) }
    }

    /// Holds every token request until the returned gate opens.
    func holdTokenRequests() -> Gate {
        let gate = Gate()
        self.state.withLock { $0.gate = gate }
        return gate
    }

    // MARK: The "browser" side

    /// What the authorization endpoint does for a signed-in `subject`: the redirect URL with a code.
    func authorize(_ url: URL, subject: String = "alice") throws -> URL {
        let query = try #require(OAuth2FormDecoding.parameters(of: url))
        let redirect = try #require(query["redirect_uri"])
        #expect(query["response_type"] == "code")
        #expect(query["code_challenge_method"] == "S256")
        let code = "code-" + UUID().uuidString
        self.state.withLock {
            $0.codes[code] = Code(
                clientId: query["client_id"] ?? "", redirectURI: redirect, challenge: query["code_challenge"] ?? "",
                nonce: query["nonce"], subject: subject)
        }
        var components = try #require(URLComponents(string: redirect))
        components.queryItems = [URLQueryItem(name: "code", value: code), URLQueryItem(name: "state", value: query["state"])]
        return try #require(components.url)
    }

    /// Tokens as if signed in, with a refresh token.
    func signIn(subject: String = "alice", client: OAuth2Client) async throws -> OAuth2Tokens {
        let request = try await client.authorizationRequest(redirectURI: "http://127.0.0.1:5000/callback")
        return try await client.completeAuthorization(request, callbackURL: try self.authorize(request.url, subject: subject))
    }

    func approveDevice(_ userCode: String, subject: String = "alice") {
        self.state.withLock { $0.devices[userCode] = .approved(subject) }
    }

    // MARK: Tokens

    /// A token whose payload is `payload` exactly as written, signed with the current key: for claims a
    /// dictionary cannot hold, such as a member named twice.
    func idToken(payload: String) -> String {
        self.state.withLock { state in
            let key = state.keys[state.signingKeyIndex]
            let header = Self.base64URL(Array(#"{"alg":"ES256","kid":"\#(key.id)","typ":"JWT"}"#.utf8))
            let input = header + "." + Self.base64URL(Array(payload.utf8))
            let signature = (try? key.key.signature(for: Data(input.utf8)).rawRepresentation) ?? Data()
            return input + "." + Self.base64URL(Array(signature))
        }
    }

    func idToken(subject: String, nonce: String?, lifetime: TimeInterval? = nil, claims extra: [String: Any] = [:], header: [String: Any]? = nil) -> String {
        self.state.withLock { state in
            let issuedAt = self.now().timeIntervalSince1970.rounded(.down)
            var claims: [String: Any] = [
                "iss": state.issuerInTokens, "sub": subject, "aud": Self.clientId, "iat": issuedAt,
                "exp": issuedAt + (lifetime ?? state.idTokenLifetime),
            ]
            if let nonce { claims["nonce"] = nonce }
            for (name, value) in extra { claims[name] = value }
            let key = state.keys[state.signingKeyIndex]
            return Self.sign(claims: claims, header: header ?? ["alg": "ES256", "kid": key.id, "typ": "JWT"], key: key.key)
        }
    }

    static func sign(claims: [String: Any], header: [String: Any], key: P256.Signing.PrivateKey) -> String {
        let headerPart = Self.base64URL(Array((try? JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])) ?? Data()))
        let claimsPart = Self.base64URL(Array((try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])) ?? Data()))
        let input = headerPart + "." + claimsPart
        let signature = (try? key.signature(for: Data(input.utf8)).rawRepresentation) ?? Data()
        return input + "." + Self.base64URL(Array(signature))
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    var jwks: String {
        self.state.withLock { state in
            let keys = state.keys.map { entry -> String in
                let raw = Array(entry.key.publicKey.rawRepresentation)
                let x = Self.base64URL(Array(raw[0..<32]))
                let y = Self.base64URL(Array(raw[32..<64]))
                return #"{"kty":"EC","crv":"P-256","x":"\#(x)","y":"\#(y)","kid":"\#(entry.id)","use":"sig","alg":"ES256"}"#
            }
            return #"{"keys":[\#(keys.joined(separator: ","))]}"#
        }
    }

    /// Replaces the signing key with a new one under a new key id (a key rotation).
    func rotateKey(to id: String) {
        self.state.withLock {
            $0.keys.append((id, P256.Signing.PrivateKey()))
            $0.signingKeyIndex = $0.keys.count - 1
        }
    }

    // MARK: Transport

    func send(_ request: TransportRequest, timeout: Duration, maximumBodyBytes: Int, logger: Logger) async throws -> TransportResponse {
        let gate = self.state.withLock { state -> Gate? in
            state.requests.append(request)
            return request.url.path == "/token" ? state.gate : nil
        }
        if let gate { await gate.wait() }
        if request.url.path == "/token", let scripted = self.state.withLock({ $0.scripted.isEmpty ? nil : $0.scripted.removeFirst() }) {
            return scripted
        }
        let form = OAuth2FormDecoding.parameters(Substring(String(decoding: request.body, as: UTF8.self))) ?? [:]
        switch request.url.path {
        case "/.well-known/openid-configuration":
            return Self.json(200, """
                {"issuer":"\(Self.issuer)","authorization_endpoint":"\(Self.issuer)/authorize","token_endpoint":"\(Self.issuer)/token",\
                "device_authorization_endpoint":"\(Self.issuer)/device","revocation_endpoint":"\(Self.issuer)/revoke",\
                "jwks_uri":"\(Self.issuer)/jwks","code_challenge_methods_supported":["S256"],"response_types_supported":["code"]}
                """)
        case "/jwks":
            self.state.withLock { $0.jwksFetches += 1 }
            return Self.json(200, self.jwks)
        case "/token":
            return self.token(form)
        case "/device":
            let code = "device-" + UUID().uuidString
            let user = "WXYZ-" + String(Int.random(in: 1000...9999))
            let (interval, expiresIn) = self.state.withLock { state -> (Int, Int) in
                state.devices[user] = .pending
                state.devices[code] = .pending
                return (state.deviceInterval, state.deviceExpiresIn)
            }
            return Self.json(200, """
                {"device_code":"\(code)|\(user)","user_code":"\(user)","verification_uri":"\(Self.issuer)/activate",\
                "verification_uri_complete":"\(Self.issuer)/activate?user_code=\(user)","expires_in":\(expiresIn),"interval":\(interval)}
                """)
        case "/revoke":
            self.state.withLock { state in
                state.revocations.append((form["token"] ?? "", form["token_type_hint"]))
                if let entry = state.refreshTokens[form["token"] ?? ""] { state.revokedFamilies.insert(entry.family) }
            }
            return TransportResponse(status: 200, body: [])
        default:
            return Self.json(404, #"{"error":"not_found"}"#)
        }
    }

    private func token(_ form: [String: String]) -> TransportResponse {
        guard form["client_id"] == Self.clientId else { return Self.error(401, "invalid_client", "unknown client") }
        switch form["grant_type"] {
        case "authorization_code":
            let code = form["code"] ?? ""
            guard let entry = self.state.withLock({ $0.codes.removeValue(forKey: code) }) else {
                return Self.error(400, "invalid_grant", "unknown or used code")
            }
            guard entry.redirectURI == form["redirect_uri"] else { return Self.error(400, "invalid_grant", "redirect_uri differs") }
            let verifier = form["code_verifier"] ?? ""
            let challenge = Self.base64URL(Array(SHA256.hash(data: Data(verifier.utf8))))
            guard challenge == entry.challenge else { return Self.error(400, "invalid_grant", "PKCE verification failed") }
            return self.issue(subject: entry.subject, nonce: entry.nonce, family: nil)
        case "refresh_token":
            let token = form["refresh_token"] ?? ""
            let outcome = self.state.withLock { state -> RefreshOutcome in
                state.refreshGrants += 1
                guard let entry = state.refreshTokens[token] else {
                    return .failure(Self.error(400, "invalid_grant", "unknown refresh token"))
                }
                if state.revokedFamilies.contains(entry.family) {
                    return .failure(Self.error(400, "invalid_grant", "refresh token revoked"))
                }
                if !entry.active {
                    state.revokedFamilies.insert(entry.family)
                    return .failure(Self.error(400, "invalid_grant", "refresh token reused; family revoked"))
                }
                state.refreshTokens[token]?.active = false
                return .success(entry.family, entry.subject)
            }
            switch outcome {
            case .failure(let response): return response
            case .success(let family, let subject): return self.issue(subject: subject, nonce: nil, family: family)
            }
        case "urn:ietf:params:oauth:grant-type:device_code":
            let deviceCode = form["device_code"] ?? ""
            let userCode = String(deviceCode.split(separator: "|").last ?? "")
            let step = self.state.withLock { state -> String? in state.deviceScript.isEmpty ? nil : state.deviceScript.removeFirst() }
            if let step { return Self.error(400, step, "scripted") }
            switch self.state.withLock({ $0.devices[userCode] }) {
            case .approved(let subject): return self.issue(subject: subject, nonce: nil, family: nil)
            case .denied: return Self.error(400, "access_denied", "denied")
            case .pending: return Self.error(400, "authorization_pending", "waiting")
            case nil: return Self.error(400, "invalid_grant", "unknown device code")
            }
        default:
            return Self.error(400, "unsupported_grant_type", "nope")
        }
    }

    private enum RefreshOutcome {
        case success(Int, String)
        case failure(TransportResponse)
    }

    private func issue(subject: String, nonce: String?, family: Int?) -> TransportResponse {
        let (refreshToken, omitIDToken, nonceOverride) = self.state.withLock { state -> (String?, Bool, String??) in
            let override = state.nextNonceOverride
            state.nextNonceOverride = nil
            guard state.grantsRefreshTokens else { return (nil, false, override) }
            state.nextSerial += 1
            let token = "refresh-\(state.nextSerial)-" + UUID().uuidString
            let familyId: Int
            if let family {
                familyId = family
            } else {
                state.nextFamily += 1
                familyId = state.nextFamily
            }
            state.refreshTokens[token] = (familyId, subject, true)
            return (token, family != nil && state.omitIDTokenOnRefresh, override)
        }
        let accessLifetime = self.state.withLock { $0.accessTokenLifetime }
        var object: [String: Any] = [
            "access_token": "access-" + UUID().uuidString, "token_type": "Bearer", "expires_in": accessLifetime, "scope": "openid offline_access",
        ]
        if !omitIDToken { object["id_token"] = self.idToken(subject: subject, nonce: nonceOverride ?? nonce) }
        if let refreshToken { object["refresh_token"] = refreshToken }
        return TransportResponse(
            status: 200, headers: [("Content-Type", "application/json")],
            body: Array((try? JSONSerialization.data(withJSONObject: object)) ?? Data()))
    }

    static func json(_ status: Int, _ text: String) -> TransportResponse {
        TransportResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(text.utf8))
    }

    static func error(_ status: Int, _ code: String, _ description: String) -> TransportResponse {
        Self.json(status, #"{"error":"\#(code)","error_description":"\#(description)"}"#)
    }
}

/// A one-way gate: tasks wait until it opens.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let ready = self.state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    var waiterCount: Int { self.state.withLock { $0.waiters.count } }

    func open() {
        let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// Waits, yielding, until `condition` holds; fails the test after many rounds instead of hanging.
func eventually(_ what: String, _ condition: () async -> Bool) async throws {
    for _ in 0..<20_000 {
        if await condition() { return }
        try await Task.sleep(for: .milliseconds(1))
    }
    Issue.record("timed out waiting until \(what)")
    throw CancellationError()
}
