import Foundation
import Logging
import Synchronization
import Testing
import WIFCredentials
import WIFFileStore
import WIFTestSupport

/// `wif-tool credentials` for a sign-in: the stored credentials while they last more than 15 minutes,
/// a renewal from the stored token otherwise, the store opened once; and when the AWS chain counts as
/// having found nothing.
@Suite struct SignedInCredentialsTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let passphrase = "a long passphrase for the test"

    /// Counts the passphrase questions and answers them.
    final class Questions: Sendable {
        let count = Mutex(0)
        var interaction: SecretStore.Interaction {
            SecretStore.Interaction(
                askPassphrase: { _ in
                    self.count.withLock { $0 += 1 }
                    return SignedInCredentialsTests.passphrase
                },
                notice: { _ in })
        }
    }

    /// A passphrase store in a fresh `WIF_HOME` holding the default sign-in: a remote one whose
    /// credentials expire `remaining` seconds after ``now`` and whose token expired before it.
    static func withSignIn<T>(credentialsRemaining remaining: TimeInterval, _ body: (ToolConfiguration, Questions) async throws -> T) async throws -> T {
        let home = TemporaryFolder.url("wif-signed-in")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        var session = ToolConfigurationTests.remoteSession()
        session.token = StoredSession.TokenRecord(kind: .token, value: "token-of-alice", expiration: Self.now.addingTimeInterval(-60))
        session.credentials = StoredSession.CredentialRecord(
            AWSCredentials(
                accessKeyId: "ASIASTORED", secretAccessKey: "stored-secret", sessionToken: "stored-session",
                expiration: Self.now.addingTimeInterval(remaining)))
        var configuration = try ToolConfiguration.resolve(.init(), environment: ["WIF_HOME": home.path])
        try configuration.sessionStore(environment: [SecretStore.passphraseVariable: Self.passphrase]).save(session)
        let questions = Questions()
        configuration.interaction = questions.interaction
        return try await body(configuration, questions)
    }

    @Test func storedCredentialsWithMoreThanFifteenMinutesLeftAreHandedOutAndThePassphraseIsAskedOnce() async throws {
        try await Self.withSignIn(credentialsRemaining: 20 * 60) { configuration, questions in
            let credentials = try await SignedInCredentials.get(configuration, environment: [:], logger: Logger(label: "test"), now: { Self.now })
            #expect(credentials.accessKeyId == "ASIASTORED")
            #expect(credentials.secretAccessKey == "stored-secret")
            #expect(credentials.sessionToken == "stored-session")
            #expect(credentials.expiration == Self.now.addingTimeInterval(20 * 60))
            #expect(questions.count.withLock { $0 } == 1)
        }
    }

    @Test func credentialsWithFifteenMinutesOrLessLeftAreRenewedFromTheStoredToken() async throws {
        // The file commands would still use these (they renew 2 minutes before expiry); the AWS SDKs
        // would not, so they are renewed, and the expired token says to sign in again.
        try await Self.withSignIn(credentialsRemaining: 10 * 60) { configuration, questions in
            let error = await #expect(throws: WIFCredentialsError.self) {
                try await SignedInCredentials.get(configuration, environment: [:], logger: Logger(label: "test"), now: { Self.now })
            }
            #expect(error?.code == .tokenExpired)
            #expect(error?.reason.contains("sign in again: wif-tool login --token TOKEN --provider google") == true, "\(error?.reason ?? "")")
            #expect(error?.reason.contains("token-of-alice") == false)
            #expect(questions.count.withLock { $0 } == 1)
        }
    }

    @Test func anotherEndpointOfTheCommandsOwnIsRefused() async throws {
        try await Self.withSignIn(credentialsRemaining: 3600) { configuration, _ in
            var other = configuration
            other.target = .remote(s3: try #require(URL(string: "http://127.0.0.1:7000")), sts: try #require(URL(string: "http://127.0.0.1:7000")))
            other.endpointOrigin = "WIF_ENDPOINT"
            let error = await #expect(throws: FileStoreError.self) {
                try await SignedInCredentials.get(other, environment: [:], logger: Logger(label: "test"), now: { Self.now })
            }
            #expect(error?.code == .signInRequired)
            #expect(error?.message.contains("(set by WIF_ENDPOINT)") == true)
        }
    }

    @Test func theChainHasNoSourceOnlyWithoutKeysAndWebIdentity() throws {
        let home = TemporaryFolder.url("wif-chain")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let config = home.appendingPathComponent("aws-config")
        try Data(
            """
            [profile wif]
            credential_process = wif-tool credentials

            [profile federated]
            role_arn = arn:aws:iam::123456789012:role/web
            web_identity_token_file = /tokens/web.jwt
            """.utf8
        ).write(to: config)
        let files = ["AWS_CONFIG_FILE": config.path, "AWS_SHARED_CREDENTIALS_FILE": home.appendingPathComponent("none").path]
        func hasNoSource(_ extra: [String: String], profile: String? = nil) -> Bool {
            SignedInCredentials.chainHasNoSource(environment: files.merging(extra) { $1 }, profile: profile)
        }
        #expect(hasNoSource([:]))
        // The aws CLI running `credential_process = wif-tool credentials` for AWS_PROFILE=wif.
        #expect(hasNoSource(["AWS_PROFILE": "wif"]))
        #expect(!hasNoSource(["AWS_ACCESS_KEY_ID": "AKIAHALF"]))
        #expect(!hasNoSource(["AWS_SECRET_ACCESS_KEY": "half-a-pair"]))
        #expect(!hasNoSource(["AWS_ROLE_ARN": "arn:aws:iam::123456789012:role/web", "AWS_WEB_IDENTITY_TOKEN_FILE": "/tokens/web.jwt"]))
        #expect(!hasNoSource(["AWS_ROLE_ARN": "not-an-arn", "AWS_WEB_IDENTITY_TOKEN_FILE": "/tokens/web.jwt"]))
        #expect(!hasNoSource(["AWS_PROFILE": "federated"]))
        #expect(!hasNoSource([:], profile: "federated"))
    }
}
