import Foundation
import Testing
@testable import WIFCredentials

/// Every way a store can fail to open: each gives its own error naming the file, and neither `load`
/// nor `update` nor `save` changes the file.
@Suite struct EncryptedStoreFailureTests {
    /// A store written with the quick scrypt settings: header of 99 bytes (32-byte salt), then the
    /// ciphertext and the 16-byte tag.
    struct Fixture {
        let folder: StoreFolder
        let file: URL
        let original: Data

        init() throws {
            self.folder = try StoreFolder()
            self.file = self.folder.file("secrets.enc")
            try StoreTesting.passphraseStore(self.file).save(try StoreTesting.sampleDocument())
            self.original = try Data(contentsOf: self.file)
        }

        func write(_ bytes: [UInt8]) throws {
            try Data(bytes).write(to: self.file)
        }

        /// Opens the store each way with the right passphrase, expecting `code` every time and the file
        /// unchanged afterwards; returns the error of `load`.
        func expectEveryOpening(
            _ code: WIFCredentialsError.Code,
            passphrase: String = "correct horse battery staple",
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> WIFCredentialsError? {
            let before = try Data(contentsOf: self.file)
            let store = StoreTesting.passphraseStore(self.file, passphrase)
            let error = StoreTesting.expectError(code, sourceLocation: sourceLocation) { _ = try store.load() }
            StoreTesting.expectError(code, sourceLocation: sourceLocation) {
                try store.update { try $0.setValue("x", forKey: "note") }
            }
            StoreTesting.expectError(code, sourceLocation: sourceLocation) { try store.save(StoreDocument()) }
            #expect(try Data(contentsOf: self.file) == before, "the file was changed", sourceLocation: sourceLocation)
            for secret in StoreTesting.secrets {
                #expect(error?.reason.contains(secret) != true, sourceLocation: sourceLocation)
            }
            return error
        }
    }

    @Test func aWrongPassphraseIsSaidPlainly() throws {
        let fixture = try Fixture()
        defer { fixture.folder.remove() }
        let error = try fixture.expectEveryOpening(.storeWrongKey, passphrase: "wrong horse")
        #expect(error?.reason == "the passphrase does not open the store \(fixture.file.path) (a wrong passphrase, or a header that was altered)")
        #expect(!(error?.description.contains("wrong horse") ?? true))
        // The right one still opens it.
        #expect(try StoreTesting.passphraseStore(fixture.file).load() == (try StoreTesting.sampleDocument()))
    }

    struct Alteration: Sendable, CustomStringConvertible {
        var name: String
        /// The byte to flip: negative counts from the end.
        var offset: Int
        var mask: UInt8 = 0x01
        var code: WIFCredentialsError.Code
        var description: String { self.name }
    }

    /// Any byte changed is caught: the salt and KDF settings change the key (so the key check fails),
    /// the rest fails AES-GCM authentication or the header's own checks.
    @Test(arguments: [
        Alteration(name: "KDF cost", offset: 11, code: .storeWrongKey),
        Alteration(name: "salt", offset: 20, code: .storeWrongKey),
        Alteration(name: "key check", offset: 50, code: .storeWrongKey),
        Alteration(name: "nonce", offset: 80, code: .storeDamaged),
        Alteration(name: "first ciphertext byte", offset: 99, code: .storeDamaged),
        Alteration(name: "middle ciphertext byte", offset: 160, code: .storeDamaged),
        Alteration(name: "tag", offset: -1, code: .storeDamaged),
        Alteration(name: "key derivation id", offset: 10, code: .storeDamaged),
        Alteration(name: "salt length", offset: 14, mask: 0x80, code: .storeDamaged),
    ])
    func anAlteredByteIsCaught(_ alteration: Alteration) throws {
        let fixture = try Fixture()
        defer { fixture.folder.remove() }
        var bytes = [UInt8](fixture.original)
        let offset = alteration.offset >= 0 ? alteration.offset : bytes.count + alteration.offset
        bytes[offset] ^= alteration.mask
        try fixture.write(bytes)
        _ = try fixture.expectEveryOpening(alteration.code)
    }

