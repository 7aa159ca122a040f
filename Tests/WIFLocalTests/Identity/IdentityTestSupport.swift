import Foundation
import Hummingbird
import JWTKit
import Logging
import Synchronization
import Testing
import WIFCredentials

@testable import WIFLocal
import WIFTestSupport

extension TestClock {
    /// 2025-06-15T15:06:40Z, where the identity tests' clocks start.
    static let identityStart = Date(timeIntervalSince1970: 1_750_000_000)

    /// A clock for the identity tests, at ``identityStart``.
    static func identity() -> TestClock { TestClock(now: Self.identityStart) }
}

/// A value shared with escaping closures.
final class IdentityBox<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) {
        self.storage = Mutex(value)
    }

    var value: Value {
        get { self.storage.withLock { $0 } }
        set { self.storage.withLock { $0 = newValue } }
    }

    func update(_ change: (inout Value) -> Void) {
        self.storage.withLock { change(&$0) }
    }
}

/// A stack state in its own temporary data directory, with a hand-moved clock.
struct IdentityFixture: Sendable {
    let directory: String
    let clock: TestClock
    let state: LocalState

    var configuration: LocalConfiguration { self.state.configuration }

    /// Opens a state; `configure` may change the default configuration.
    ///
    /// A new directory starts with a copy of one issuer key shared by the tests, since generating an RSA
    /// key per test would dominate the suite's time; `freshKey` lets the key store create its own.
    init(
        directory: String? = nil, clock: TestClock = TestClock.identity(), freshKey: Bool = false,
        configure: (inout LocalConfiguration) -> Void = { _ in }
    ) throws {
        let isNew = directory == nil
        let directory = directory ?? TemporaryFolder.path("wif-identity")
        if isNew && !freshKey { try IdentitySharedKey.seed(directory) }
        var configuration = LocalConfiguration.default(dataDirectory: directory)
        configure(&configuration)
        self.directory = directory
        self.clock = clock
        self.state = try LocalState(configuration: configuration, timeSource: clock.timeSource, logger: Logger(label: "wif.test.identity"))
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: self.directory)
    }

    func profile(_ name: String) throws -> ProviderProfile {
        try #require(self.configuration.provider(named: name))
    }

    func issuer() throws -> DevelopmentTokenIssuer {
        try DevelopmentTokenIssuer(state: self.state)
    }

    func verifier() throws -> TokenVerifier {
        try TokenVerifier(state: self.state)
    }

    /// A development token of a profile, issued now.
    func token(_ profile: String, user: String = "alice", audience: String? = nil, ttl: Int = 3600) throws -> String {
        try self.issuer().issue(profile: self.profile(profile), user: user, audience: audience, ttl: ttl, now: self.clock.now)
    }

    /// The stack's private key as jwt-kit reads it from the data directory.
    func stackPrivateKeyPEM() throws -> String {
        _ = try self.stackKeyId()
        let path = self.directory + "/keys/" + IssuerSigningKey.keyFileName
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    /// The stack's key id.
    func stackKeyId() throws -> String {
        try IssuerSigningKey.load(from: self.state.data, now: self.clock.now, subject: "wif.localhost").keyId
    }

    /// Signs `header.claims` with the stack's private key (RS256), through jwt-kit.
    func signWithStackKey(header: String, claims: String) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(rsa: try Insecure.RSA.PrivateKey(pem: self.stackPrivateKeyPEM()), digestAlgorithm: .sha256, kid: "signer")
        let algorithm = try await keys.getKey(for: "signer", alg: "RS256")
        return try IdentityJWT.sign(header: header, claims: claims, with: algorithm)
    }

    /// A standard header naming the stack's key.
    func stackHeader(alg: String = "RS256") throws -> String {
        #"{"alg":"\#(alg)","kid":"\#(try self.stackKeyId())","typ":"JWT"}"#
    }

    /// Claims of an `oidc` profile token, with overrides; `nil` removes a claim.
    func oidcClaims(_ overrides: [String: Any?] = [:]) -> String {
        let now = self.clock.seconds
        var claims: [String: Any] = [
            "iss": self.configuration.issuer,
            "sub": "alice",
            "aud": ProviderProfile.developmentClientId(for: .oidc),
            "iat": now,
            "exp": now + 3600,
        ]
        for (name, value) in overrides {
            if let value { claims[name] = value } else { claims.removeValue(forKey: name) }
        }
        return IdentityJWT.json(claims)
    }
}

