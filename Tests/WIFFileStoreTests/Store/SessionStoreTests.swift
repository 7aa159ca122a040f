import Foundation
import Synchronization
import Testing
import WIFCredentials
import WIFFileStore
import WIFTestSupport

/// Sign-ins are kept per account in the encrypted store, never in the clear, and a plaintext session
/// file of earlier versions is moved into the store.
@Suite struct SessionStoreTests {
    /// A `WIF_HOME` for one test, removed afterwards.
    static func withHome<T>(_ body: (URL) throws -> T) throws -> T {
        let home = TemporaryFolder.url("wif-sessions")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        return try body(home)
    }

    static func session(subject: String) -> StoredSession {
        StoredSession(
            target: ToolConfiguration.embeddedName, stsEndpoint: nil, region: "us-east-1", provider: "google", providerId: nil,
            subject: subject, roleArn: "arn:aws:iam::000000000000:role/personal-store-google", assumedRoleArn: nil,
            roleSessionName: "wif-\(subject)", bucket: "wif-personal", prefix: "google/\(subject)/", partitionTemplate: "google/{id}/",
            token: StoredSession.TokenRecord(kind: .token, value: "token-of-\(subject)"),
            credentials: StoredSession.CredentialRecord(
                AWSCredentials(accessKeyId: "ASIAEXAMPLE", secretAccessKey: "secret-of-\(subject)", sessionToken: "session-of-\(subject)")),
            signedInAt: Date(timeIntervalSince1970: 1_700_000_000))
    }

    static func store(home: URL, account: String?) throws -> SessionStore {
        let configuration = try ToolConfiguration.resolve(.init(account: account), environment: ["WIF_HOME": home.path])
        return try configuration.sessionStore(environment: [:])
    }

    @Test func eachAccountKeepsItsOwnSignIn() throws {
        try Self.withHome { home in
            let alice = try Self.store(home: home, account: nil)
            let bob = try Self.store(home: home, account: "bob")
            #expect(try alice.load() == nil)
            try alice.save(Self.session(subject: "alice"))
            try bob.save(Self.session(subject: "bob"))
            #expect(try alice.load()?.subject == "alice")
            #expect(try bob.load()?.subject == "bob")
            #expect(bob.key == "wif-tool.signin.bob")

            let file = try Data(contentsOf: home.appendingPathComponent(SecretStore.fileName))
            #expect(file.range(of: Data("secret-of-alice".utf8)) == nil)

            #expect(try bob.remove())
            #expect(try bob.load() == nil)
            #expect(try alice.load()?.subject == "alice")
            #expect(try bob.remove() == false)
        }
    }

    @Test func theDescriptionShowsNoSecrets() {
        let text = String(describing: Self.session(subject: "alice"))
        #expect(text.contains("alice"))
        #expect(!text.contains("secret-of-alice"))
        #expect(!text.contains("session-of-alice"))
        #expect(!text.contains("token-of-alice"))
    }

    @Test func anOldPlaintextSessionFileIsMovedIntoTheStore() throws {
        try Self.withHome { home in
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            let legacy = home.appendingPathComponent("session.json")
            try encoder.encode(Self.session(subject: "carol")).write(to: legacy)
            let store = try Self.store(home: home, account: nil)
            #expect(try store.load()?.subject == "carol")
            #expect(!FileManager.default.fileExists(atPath: legacy.path))
            #expect(try store.load()?.subject == "carol")
        }
    }

    @Test func aSignInFromANewerVersionIsRefused() throws {
        try Self.withHome { home in
            let store = try Self.store(home: home, account: nil)
            var session = Self.session(subject: "dave")
            session.version = 2
            try store.save(session)
            let error = #expect(throws: FileStoreError.self) { try store.load() }
            #expect(error?.code == .storeDamaged)
            #expect(error?.message.contains("has format version 2, which this wif-tool does not read") == true)
        }
    }

    /// A key file others can read (or write) is pointed out each time the store is opened, with the fix;
    /// the one the store makes itself, and one made private, are not.
    @Test func aKeyFileOthersCanReadIsPointedOut() throws {
        try Self.withHome { home in
            let notices = Mutex<[String]>([])
            let interaction = SecretStore.Interaction(askPassphrase: { _ in nil }, notice: { text in notices.withLock { $0.append(text) } })
            func exposureNotices(keyFile: String?) throws -> [String] {
                notices.withLock { $0 = [] }
                let store = try SecretStore.open(home: home, keyFile: keyFile, environment: [:], interaction: interaction)
                try store.update { document in try document.setValue(Self.session(subject: "kim"), forKey: SessionStore.keyPrefix + "default") }
                return notices.withLock { $0 }.filter { $0.contains("can be read or changed by other users") }
            }
            // The generated key file is made private.
            #expect(try exposureNotices(keyFile: nil).isEmpty)
            let generated = home.appendingPathComponent("secrets.key").path
            for mode in [0o644, 0o640, 0o604, 0o620] {
                try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: generated)
                let found = try exposureNotices(keyFile: nil)
                #expect(found.count == 1, "\(String(mode, radix: 8)): \(found)")
                #expect(found.first?.contains("\(generated) can be read") == true)
                #expect(found.first?.contains("(mode \(String(mode, radix: 8)))") == true)
                #expect(found.first?.hasSuffix("chmod 600 \(generated)") == true)
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: generated)
            #expect(try exposureNotices(keyFile: nil).isEmpty)
        }
    }

    @Test func aPassphraseStoreWithoutAPassphraseSaysHowToGiveOne() throws {
        try Self.withHome { home in
            let created = try SecretStore.open(home: home, keyFile: nil, environment: [SecretStore.passphraseVariable: "correct horse"])
            try created.update { document in try document.setValue(Self.session(subject: "erin"), forKey: SessionStore.keyPrefix + "default") }
            let error = #expect(throws: FileStoreError.self) {
                try SecretStore.open(home: home, keyFile: nil, environment: [:])
            }
            #expect(error?.code == .keyUnavailable)
            #expect(error?.message.contains("is protected by a passphrase: set WIF_PASSPHRASE") == true)
        }
    }
}
