import Crypto
import Foundation
import Testing
@testable import WIFCredentials
import WIFTestSupport

/// ``EncryptedStore``: round trips with each key source, the file's protection, atomic writes, the
/// lock between writers, and the header.
@Suite struct EncryptedStoreTests {
    @Test func aPassphraseStoreRoundTripsAndKeepsNoSecretInTheClear() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let file = folder.file("secrets.enc")
        let document = try StoreTesting.sampleDocument()
        try StoreTesting.passphraseStore(file).save(document)

        #expect(try StoreTesting.mode(file) == 0o600)
        // A new instance (no cached key) opens it with the passphrase.
        let loaded = try StoreTesting.passphraseStore(file).load()
        #expect(loaded == document)
        #expect(try loaded.value(SampleTokens.self, forKey: "oauth.work")?.refreshToken == StoreTesting.refreshToken)
        #expect(try loaded.credentials(forKey: "sts.cache.build") == StoreTesting.credentials)
        #expect(try loaded.credentials(forKey: "sts.cache.build")?.expiration == StoreTesting.credentials.expiration)

        // Nothing but the store and its lock file, and no secret in either.
        let files = try folder.contents()
        #expect(Set(files.map { URL(fileURLWithPath: $0.path).lastPathComponent }) == ["secrets.enc", "secrets.enc.lock"])
        for (path, bytes) in files {
            for secret in StoreTesting.secrets {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(path) holds a secret in the clear")
            }
            #expect(bytes.range(of: Data("oauth.work".utf8)) == nil, "\(path) shows the document's keys")
        }
        #expect(try EncryptedStore.protection(ofStoreAt: file)?.kind == .passphrase)
        #expect(StoreTesting.passphraseStore(file).protection.notice == nil)
    }

    @Test func withNoPassphraseAKeyFileIsMadeBesideTheStoreAndTheStoreSaysSo() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let file = folder.file("secrets.enc")
        let store = EncryptedStore(file: file)
        #expect(!store.exists)
        let recorder = TestLogRecorder()
        try store.save(try StoreTesting.sampleDocument(), logger: recorder.logger)

        let keyFile = folder.file("secrets.key")
        #expect(store.keyFile == keyFile.standardizedFileURL)
        #expect(try StoreTesting.mode(keyFile) == 0o600)
        #expect(try StoreTesting.mode(file) == 0o600)
        let keyText = try String(contentsOf: keyFile, encoding: .utf8)
        #expect(Data(base64Encoded: keyText.trimmingCharacters(in: .newlines))?.count == 32)

        let notice = try #require(store.protection.notice)
        #expect(notice.contains("protected only by file permissions"))
        #expect(notice.contains(keyFile.path))
        #expect(store.protection.description.contains("protected only by file permissions"))
        let protection = try #require(try EncryptedStore.protection(ofStoreAt: file))
        #expect(protection.kind == .keyFile)
        #expect(protection.protectedOnlyByFilePermissions)
        #expect(protection.notice == notice)
        // Creating the store says so in the log, at info, with the same statement.
        let created = try #require(recorder.records.first { $0.message == "created the encrypted store" })
        #expect(created.level == .info)
        #expect(created.metadata["wif.store.notice"] == notice)
        #expect(!recorder.text.contains(keyText.trimmingCharacters(in: .newlines)))

        // Another instance opens it with the same key file; a second store gets a different key.
        #expect(try EncryptedStore(file: file).load() == (try StoreTesting.sampleDocument()))
        let other = folder.file("other.enc")
        try EncryptedStore(file: other).save(try StoreTesting.sampleDocument())
        #expect(try String(contentsOf: folder.file("other.key"), encoding: .utf8) != keyText)
    }

    @Test func aChosenKeyFileIsCreatedWithTheStoreAndThenRequired() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let file = folder.file("secrets.enc")
        let keyFile = folder.file("keys/store.key")
        let store = EncryptedStore(file: file, keySource: .keyFile(keyFile))
        #expect(store.protection.notice == nil, "a chosen key file may live elsewhere, so no warning")
        try store.save(try StoreTesting.sampleDocument())
        #expect(try StoreTesting.mode(keyFile) == 0o600)
        #expect(!FileManager.default.fileExists(atPath: folder.file("secrets.key").path))
        #expect(try EncryptedStore(file: file, keySource: .keyFile(keyFile)).load() == (try StoreTesting.sampleDocument()))

        // Without the key file the store does not open, and no new key file is made.
        try FileManager.default.removeItem(at: keyFile)
        let missing = StoreTesting.expectError(.storeWrongKey) { _ = try EncryptedStore(file: file, keySource: .keyFile(keyFile)).load() }
        #expect(missing?.reason == "the key file \(keyFile.path) of the store \(file.path) is missing; the store cannot be opened without it")
        StoreTesting.expectError(.storeWrongKey) {
            _ = try EncryptedStore(file: file, keySource: .keyFile(keyFile)).update { $0.removeValue(forKey: "oauth.work") }
        }
        #expect(!FileManager.default.fileExists(atPath: keyFile.path))

        // A key file that holds something else is refused by name.
        try Data("not a key\n".utf8).write(to: keyFile)
        let malformed = StoreTesting.expectError(.storeWrongKey) { _ = try EncryptedStore(file: file, keySource: .keyFile(keyFile)).load() }
        #expect(malformed?.reason == "the key file \(keyFile.path) does not hold a store key (32 bytes in base64 on one line)")
        // A well-formed but different key is a wrong key.
        try Data(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64EncodedString().utf8).write(to: keyFile)
        let wrong = StoreTesting.expectError(.storeWrongKey) { _ = try EncryptedStore(file: file, keySource: .keyFile(keyFile)).load() }
        #expect(wrong?.reason.hasPrefix("the key file \(keyFile.path) does not open the store \(file.path)") == true)
    }

    @Test func anExistingKeyFileIsUsedForANewStore() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let keyFile = folder.file("shared.key")
        let key = SymmetricKey(size: .bits256)
        try Data((key.withUnsafeBytes { Data($0) }.base64EncodedString() + "\n").utf8).write(to: keyFile)
        let before = try Data(contentsOf: keyFile)
        try EncryptedStore(file: folder.file("a.enc"), keySource: .keyFile(keyFile)).save(try StoreTesting.sampleDocument())
        #expect(try Data(contentsOf: keyFile) == before)
        #expect(try EncryptedStore(file: folder.file("a.enc"), keySource: .keyFile(keyFile)).load().keys == ["oauth.work", "sts.cache.build"])
    }

    @Test func theKindOfKeyMustMatchTheStore() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let passphraseFile = folder.file("p.enc")
        try StoreTesting.passphraseStore(passphraseFile).save(try StoreTesting.sampleDocument())
        let asKeyFile = StoreTesting.expectError(.storeWrongKey) { _ = try EncryptedStore(file: passphraseFile).load() }
        #expect(asKeyFile?.reason == "the store \(passphraseFile.path) is protected by a passphrase, not a key file; give its passphrase to open it")
        #expect(!FileManager.default.fileExists(atPath: folder.file("p.key").path), "no key file is made for a passphrase store")

        let keyFileStore = folder.file("k.enc")
        try EncryptedStore(file: keyFileStore).save(try StoreTesting.sampleDocument())
        let asPassphrase = StoreTesting.expectError(.storeWrongKey) { _ = try StoreTesting.passphraseStore(keyFileStore).load() }
        #expect(asPassphrase?.reason.hasPrefix("the store \(keyFileStore.path) is protected by a key file, not a passphrase") == true)
    }

    @Test func thePassphraseIsNormalisedAndMustNotBeEmpty() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let file = folder.file("s.enc")
        // "é" precomposed and as "e" + combining acute accent.
        try StoreTesting.passphraseStore(file, "caf\u{E9} cr\u{E8}me").save(try StoreTesting.sampleDocument())
        #expect(try StoreTesting.passphraseStore(file, "cafe\u{301} cre\u{300}me").load().keys == ["oauth.work", "sts.cache.build"])
        let empty = StoreTesting.expectError(.invalidParameter) { try StoreTesting.passphraseStore(folder.file("e.enc"), "").save(try StoreTesting.sampleDocument()) }
        #expect(empty?.reason == "the passphrase is empty")
        #expect(!FileManager.default.fileExists(atPath: folder.file("e.enc").path))
    }

    @Test func theDefaultScryptSettingsOpenTheirOwnStore() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let file = folder.file("default.enc")
        let store = EncryptedStore(file: file, keySource: .passphrase("a long passphrase"))
        #expect(store.configuration.scrypt == .default)
        #expect(EncryptedStore.ScryptParameters.default.memory == 128 << 20)
        try store.save(try StoreTesting.sampleDocument())
        let bytes = try [UInt8](Data(contentsOf: file))
        #expect(Array(bytes[10...13]) == [1, 17, 8, 1], "scrypt, N = 2^17, r = 8, p = 1 in the header")
        #expect(try EncryptedStore(file: file, keySource: .passphrase("a long passphrase")).load().keys == ["oauth.work", "sts.cache.build"])
    }

    @Test func eachStoreHasItsOwnSaltAndEachWriteItsOwnNonce() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let (a, b) = (folder.file("a.enc"), folder.file("b.enc"))
        try StoreTesting.passphraseStore(a).save(try StoreTesting.sampleDocument())
        try StoreTesting.passphraseStore(b).save(try StoreTesting.sampleDocument())
        let first = try [UInt8](Data(contentsOf: a))
        let other = try [UInt8](Data(contentsOf: b))
        let saltRange = 15..<47
        #expect(first[14] == 32, "a 32-byte salt")
        #expect(first[saltRange] != other[saltRange])

        // Saving again keeps the salt and KDF settings but changes the nonce.
        let store = StoreTesting.passphraseStore(a)
        try store.update { try $0.setValue("second", forKey: "note") }
        let second = try [UInt8](Data(contentsOf: a))
        #expect(first[0..<47] == second[0..<47])
        let nonceRange = 79..<91
        #expect(first[nonceRange] != second[nonceRange])
    }

    @Test func anUnchangedUpdateWritesNothingAndAnEmptyOneCreatesNothing() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let file = folder.file("s.enc")
        let store = StoreTesting.passphraseStore(file)
        let count = try store.update { $0.keys.count }
        #expect(count == 0)
        #expect(!store.exists, "reading an absent store creates nothing")
        #expect(try store.load().isEmpty)

        try store.save(try StoreTesting.sampleDocument())
        let before = try Data(contentsOf: file)
        try store.update { document in
            _ = try document.value(SampleTokens.self, forKey: "oauth.work")
        }
        #expect(try Data(contentsOf: file) == before, "an update that changes nothing does not rewrite the file")
        // A throwing update writes nothing either.
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try store.update { document in
                document.removeValue(forKey: "oauth.work")
                throw Stop()
            }
        }
        #expect(try Data(contentsOf: file) == before)
    }

    @Test func writesLeaveNoTemporaryFilesAndKeepTheMode() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let file = folder.file("nested/deeper/s.enc")
        let store = StoreTesting.passphraseStore(file)
        for index in 0..<5 {
            try store.update { try $0.setValue(index, forKey: "counter") }
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path).sorted()
        #expect(names == ["s.enc", "s.enc.lock"])
        #expect(try StoreTesting.mode(file) == 0o600)
        #expect(try StoreTesting.mode(file.deletingLastPathComponent()) == 0o700, "a created folder is private")
        #expect(try store.load().value(Int.self, forKey: "counter") == 4)
        #expect(try store.remove())
        #expect(!store.exists)
        #expect(try store.remove() == false)
    }

    @Test func concurrentUpdatesFromSeparateOpenersLoseNothing() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let file = folder.file("shared.enc")
        try EncryptedStore(file: file).save(StoreDocument())
        let failures = FailureList()
        // Separate instances open separate lock descriptors, as separate processes would.
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            let store = EncryptedStore(file: file)
            for _ in 0..<10 {
                do {
                    try store.update { document in
                        let value = try document.value(Int.self, forKey: "count") ?? 0
                        try document.setValue(value + 1, forKey: "count")
                    }
                } catch {
                    failures.append("worker \(worker): \(error)")
                }
            }
        }
        #expect(failures.all.isEmpty)
        #expect(try EncryptedStore(file: file).load().value(Int.self, forKey: "count") == 40)
    }

    @Test func descriptionsShowNoSecret() throws {
        let source = EncryptedStore.KeySource.passphrase("hunter2-passphrase")
        #expect(!source.description.contains("hunter2"))
        #expect(source.isPassphrase)
        let store = EncryptedStore(file: URL(fileURLWithPath: "/tmp/x.enc"), keySource: source)
        #expect(!store.description.contains("hunter2"))
        #expect(!"\(store)".contains("hunter2"))
        let document = try StoreTesting.sampleDocument()
        #expect(document.description == "StoreDocument(keys: [oauth.work, sts.cache.build])")
    }
}

/// Collects failures from several threads.
final class FailureList: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func append(_ item: String) { self.lock.withLock { self.items.append(item) } }
    var all: [String] { self.lock.withLock { self.items } }
}