    @Test func alteredContentsAreReportedAsAltered() throws {
        let fixture = try Fixture()
        defer { fixture.folder.remove() }
        var bytes = [UInt8](fixture.original)
        bytes[120] ^= 0x80
        try fixture.write(bytes)
        let error = try fixture.expectEveryOpening(.storeDamaged)
        #expect(error?.reason == "the store \(fixture.file.path) was altered or damaged: its contents fail authentication")
    }

    @Test func aTooLongLengthIsTruncationAndExtraBytesAreDamage() throws {
        let fixture = try Fixture()
        defer { fixture.folder.remove() }
        var bytes = [UInt8](fixture.original)
        // The length field (bytes 91..<99) one more than the ciphertext: the file is one byte short.
        let length = bytes[91..<99].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } + 1
        for index in 0..<8 { bytes[91 + index] = UInt8((length >> UInt64(56 - 8 * index)) & 0xFF) }
        try fixture.write(bytes)
        let short = try fixture.expectEveryOpening(.storeTruncated)
        #expect(short?.reason == "the store \(fixture.file.path) is truncated: \(bytes.count) of its \(bytes.count + 1) bytes are there")

        try fixture.write([UInt8](fixture.original) + [0])
        let long = try fixture.expectEveryOpening(.storeDamaged)
        #expect(long?.reason == "the store \(fixture.file.path) is damaged: 1 unexpected bytes follow its end")
    }

    @Test(arguments: [0, 3, 8, 9, 12, 14, 40, 98, 99, 120, -16, -1])
    func aTruncatedStoreIsSaidToBeTruncated(keeping count: Int) throws {
        let fixture = try Fixture()
        defer { fixture.folder.remove() }
        let bytes = [UInt8](fixture.original)
        let kept = count >= 0 ? count : bytes.count + count
        try fixture.write(Array(bytes.prefix(kept)))
        let error = try fixture.expectEveryOpening(.storeTruncated)
        let reason = try #require(error?.reason)
        #expect(reason.hasPrefix("the store \(fixture.file.path) is "))
        #expect(reason.contains(kept == 0 ? "empty (0 bytes)" : "truncated: \(kept)"), "\(reason)")
    }

    @Test func aNewerFormatVersionIsRefusedBeforeAnyKeyIsMade() throws {
        let fixture = try Fixture()
        defer { fixture.folder.remove() }
        var bytes = [UInt8](fixture.original)
        bytes[8] = 0
        bytes[9] = 2
        // A newer format may lay out the rest differently: a short file must still say "newer".
        try fixture.write(Array(bytes.prefix(20)))
        let error = try fixture.expectEveryOpening(.storeNewerVersion)
        #expect(error?.reason == "the store \(fixture.file.path) has format version 2, newer than version 1 that this version reads; use a newer release to open it")
        StoreTesting.expectError(.storeNewerVersion) { _ = try EncryptedStore.protection(ofStoreAt: fixture.file) }
    }

    @Test func versionZeroIsDamage() throws {
        let fixture = try Fixture()
        defer { fixture.folder.remove() }
        var bytes = [UInt8](fixture.original)
        bytes[9] = 0
        try fixture.write(bytes)
        let error = try fixture.expectEveryOpening(.storeDamaged)
        #expect(error?.reason == "the store \(fixture.file.path) is damaged: its format version is 0")
    }

    @Test(arguments: ["{\"items\":{}}", "WIFSTOR!", "plain text that is longer than a header", "\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}", "WIF"])
    func aForeignFileIsNotAStore(_ text: String) throws {
        let fixture = try Fixture()
        defer { fixture.folder.remove() }
        try fixture.write(Array(text.utf8))
        if text == "WIF" {
            // A prefix of the magic is a store cut short, not a foreign file.
            _ = try fixture.expectEveryOpening(.storeTruncated)
            return
        }
        let error = try fixture.expectEveryOpening(.notAStore)
        #expect(error?.reason == "\(fixture.file.path) is not an encrypted store: it does not start with \"WIFSTORE\"")
    }

