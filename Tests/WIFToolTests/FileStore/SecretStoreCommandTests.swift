import Foundation
import Testing
import WIFCredentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
import WIFTestSupport
#endif

/// The encrypted store `$WIF_HOME/secrets.enc` as users meet it: nothing secret in the clear, the key
/// from a key file or a passphrase, cached credentials for `credentials`, and every way the store can
/// fail to open, each with its message and exit status and the file left as it was.
@Suite(.oneToolRunAtATime) struct SecretStoreCommandTests {
    static let googleRole = "arn:aws:iam::000000000000:role/personal-store-google"

    /// A development token from `wif-tool local token`, for the stack whose data is in `dataDirectory`
    /// (the embedded stack's when `nil`).
    static func mintToken(_ fixture: StoreFixture, user: String, ttl: Int = 3600, dataDirectory: String? = nil) throws -> String {
        var arguments = ["local", "token", "--provider", "google", "--user", user, "--ttl", String(ttl)]
        if let dataDirectory { arguments += ["--data-dir", dataDirectory] }
        let result = try fixture.run(arguments)
        try #require(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The environment that makes `credentials` assume the google role through a served stack.
    static func webIdentity(tokenFile: URL, endpoint: String) -> [String: String] {
        ["AWS_ROLE_ARN": Self.googleRole, "AWS_WEB_IDENTITY_TOKEN_FILE": tokenFile.path, "AWS_ENDPOINT_URL_STS": endpoint,
         "AWS_ROLE_SESSION_NAME": "cache-test"]
    }

    @Test func noSecretIsWrittenInTheClearAnywhereInWIFHome() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        // Sign in with a token given on the command line, then use the folder.
        let token = try Self.mintToken(fixture, user: "nora")
        let login = try fixture.run(["login", "--token", token, "--provider", "google"])
        #expect(login.status == 0, "\(login.stderr)")
        let file = try fixture.makeFile("notes.txt", size: 300)
        #expect(try fixture.run(["put", file]).status == 0)
        #expect(try fixture.run(["list"]).stdout == "notes.txt\n")

        // `credentials` through a stack served outside WIF_HOME, its token file outside too.
        let served = fixture.root.appendingPathComponent("served").path
        let server = try ServeProcess(["local", "serve", "--data-dir", served], home: fixture.home)
        let endpoint = try await server.firstLine()
        let tokenFile = fixture.work.appendingPathComponent("web-identity.jwt")
        let webToken = try Self.mintToken(fixture, user: "olga", dataDirectory: served)
        try Data(webToken.utf8).write(to: tokenFile)
        let credentials = try fixture.run(["credentials"], Self.webIdentity(tokenFile: tokenFile, endpoint: endpoint))
        _ = try await server.stop(signal: SIGTERM)
        #expect(credentials.status == 0, "\(credentials.stderr)")
        let printed = try StoreFixture.object(credentials)

        // Everything secret the commands handled: the tokens, and both sets of credentials.
        let stored = try #require(try fixture.storedSession())
        let storedCredentials = try #require(stored["credentials"] as? [String: Any])
        var secrets = [token, webToken]
        for value in [storedCredentials["secretAccessKey"], storedCredentials["sessionToken"], printed["SecretAccessKey"], printed["SessionToken"]] {
            secrets.append(try #require(value as? String))
        }
        #expect(try fixture.secretStore().load().keys.contains { $0.hasPrefix("wif-tool.sts-cache.") }, "credentials were cached")

        let files = try StoreFixture.files(under: fixture.wifHome)
        #expect(files.contains { $0.path.hasSuffix("/secrets.enc") })
        for (path, bytes) in files {
            for secret in secrets {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(path) holds a secret in the clear")
                // Nor its base64, nor its middle part (a JWT's payload) on its own.
                #expect(bytes.range(of: Data(Data(secret.utf8).base64EncodedString().utf8)) == nil, "\(path) holds a secret in base64")
                if let payload = secret.split(separator: ".").dropFirst().first, payload.count > 20 {
                    #expect(bytes.range(of: Data(payload.utf8)) == nil, "\(path) holds a token's payload")
                }
            }
        }
    }

    @Test func repeatedCredentialsCallsReuseTheCachedCredentials() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let served = fixture.root.appendingPathComponent("served").path
        let server = try ServeProcess(["local", "serve", "--data-dir", served], home: fixture.home)
        let endpoint = try await server.firstLine()
        let tokenFile = fixture.work.appendingPathComponent("web-identity.jwt")
        try Data(try Self.mintToken(fixture, user: "pia", dataDirectory: served).utf8).write(to: tokenFile)
        let environment = Self.webIdentity(tokenFile: tokenFile, endpoint: endpoint)

        let first = try fixture.run(["credentials"], environment)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("note: the store \(fixture.secretsFile.path) is protected only by file permissions"), "\(first.stderr)")
        let second = try fixture.run(["credentials"], environment)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.isEmpty, "the notice is given once, when the store is made")
        let a = try StoreFixture.object(first)
        let b = try StoreFixture.object(second)
        // STS hands out new keys on every call: the same key twice means STS was not called again.
        #expect(a["AccessKeyId"] as? String == b["AccessKeyId"] as? String)
        #expect(a["SessionToken"] as? String == b["SessionToken"] as? String)
        #expect(a["Expiration"] as? String == b["Expiration"] as? String)

        // A rotated token file is another identity: STS is asked again.
        try Data(try Self.mintToken(fixture, user: "pia", ttl: 7200, dataDirectory: served).utf8).write(to: tokenFile)
        let rotated = try fixture.run(["credentials"], environment)
        #expect(rotated.status == 0, "\(rotated.stderr)")
        let c = try StoreFixture.object(rotated)
        #expect(c["AccessKeyId"] as? String != a["AccessKeyId"] as? String)

        // Other settings are another cache entry; the first one stays.
        var otherSession = environment
        otherSession["AWS_ROLE_SESSION_NAME"] = "another-session"
        let other = try fixture.run(["credentials"], otherSession)
        #expect(other.status == 0, "\(other.stderr)")
        #expect(try StoreFixture.object(other)["AccessKeyId"] as? String != c["AccessKeyId"] as? String)

        // With STS gone, the cached credentials still answer.
        _ = try await server.stop(signal: SIGTERM)
        let offline = try fixture.run(["credentials"], environment)
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(try StoreFixture.object(offline)["AccessKeyId"] as? String == c["AccessKeyId"] as? String)
    }

    @Test func keysInTheEnvironmentNeedNoStore() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let result = try fixture.run(["credentials"], ["AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "env-secret"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.secretsFile.path))
        #expect(!FileManager.default.fileExists(atPath: fixture.secretsKeyFile.path))
    }

    @Test func aPassphraseStoreAsksForItsPassphrase() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let login = try fixture.run(["login", "--dev", "quinn"], ["WIF_PASSPHRASE": "quinn's long passphrase"])
        #expect(login.status == 0, "\(login.stderr)")
        #expect(!login.stderr.contains("protected only by file permissions"))
        #expect(!FileManager.default.fileExists(atPath: fixture.secretsKeyFile.path), "no key file for a passphrase store")
        #expect(try EncryptedStore.protection(ofStoreAt: fixture.secretsFile)?.kind == .passphrase)
        let before = try Data(contentsOf: fixture.secretsFile)

        // Not on a terminal and no WIF_PASSPHRASE: told how to give it.
        let missing = try fixture.run(["whoami"])
        #expect(missing.status == 3)
        #expect(missing.stderr == "error: the store \(fixture.secretsFile.path) is protected by a passphrase: set WIF_PASSPHRASE, or run on a terminal to be asked for it\n")
        let wrong = try fixture.run(["list"], ["WIF_PASSPHRASE": "not it"])
        #expect(wrong.status == 3)
        #expect(wrong.stderr == "error: the passphrase does not open the store \(fixture.secretsFile.path) (a wrong passphrase, or a header that was altered)\n")
        #expect(!wrong.stderr.contains("not it"))
        let wrongLogin = try fixture.run(["login", "--dev", "quinn"], ["WIF_PASSPHRASE": "not it"])
        #expect(wrongLogin.status == 3, "\(wrongLogin.stderr)")
        #expect(try Data(contentsOf: fixture.secretsFile) == before, "a refused passphrase changes nothing")

        let right = try fixture.run(["whoami", "--json"], ["WIF_PASSPHRASE": "quinn's long passphrase"])
        #expect(right.status == 0, "\(right.stderr)")
        #expect(try StoreFixture.object(right)["subject"] as? String == "quinn")
        #expect(try fixture.storedSession(passphrase: "quinn's long passphrase")?["subject"] as? String == "quinn")

        // --passphrase asks on the terminal; without one it says what to do instead.
        let other = try StoreFixture()
        defer { other.remove() }
        let asked = try other.run(["login", "--dev", "rae", "--passphrase"])
        #expect(asked.status == 64)
        #expect(asked.stderr == "error: --passphrase asks on the terminal, but standard input is not one; set WIF_PASSPHRASE instead\n")
        #expect(!FileManager.default.fileExists(atPath: other.secretsFile.path))
    }

    @Test func aChosenKeyFileIsNeededAfterwards() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let keyFile = fixture.work.appendingPathComponent("my.key")
        let login = try fixture.run(["login", "--dev", "sam", "--key-file", keyFile.path])
        #expect(login.status == 0, "\(login.stderr)")
        #expect(!login.stderr.contains("protected only by file permissions"))
        #expect(try StoreFixture.mode(keyFile) == 0o600)
        #expect(!FileManager.default.fileExists(atPath: fixture.secretsKeyFile.path))

        let without = try fixture.run(["whoami"])
        #expect(without.status == 3)
        #expect(without.stderr == "error: the key file \(fixture.secretsKeyFile.path) of the store \(fixture.secretsFile.path) is missing; the store cannot be opened without it\n")
        #expect(!FileManager.default.fileExists(atPath: fixture.secretsKeyFile.path), "no new key is made for an existing store")
        #expect(try fixture.run(["whoami"], ["WIF_KEY_FILE": keyFile.path]).status == 0)
        #expect(try fixture.run(["whoami", "--key-file", keyFile.path]).status == 0)
    }

    struct Damage: Sendable, CustomTestStringConvertible {
        var name: String
        var status: Int32
        var message: String
        var testDescription: String { self.name }
    }

    static let damages = [
        Damage(name: "altered", status: 8, message: "was altered or damaged: its contents fail authentication; it was left as it is"),
        Damage(name: "truncated", status: 8, message: "is truncated: "),
        Damage(name: "newer", status: 8, message: "has format version 2, newer than version 1 that this version reads"),
        Damage(name: "foreign", status: 8, message: "is not an encrypted store: it does not start with \"WIFSTORE\""),
        Damage(name: "wrong key file", status: 3, message: "does not open the store"),
    ]

    @Test(arguments: Self.damages)
    func aStoreThatDoesNotOpenIsReportedAndLeftUntouched(_ damage: Damage) throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "tess"]).status == 0)
        var bytes = [UInt8](try Data(contentsOf: fixture.secretsFile))
        switch damage.name {
        case "altered": bytes[bytes.count - 40] ^= 0x20
        case "truncated": bytes.removeLast(10)
        case "newer": (bytes[8], bytes[9]) = (0, 2)
        case "foreign": bytes = Array("{\"session\": \"not encrypted\"}".utf8)
        default:
            let key = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            try Data((key + "\n").utf8).write(to: fixture.secretsKeyFile)
        }
        try Data(bytes).write(to: fixture.secretsFile)
        let before = try Data(contentsOf: fixture.secretsFile)

        for arguments in [["whoami"], ["list"], ["logout"], ["login", "--dev", "tess"], ["put", try fixture.makeFile("x.txt", size: 10)]] {
            let result = try fixture.run(arguments)
            #expect(result.status == damage.status, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("error: "), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(fixture.secretsFile.path), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(damage.message), "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
            #expect(try Data(contentsOf: fixture.secretsFile) == before, "\(arguments) changed the store")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.wifHome.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test func anOldPlaintextSessionFileIsMovedIntoTheStore() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "uma"]).status == 0)
        var stored = try #require(try fixture.storedSession())
        #expect(try fixture.run(["logout"]).status == 0)

        // The same sign-in as an earlier version wrote it: ISO 8601 dates, credentials now expired.
        func iso(_ value: Any?) -> Any? {
            (value as? Double).map { Date(timeIntervalSinceReferenceDate: $0).formatted(.iso8601) }
        }
        var credentials = try #require(stored["credentials"] as? [String: Any])
        let oldKey = credentials["accessKeyId"] as? String
        credentials["expiration"] = "2020-01-01T00:00:00Z"
        var token = try #require(stored["token"] as? [String: Any])
        token["expiration"] = iso(token["expiration"])
        stored["credentials"] = credentials
        stored["token"] = token
        stored["signedInAt"] = iso(stored["signedInAt"])
        let legacy = fixture.wifHome.appendingPathComponent("session.json")
        try JSONSerialization.data(withJSONObject: stored).write(to: legacy)

        let list = try fixture.run(["list"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(!FileManager.default.fileExists(atPath: legacy.path), "the plaintext file is deleted")
        let migrated = try #require(try fixture.storedSession())
        #expect(migrated["subject"] as? String == "uma")
        let renewed = (migrated["credentials"] as? [String: Any])?["accessKeyId"] as? String
        #expect(renewed != nil && renewed != oldKey, "the migrated token renewed the credentials")
    }
}
