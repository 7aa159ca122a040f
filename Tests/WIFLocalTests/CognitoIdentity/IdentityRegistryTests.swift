import Crypto
import Foundation
import Testing
import WIFTestSupport
@testable import WIFLocal

/// The identity registry: ids derived from logins, linking, conflicts, listing and its size limit.
@Suite struct IdentityRegistryTests {
    static let pool = IdentityPoolDefinition.defaultPoolId
    static let alice = IdentityRegistry.Login(key: "accounts.google.com", subject: "alice")
    static let bob = IdentityRegistry.Login(key: "wif.localhost", subject: "bob")

    @Test func idsDerivedFromALoginAreStableUnderTheSameKeyAndDifferUnderAnother() throws {
        let key = SymmetricKey(size: .bits256)
        let first = try IdentityRegistry(key: key).resolve(poolId: Self.pool, logins: [Self.alice], now: 1)
        // A fresh registry with the same key (a restarted stack) derives the same id.
        let again = try IdentityRegistry(key: key).resolve(poolId: Self.pool, logins: [Self.alice], now: 2)
        let other = try IdentityRegistry(key: SymmetricKey(size: .bits256)).resolve(poolId: Self.pool, logins: [Self.alice], now: 1)
        #expect(first.id == again.id)
        #expect(first.id != other.id)
        #expect(IdentityPoolDefinition.isPoolOrIdentityId(first.id))
        #expect(first.id.hasPrefix("us-east-1:"))
    }

    @Test func loginsMergeIntoOneIdentityAndALinkedLoginConflicts() throws {
        let registry = IdentityRegistry(key: SymmetricKey(size: .bits256))
        let alice = try registry.resolve(poolId: Self.pool, logins: [Self.alice], now: 1)
        let merged = try registry.resolve(poolId: Self.pool, logins: [Self.alice, Self.bob], now: 2)
        #expect(merged.id == alice.id)
        #expect(merged.logins == ["accounts.google.com": "alice", "wif.localhost": "bob"])
        #expect(merged.modified == 2 && merged.created == 1)
        let guest = try registry.newGuest(poolId: Self.pool, now: 3)
        #expect(throws: AWSErrorResponse.self) { _ = try registry.link([Self.bob], to: guest.id, now: 4) }
        #expect(registry.identity(guest.id)?.logins.isEmpty == true)
        #expect(try registry.link([Self.alice], to: "us-east-1:00000000-0000-4000-8000-00000000beef", now: 4) == nil)
    }

    @Test func listingPagesInCreationOrder() throws {
        let registry = IdentityRegistry(key: SymmetricKey(size: .bits256))
        let ids = try (0..<5).map { _ in try registry.newGuest(poolId: Self.pool, now: 1).id }
        let first = registry.list(poolId: Self.pool, maximum: 2, after: nil)
        #expect(first.identities.map(\.id) == Array(ids.prefix(2)))
        let rest = registry.list(poolId: Self.pool, maximum: 10, after: first.next)
        #expect(rest.identities.map(\.id) == Array(ids.dropFirst(2)))
        #expect(rest.next == nil)
    }

    @Test func aFullRegistryRefusesNewIdentitiesButServesKnownOnes() throws {
        let registry = IdentityRegistry(key: SymmetricKey(size: .bits256), maximumIdentities: 2)
        let alice = try registry.resolve(poolId: Self.pool, logins: [Self.alice], now: 1)
        _ = try registry.newGuest(poolId: Self.pool, now: 1)
        let full = try #require(throws: AWSErrorResponse.self) { _ = try registry.newGuest(poolId: Self.pool, now: 1) }
        #expect(full.code == "LimitExceededException")
        #expect(throws: AWSErrorResponse.self) { _ = try registry.resolve(poolId: Self.pool, logins: [Self.bob], now: 1) }
        #expect(try registry.resolve(poolId: Self.pool, logins: [Self.alice], now: 2).id == alice.id)
    }

    @Test func aJournaledRegistryFindsItsGuestsAndLinksAfterARestart() throws {
        let folder = try TemporaryFolder("identities")
        let path = folder.file(IdentityJournal.fileName)
        let key = SymmetricKey(size: .bits256)
        let first = try IdentityRegistry.opened(key: key, journalPath: path)
        let guest = try first.newGuest(poolId: Self.pool, now: 1)
        let other = try first.newGuest(poolId: Self.pool, now: 2)
        // The guest signs in: the login is linked to the guest's identity.
        _ = try first.link([Self.alice], to: guest.id, now: 3)
        let bob = try first.resolve(poolId: Self.pool, logins: [Self.bob], now: 4)

        let restarted = try IdentityRegistry.opened(key: key, journalPath: path)
        #expect(restarted.identity(guest.id) == IdentityRegistry.Identity(
            id: guest.id, poolId: Self.pool, logins: ["accounts.google.com": "alice"], created: 1, modified: 3))
        #expect(restarted.identity(other.id)?.logins.isEmpty == true)
        #expect(try restarted.resolve(poolId: Self.pool, logins: [Self.alice], now: 5).id == guest.id)
        #expect(try restarted.resolve(poolId: Self.pool, logins: [Self.bob], now: 5).id == bob.id)
        #expect(restarted.list(poolId: Self.pool, maximum: 10, after: nil).identities.map(\.id) == [guest.id, other.id, bob.id])
        // A login linked before the restart still conflicts with another identity.
        #expect(throws: AWSErrorResponse.self) { _ = try restarted.link([Self.alice], to: other.id, now: 6) }
        // A registry without a journal forgets its guests.
        #expect(IdentityRegistry(key: key).identity(guest.id) == nil)
    }

    @Test func aLastLineCutShortIsIgnoredAndADamagedLineIsNamed() throws {
        let folder = try TemporaryFolder("identities")
        let path = folder.file(IdentityJournal.fileName)
        let key = SymmetricKey(size: .bits256)
        let guest = try IdentityRegistry.opened(key: key, journalPath: path).newGuest(poolId: Self.pool, now: 1)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"op":"link","id":"#.utf8))
        try handle.close()
        let reopened = try IdentityRegistry.opened(key: key, journalPath: path)
        #expect(reopened.identity(guest.id) != nil)
        // The unfinished line is gone, so what is written next reads back.
        let next = try reopened.newGuest(poolId: Self.pool, now: 2)
        #expect(try IdentityRegistry.opened(key: key, journalPath: path).identity(next.id) != nil)

        try Data("{\"op\":\"create\"}\n".utf8).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: LocalStackError.self) { _ = try IdentityRegistry.opened(key: key, journalPath: path) }
        #expect(error.description.contains("line 1 of the identity journal \(path)"), "\(error)")
    }
}
