import Foundation
import Testing
@testable import WIFCredentials

/// ``EncryptedStore`` as the ``OAuthAccountStorage`` of ``OAuthAccounts``.
@Suite struct EncryptedStoreOAuthAccountStorageTests {
    static func account(_ name: String, refreshToken: String) -> OAuthAccount {
        let configuration = OAuth2ClientConfiguration(
            issuer: "https://issuer.example", clientId: "cli", clientSecret: "client-secret-\(name)-must-stay-secret")
        let tokens = OAuth2Tokens(
            idToken: "eyJ.id-token-of-\(name).sig", accessToken: "access-token-of-\(name)", refreshToken: refreshToken,
            idTokenExpiresAt: Date(timeIntervalSince1970: 1_900_000_000), scope: "openid offline_access",
            issuer: "https://issuer.example", subject: name)
        return OAuthAccount(name: name, configuration: configuration, tokens: tokens)
    }

    @Test func accountsRoundTripBesideOtherEntriesWithoutAnySecretInTheClear() async throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let file = folder.file("secrets.enc")
        let store = StoreTesting.passphraseStore(file)
        #expect(try await store.loadAccounts() == OAuthAccountSet(), "an absent store holds no accounts")
        #expect(!store.exists)

        // Another user of the store keeps its entry.
        try store.update { try $0.setCredentials(StoreTesting.credentials, forKey: "sts.cache") }
        let work = Self.account("work", refreshToken: "refresh-work-must-stay-secret")
        let home = Self.account("home", refreshToken: "refresh-home-must-stay-secret")
        let set = OAuthAccountSet(accounts: ["work": work, "home": home], defaultAccountName: "work")
        try await store.saveAccounts(set)

        let reopened = StoreTesting.passphraseStore(file)
        #expect(try await reopened.loadAccounts() == set)
        #expect(try reopened.load().credentials(forKey: "sts.cache") == StoreTesting.credentials)
        let bytes = try Data(contentsOf: file)
        for secret in ["refresh-work-must-stay-secret", "refresh-home-must-stay-secret", "access-token-of-work", "eyJ.id-token-of-home.sig",
                       "client-secret-work-must-stay-secret"] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is in the clear")
        }

        // An empty set removes the entry and nothing else.
        try await reopened.saveAccounts(OAuthAccountSet())
        #expect(try reopened.load().keys == ["sts.cache"])
    }

    @Test func theAccountManagerKeepsItsAccountsInTheStore() async throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let file = folder.file("secrets.enc")
        let manager = OAuthAccounts(storage: EncryptedStore(file: file))
        let set = OAuthAccountSet(accounts: ["ci": Self.account("ci", refreshToken: "r-ci")], defaultAccountName: "ci")
        try await manager.storage.saveAccounts(set)
        #expect(try await OAuthAccounts(storage: EncryptedStore(file: file)).storage.loadAccounts() == set)
        #expect(FileManager.default.fileExists(atPath: folder.file("secrets.key").path))
    }

    @Test func aStoreThatDoesNotOpenIsNeverReplaced() async throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let file = folder.file("secrets.enc")
        try await StoreTesting.passphraseStore(file).saveAccounts(
            OAuthAccountSet(accounts: ["a": Self.account("a", refreshToken: "r-a")], defaultAccountName: "a"))
        let before = try Data(contentsOf: file)
        let wrong = StoreTesting.passphraseStore(file, "another passphrase")
        await #expect(throws: WIFCredentialsError.storeWrongKey("")) { _ = try await wrong.loadAccounts() }
        await #expect(throws: WIFCredentialsError.storeWrongKey("")) { try await wrong.saveAccounts(OAuthAccountSet()) }
        #expect(try Data(contentsOf: file) == before)
    }
}
