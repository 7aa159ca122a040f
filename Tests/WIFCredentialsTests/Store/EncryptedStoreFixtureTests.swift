import Foundation
import Testing
@testable import WIFCredentials

/// Stores written by an independent implementation of the documented format (`Fixtures/store`) open,
/// so the format and the key derivation cannot drift unnoticed.
@Suite struct EncryptedStoreFixtureTests {
    static func fixture(_ name: String) throws -> URL {
        let root = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return root.appendingPathComponent("store").appendingPathComponent(name)
    }

    static func expectFixtureDocument(_ document: StoreDocument, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(document.keys == ["note", "sts.cache"], sourceLocation: sourceLocation)
        #expect(try document.value(String.self, forKey: "note") == "written by make-fixtures.py", sourceLocation: sourceLocation)
        let credentials = try #require(try document.credentials(forKey: "sts.cache"), sourceLocation: sourceLocation)
        #expect(credentials.accessKeyId == "ASIAFIXTURE000000001", sourceLocation: sourceLocation)
        #expect(credentials.secretAccessKey == "fixture-secret-access-key", sourceLocation: sourceLocation)
        #expect(credentials.sessionToken == "fixture-session-token", sourceLocation: sourceLocation)
        #expect(credentials.expiration == Date(timeIntervalSince1970: 1_900_000_000), sourceLocation: sourceLocation)
    }

    @Test func aVersionOnePassphraseStoreOpens() throws {
        let file = try Self.fixture("v1-passphrase.enc")
        #expect(try EncryptedStore.protection(ofStoreAt: file)?.kind == .passphrase)
        // The passphrase typed with a decomposed "é" opens it too.
        let store = EncryptedStore(file: file, keySource: .passphrase("fixture passphrase e\u{301}"))
        try Self.expectFixtureDocument(try store.load())
        StoreTesting.expectError(.storeWrongKey) {
            _ = try EncryptedStore(file: file, keySource: .passphrase("fixture passphrase")).load()
        }
    }

    @Test func aVersionOneKeyFileStoreOpensAndKeepsItsSaltWhenUpdated() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let copy = folder.file("copy.enc")
        try FileManager.default.copyItem(at: try Self.fixture("v1-keyfile.enc"), to: copy)
        let store = EncryptedStore(file: copy, keySource: .keyFile(try Self.fixture("v1.key")))
        try Self.expectFixtureDocument(try store.load())

        let original = try [UInt8](Data(contentsOf: copy))
        try store.update { try $0.setValue(2, forKey: "added") }
        let updated = try [UInt8](Data(contentsOf: copy))
        #expect(Array(updated[0..<31]) == Array(original[0..<31]), "magic, version, key derivation and salt are kept")
        #expect(try store.load().value(Int.self, forKey: "added") == 2)
    }
}