    @Test func aFolderAtTheStorePathIsNotAStore() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        let file = folder.file("secrets.enc")
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
        let error = StoreTesting.expectError(.notAStore) { _ = try StoreTesting.passphraseStore(file).load() }
        #expect(error?.reason == "\(file.path) is not a regular file, so not a store")
    }

    @Test func anUnreadableStoreNamesTheSystemsReason() throws {
        let folder = try StoreFolder()
        defer { folder.remove() }
        // A file where a folder is expected cannot be read even by root.
        try Data("x".utf8).write(to: folder.file("blocker"))
        let file = folder.file("blocker/secrets.enc")
        let error = StoreTesting.expectError(.storeIO) { _ = try StoreTesting.passphraseStore(file).load() }
        #expect(error?.reason == "cannot read the store \(file.path): Not a directory")
        let write = StoreTesting.expectError(.storeIO) { try StoreTesting.passphraseStore(file).save(try StoreTesting.sampleDocument()) }
        #expect(write?.reason.contains(folder.file("blocker").path) == true, "\(write?.reason ?? "")")
        #expect(try Data(contentsOf: folder.file("blocker")) == Data("x".utf8))
    }

    @Test func aKDFSettingOutOfBoundsIsDamageNotAHugeAllocation() throws {
        let fixture = try Fixture()
        defer { fixture.folder.remove() }
        var bytes = [UInt8](fixture.original)
        bytes[11] = 30  // N = 2^30 would need 128 GiB
        try fixture.write(bytes)
        let error = try fixture.expectEveryOpening(.storeDamaged)
        #expect(error?.reason == "the store \(fixture.file.path) is damaged: its scrypt settings are out of bounds (scrypt cost log2(N) must be 10 to 20, not 30)")
    }

    struct ScryptCase: Sendable, CustomStringConvertible {
        var costLog2: UInt8
        var blockSize: UInt8
        var parallelism: UInt8
        var message: String
        var description: String { self.message }
    }

    @Test(arguments: [
        ScryptCase(costLog2: 9, blockSize: 8, parallelism: 1, message: "scrypt cost log2(N) must be 10 to 20, not 9"),
        ScryptCase(costLog2: 21, blockSize: 8, parallelism: 1, message: "scrypt cost log2(N) must be 10 to 20, not 21"),
        ScryptCase(costLog2: 14, blockSize: 0, parallelism: 1, message: "scrypt block size r must be 1 to 16, not 0"),
        ScryptCase(costLog2: 14, blockSize: 17, parallelism: 1, message: "scrypt block size r must be 1 to 16, not 17"),
        ScryptCase(costLog2: 14, blockSize: 8, parallelism: 0, message: "scrypt parallelism p must be 1 to 4, not 0"),
        ScryptCase(costLog2: 14, blockSize: 8, parallelism: 5, message: "scrypt parallelism p must be 1 to 4, not 5"),
        ScryptCase(costLog2: 20, blockSize: 16, parallelism: 1, message: "scrypt settings N=2^20, r=16 need 2048 MiB, more than 1024 MiB"),
        ScryptCase(costLog2: 16, blockSize: 1, parallelism: 1, message: "scrypt cost N=2^16 must be below 2^(16 r) = 2^16"),
    ])
    func scryptSettingsOutOfBoundsAreRefused(_ scrypt: ScryptCase) {
        let error = StoreTesting.expectError(.invalidParameter) {
            _ = try EncryptedStore.ScryptParameters(costLog2: scrypt.costLog2, blockSize: scrypt.blockSize, parallelism: scrypt.parallelism)
        }
        #expect(error?.reason == scrypt.message)
    }
}