/// One issuer key and certificate for the tests that do not need a key of their own.
enum IdentitySharedKey {
    private static let files: [String: Data] = {
        let directory = TemporaryFolder.url("wif-identity-key").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        guard let data = try? DataDirectory(root: directory),
            (try? IssuerSigningKey.load(from: data, now: TestClock.identityStart, subject: "wif.localhost")) != nil
        else { return [:] }
        var files: [String: Data] = [:]
        for name in [IssuerSigningKey.keyFileName, IssuerSigningKey.certificateFileName] {
            files[name] = FileManager.default.contents(atPath: directory + "/keys/" + name)
        }
        return files
    }()

    /// Writes the shared key and certificate into a new data directory.
    static func seed(_ directory: String) throws {
        let keys = directory + "/keys"
        try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for (name, content) in Self.files {
            FileManager.default.createFile(atPath: keys + "/" + name, contents: content, attributes: [.posixPermissions: 0o600])
        }
    }
}

/// Runs `body` with a fresh fixture and removes its directory afterwards.
@discardableResult
func withIdentityFixture<T>(
    clock: TestClock = TestClock.identity(),
    freshKey: Bool = false,
    configure: (inout LocalConfiguration) -> Void = { _ in },
    _ body: (IdentityFixture) async throws -> T
) async throws -> T {
    let fixture = try IdentityFixture(clock: clock, freshKey: freshKey, configure: configure)
    defer { fixture.remove() }
    return try await body(fixture)
}

/// Building and reading compact JWS by hand, independently of the code under test.
enum IdentityJWT {
    static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func base64URL(_ text: String) -> String {
        self.base64URL(Array(text.utf8))
    }

    static func decodeBase64URL(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }

    static func json(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    static func sign(header: String, claims: String, with algorithm: any JWTAlgorithm) throws -> String {
        let input = self.base64URL(header) + "." + self.base64URL(claims)
        return input + "." + self.base64URL(try algorithm.sign(Array(input.utf8)))
    }

    /// The three parts of a token.
    static func parts(_ token: String) -> [String] {
        token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// The decoded header or payload of a token.
    static func object(_ token: String, part: Int) throws -> [String: Any] {
        let data = try #require(self.decodeBase64URL(self.parts(token)[part]))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}

/// Expects `body` to fail with an AWS error of `code`, and returns it.
@discardableResult
func expectRejection(
    _ code: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws(AWSErrorResponse) -> VerifiedToken
) async -> AWSErrorResponse? {
    do {
        let verified = try await body()
        Issue.record("expected \(code), but the token verified as \(verified.identity.subject)", sourceLocation: sourceLocation)
        return nil
    } catch {
        #expect(error.code == code, "message: \(error.message)", sourceLocation: sourceLocation)
        #expect(error.status == .badRequest, sourceLocation: sourceLocation)
        return error
    }
}

/// Collects a response body.
final class IdentityBodyCollector: ResponseBodyWriter {
    var collected = ByteBuffer()

    func write(_ buffer: ByteBuffer) async throws {
        var incoming = buffer
        self.collected.writeBuffer(&incoming)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

extension Response {
    /// The whole body as text.
    func bodyText() async throws -> String {
        let collector = IdentityBodyCollector()
        try await self.body.write(collector)
        return String(buffer: collector.collected)
    }
}
