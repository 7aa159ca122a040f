import Foundation
import Logging
import Testing

@testable import WIFCredentials
import WIFTestSupport

@Suite struct OAuthAccountsTests {
    let clock = ManualTimeSource()
    let issuer: OAuthTestIssuer
    let storage = InMemoryOAuthAccountStorage()
    let accounts: OAuthAccounts

    init() {
        let clock = self.clock
        let issuer = OAuthTestIssuer(now: { clock.now })
        self.issuer = issuer
        self.accounts = OAuthAccounts(storage: self.storage, transport: { issuer }, timeSource: clock.timeSource)
    }

    func account(_ name: String, subject: String = "alice") async throws -> OAuthAccount {
        let client = try self.issuer.client(timeSource: self.clock.timeSource)
        return OAuthAccount(name: name, configuration: OAuthTestIssuer.configuration(), tokens: try await self.issuer.signIn(subject: subject, client: client))
    }

    static func expectNoCredentials(_ text: String, _ body: () async throws -> Void) async {
        await #expect {
            try await body()
        } throws: { error in
            let error = error as? WIFCredentialsError
            if error?.reason.contains(text) != true { Issue.record("got \(String(describing: error))") }
            return error?.code == .noCredentials && error?.reason.contains(text) == true
        }
    }

    @Test func theFirstAccountBecomesTheDefaultUntilAnotherIsChosen() async throws {
        await Self.expectNoCredentials("there are no accounts; sign in first") { _ = try await self.accounts.account() }
        try await self.accounts.save(try await self.account("work"))
        try await self.accounts.save(try await self.account("home", subject: "bob"))
        #expect(try await self.accounts.account().name == "work")
        try await self.accounts.setDefault("home")
        #expect(try await self.accounts.account().tokens.subject == "bob")
        try await self.accounts.save(try await self.account("play"), makeDefault: true)
        #expect(try await self.accounts.accounts().defaultAccountName == "play")
        await Self.expectNoCredentials("there is no account named 'nope'; accounts: home, play, work") {
            _ = try await self.accounts.account(named: "nope")
        }
        await Self.expectNoCredentials("no account named 'nope'") { try await self.accounts.setDefault("nope") }
    }

    @Test(arguments: ["", "has space", String(repeating: "x", count: 65), "slash/name"])
    func badNamesAreRefused(name: String) async throws {
        let account = try await self.account(name)
        await #expect(throws: WIFCredentialsError.invalidParameter("")) { try await self.accounts.save(account) }
        #expect(try await self.storage.loadAccounts().accounts.isEmpty)
    }

    @Test func removingTheDefaultPromotesTheNextAndCanRevoke() async throws {
        try await self.accounts.save(try await self.account("b"))
        try await self.accounts.save(try await self.account("c"))
        try await self.accounts.save(try await self.account("a"))
        let removed = try await self.accounts.remove(revoke: true)
        #expect(removed.name == "b")
        #expect(self.issuer.forms(to: "/revoke").last?["token"] == removed.tokens.refreshToken)
        let set = try await self.accounts.accounts()
        #expect(set.defaultAccountName == "a")
        #expect(set.accounts.keys.sorted() == ["a", "c"])
        // Its sign-in is over at the issuer.
        let client = try self.issuer.client(timeSource: self.clock.timeSource)
        await #expect(throws: WIFCredentialsError.signInRequired("")) { _ = try await client.refresh(removed.tokens) }
    }

    @Test func aFailedRevocationKeepsTheAccount() async throws {
        try await self.accounts.save(try await self.account("work"))
        var configuration = OAuthTestIssuer.configuration()
        configuration.endpoints.revocation = URL(string: "https://issuer.test/broken")
        var account = try await self.accounts.account(named: "work")
        account.configuration = configuration
        try await self.accounts.save(account)
        await #expect(throws: WIFCredentialsError.oauth("")) { try await self.accounts.remove("work", revoke: true) }
        #expect(try await self.accounts.account(named: "work").name == "work")
    }

    @Test func anAccountsTokenSourceStoresRenewedTokens() async throws {
        try await self.accounts.save(try await self.account("work"))
        let before = try await self.accounts.account(named: "work").tokens
        let source = try await self.accounts.tokenSource()
        self.clock.advance(seconds: 3500)
        let token = try await source.token(forceRefresh: false, logger: Logger.noop)
        let after = try await self.accounts.account(named: "work").tokens
        #expect(token.value == after.idToken)
        #expect(after.refreshToken != before.refreshToken)
        // The stored refresh token is the live one: a new source built from storage can renew.
        let again = try await self.accounts.tokenSource(for: "work")
        _ = try await again.refresh()
        #expect(self.issuer.refreshGrants == 2)
    }

    @Test func descriptionsNameAccountsButNoTokens() async throws {
        let account = try await self.account("work")
        try await self.accounts.save(account)
        let set = try await self.accounts.accounts()
        for text in [account.description, set.description] {
            #expect(!text.contains(account.tokens.idToken))
            #expect(!text.contains(account.tokens.refreshToken ?? "-"))
        }
        #expect(account.description.contains("subject: alice"))
        #expect(set.description.contains("work"))
    }

    @Test func concurrentChangesAreAllKept() async throws {
        let accounts = try await withThrowingTaskGroup(of: OAuthAccount.self) { group in
            for index in 0..<20 { group.addTask { try await self.account("user\(index)", subject: "u\(index)") } }
            var all: [OAuthAccount] = []
            for try await account in group { all.append(account) }
            return all
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for account in accounts { group.addTask { try await self.accounts.save(account) } }
            try await group.waitForAll()
        }
        #expect(try await self.accounts.accounts().accounts.count == 20)
    }
}
