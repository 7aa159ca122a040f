import Crypto
import Foundation
import Testing
@testable import WIFCredentials

/// ``StoreDocument``: named `Codable` values and cached credentials.
@Suite struct StoreDocumentTests {
    struct Account: Codable, Equatable {
        var name: String
        var issuedAt: Date
        var scopes: [String]
    }

    @Test func valuesRoundTripThroughTheStoreWithExactDates() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let account = Account(name: "work", issuedAt: Date(timeIntervalSince1970: 1_700_000_000.123456), scopes: ["openid", "offline_access"])
        var document = StoreDocument()
        try document.setValue(account, forKey: "oauth.account.work")
        try document.setValue("plain", forKey: "note")
        try document.setCredentials(StoreTesting.credentials, forKey: "sts.one")
        let store = StoreTesting.passphraseStore(folder.file("s.enc"))
        try store.save(document)

        let loaded = try StoreTesting.passphraseStore(folder.file("s.enc")).load()
        #expect(loaded.keys == ["note", "oauth.account.work", "sts.one"])
        #expect(try loaded.value(Account.self, forKey: "oauth.account.work") == account)
        #expect(try loaded.value(String.self, forKey: "note") == "plain")
        let credentials = try #require(try loaded.credentials(forKey: "sts.one"))
        #expect(credentials == StoreTesting.credentials)
        #expect(credentials.sessionToken == StoreTesting.credentials.sessionToken)
        #expect(credentials.accountId == "123456789012")
        #expect(try loaded.value(Account.self, forKey: "absent") == nil)
        #expect(try loaded.credentials(forKey: "absent") == nil)
    }

    @Test func valuesOfUnknownTypesSurviveAnotherWritersUpdate() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let file = folder.file("s.enc")
        var document = StoreDocument()
        try document.setJSON(Data(#"{"kind":"future","nested":{"n":[1,2.5,"x"]}}"#.utf8), forKey: "future.thing")
        try StoreTesting.passphraseStore(file).save(document)
        // A writer that knows only its own key changes it; the other value is kept byte for byte.
        try StoreTesting.passphraseStore(file).update { try $0.setValue(7, forKey: "mine") }
        let loaded = try StoreTesting.passphraseStore(file).load()
        #expect(loaded.json(forKey: "future.thing") == Data(#"{"kind":"future","nested":{"n":[1,2.5,"x"]}}"#.utf8))
        #expect(try loaded.value(Int.self, forKey: "mine") == 7)
    }

    @Test func removingValuesByKeyAndPrefix() throws {
        var document = StoreDocument()
        for key in ["wif-tool.signin.default", "wif-tool.signin.work", "wif-tool.sts.abc", "oauth.accounts"] {
            try document.setValue(key, forKey: key)
        }
        #expect(document.removeValues(withPrefix: "wif-tool.signin.") == 2)
        #expect(document.keys == ["oauth.accounts", "wif-tool.sts.abc"])
        let removed = document.removeValue(forKey: "oauth.accounts")
        #expect(removed)
        let removedAgain = document.removeValue(forKey: "oauth.accounts")
        #expect(!removedAgain)
        try document.setCredentials(StoreTesting.credentials, forKey: "c")
        #expect(document.contains("c"))
        try document.setCredentials(nil, forKey: "c")
        #expect(!document.contains("c"))
        #expect(document.keys == ["wif-tool.sts.abc"])
    }

    @Test func badKeysAndValuesAreRefusedByName() throws {
        var document = StoreDocument()
        let empty = StoreTesting.expectError(.invalidParameter) { try document.setValue(1, forKey: "") }
        #expect(empty?.reason == "a store key must be 1 to 256 characters, not 0")
        let long = StoreTesting.expectError(.invalidParameter) { try document.setValue(1, forKey: String(repeating: "k", count: 257)) }
        #expect(long?.reason == "a store key must be 1 to 256 characters, not 257")
        let notJSON = StoreTesting.expectError(.invalidParameter) { try document.setJSON(Data("{nope".utf8), forKey: "k") }
        #expect(notJSON?.reason == "the value for 'k' is not JSON text")
        #expect(document.isEmpty)

        try document.setValue("a string", forKey: "k")
        let mismatch = StoreTesting.expectError(.storeDamaged) { _ = try document.value(Account.self, forKey: "k") }
        #expect(mismatch?.reason.hasPrefix("the stored value 'k' does not decode as Account") == true, "\(mismatch?.reason ?? "")")
        try document.setValue(["name": "x"], forKey: "partial")
        let missing = StoreTesting.expectError(.storeDamaged) { _ = try document.value(Account.self, forKey: "partial") }
        #expect(missing?.reason == "the stored value 'partial' does not decode as Account: no 'issuedAt'")
        StoreTesting.expectError(.storeDamaged) { _ = try document.credentials(forKey: "k") }
    }

    @Test func aDocumentFromANewerVersionIsRefused() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let file = folder.file("s.enc")
        let store = StoreTesting.passphraseStore(file)
        // Write a document that claims a newer version, encrypted properly.
        let newer = Array(#"{"formatVersion":2,"items":{}}"#.utf8)
        let document = try StoreDocument(decoding: Array(#"{"formatVersion":1,"items":{}}"#.utf8), path: "x")
        #expect(document.isEmpty)
        try store.writeRaw(newer)
        let before = try Data(contentsOf: file)
        let error = StoreTesting.expectError(.storeNewerVersion) { _ = try store.load() }
        #expect(error?.reason == "the store \(file.path) holds a document of version 2, newer than version 1 that this version reads; use a newer release to open it")
        StoreTesting.expectError(.storeNewerVersion) { try store.update { try $0.setValue(1, forKey: "x") } }
        #expect(try Data(contentsOf: file) == before)

        try store.writeRaw(Array("not json".utf8))
        let garbage = StoreTesting.expectError(.storeDamaged) { _ = try store.load() }
        #expect(garbage?.reason.hasPrefix("the store \(file.path) opened but its contents are not a store document") == true)
    }
}

extension EncryptedStore {
    /// Encrypts arbitrary plaintext as a new store, for tests of what the document decoder refuses.
    func writeRaw(_ plaintext: [UInt8]) throws {
        _ = try? self.remove()
        var salt = [UInt8](repeating: 7, count: Header.newSaltLength)
        salt[0] = 1
        let header = Header(
            keyDerivation: self.keySource.isPassphrase ? .scrypt(self.configuration.scrypt) : .keyFile,
            salt: salt, keyCheck: [], nonce: [], ciphertextLength: 0)
        let keys = try self.derivedKeys(for: header, creating: true)
        var sealedHeader = header
        let nonce = AES.GCM.Nonce()
        sealedHeader.keyCheck = keys.keyCheck
        sealedHeader.nonce = Array(nonce)
        sealedHeader.ciphertextLength = UInt64(plaintext.count)
        let headerBytes = sealedHeader.encoded()
        let box = try AES.GCM.seal(plaintext, using: keys.encryption, nonce: nonce, authenticating: headerBytes)
        try StoreFiles.writeAtomically(headerBytes + Array(box.ciphertext) + Array(box.tag), to: self.file.path, what: "store")
    }
}
