import Crypto
import Foundation
import Synchronization
import WIFFoundation
import _CryptoExtras

extension EncryptedStore {
    /// The two keys made from the store key: one encrypts the document, one makes the key check that
    /// tells a wrong passphrase apart from an altered file.
    struct DerivedKeys: Sendable {
        let encryption: SymmetricKey
        let check: SymmetricKey

        static let info = Array("WIFSTORE v1 keys".utf8)
        static let checkLabel = Array("WIFSTORE key check".utf8)

        /// Splits 64 bytes of HKDF-SHA256 output (salted with the store's salt) into the two keys.
        init(master: SymmetricKey, salt: [UInt8]) {
            let material = HKDF<SHA256>.deriveKey(inputKeyMaterial: master, salt: salt, info: Self.info, outputByteCount: 64)
            let bytes = material.withUnsafeBytes { Array($0) }
            self.encryption = SymmetricKey(data: bytes[0..<32])
            self.check = SymmetricKey(data: bytes[32..<64])
        }

        /// The value kept in the header.
        var keyCheck: [UInt8] {
            Array(HMAC<SHA256>.authenticationCode(for: Self.checkLabel, using: self.check))
        }

        /// Whether a header's key check was made with these keys, compared in constant time.
        func matches(_ keyCheck: [UInt8]) -> Bool {
            HMAC<SHA256>.isValidAuthenticationCode(keyCheck, authenticating: Self.checkLabel, using: self.check)
        }
    }

    /// The cache key of derived keys: one store's key source gives one master key per salt and KDF.
    struct KeyCacheEntry: Hashable, Sendable {
        var salt: [UInt8]
        var scrypt: ScryptParameters?
    }

    /// Makes the store key for a header, from this store's key source.
    ///
    /// - Parameters:
    ///   - header: The header of the store being opened or written.
    ///   - creating: Whether the store is being created, so a missing key file may be made.
    /// - Throws: ``WIFCredentialsError`` `storeWrongKey` when the key source does not fit the store
    ///   (a key file for a passphrase store, a missing or malformed key file), `invalidParameter` for
    ///   an empty passphrase, `storeIO` when a key file cannot be read or written.
    func derivedKeys(for header: Header, creating: Bool) throws(WIFCredentialsError) -> DerivedKeys {
        let entry: KeyCacheEntry
        switch header.keyDerivation {
        case .scrypt(let parameters): entry = KeyCacheEntry(salt: header.salt, scrypt: parameters)
        case .keyFile: entry = KeyCacheEntry(salt: header.salt, scrypt: nil)
        }
        if let cached = self.keyCache.keys(for: entry) { return cached }
        let master: SymmetricKey
        switch (self.keySource.base, header.keyDerivation) {
        case (.passphrase(let passphrase), .scrypt(let parameters)):
            master = try Self.scrypt(passphrase: passphrase, salt: header.salt, parameters: parameters)
        case (.keyFile, .keyFile), (.generatedKeyFile, .keyFile):
            guard let keyFile = self.keyFile else {
                throw .storeWrongKey("the store \(self.file.path) needs a key file")
            }
            master = try Self.keyFileKey(at: keyFile, store: self.file, create: creating)
        case (.passphrase, .keyFile):
            throw .storeWrongKey(
                "the store \(self.file.path) is protected by a key file, not a passphrase; open it with its key file (\(Self.defaultKeyFile(forStoreAt: self.file).path) unless another was chosen)"
            )
        case (.keyFile, .scrypt), (.generatedKeyFile, .scrypt):
            throw .storeWrongKey("the store \(self.file.path) is protected by a passphrase, not a key file; give its passphrase to open it")
        }
        let keys = DerivedKeys(master: master, salt: header.salt)
        self.keyCache.insert(keys, for: entry)
        return keys
    }

    /// scrypt over the NFC form of the passphrase.
    static func scrypt(passphrase: String, salt: [UInt8], parameters: ScryptParameters) throws(WIFCredentialsError) -> SymmetricKey {
        let normalized = Array(passphrase.precomposedStringWithCanonicalMapping.utf8)
        guard !normalized.isEmpty else {
            throw .invalidParameter("the passphrase is empty")
        }
        do {
            return try KDF.Scrypt.deriveKey(
                from: normalized, salt: salt, outputByteCount: 32, rounds: 1 << Int(parameters.costLog2),
                blockSize: Int(parameters.blockSize), parallelism: Int(parameters.parallelism))
        } catch {
            throw .storeIO("cannot derive the store key with scrypt (it needs \(parameters.memory >> 20) MiB of memory): \(error)")
        }
    }

    /// Reads the 256-bit key of a key file, creating the file with a random key first when `create`
    /// is set and it does not exist.
    static func keyFileKey(at keyFile: URL, store: URL, create: Bool) throws(WIFCredentialsError) -> SymmetricKey {
        let found: [UInt8]?
        do {
            found = try StoreFiles.read(keyFile.path, limit: 4096, what: "key file")
        } catch where error.code == .notAStore {
            // A folder or a device given as the key file is the wrong key, not a damaged store.
            throw .storeWrongKey(error.reason)
        }
        if let bytes = found {
            return try Self.parseKeyFile(bytes, path: keyFile.path)
        }
        guard create else {
            throw .storeWrongKey("the key file \(keyFile.path) of the store \(store.path) is missing; the store cannot be opened without it")
        }
        let key = SymmetricKey(size: .bits256)
        let text = key.withUnsafeBytes { Data($0).base64EncodedString() } + "\n"
        if try StoreFiles.createExclusively(Array(text.utf8), at: keyFile.path, what: "key file") {
            return key
        }
        // Another process created it first: use that one.
        guard let bytes = try StoreFiles.read(keyFile.path, limit: 4096, what: "key file") else {
            throw .storeIO("cannot read the key file \(keyFile.path): it disappeared while being created")
        }
        return try Self.parseKeyFile(bytes, path: keyFile.path)
    }

    static func parseKeyFile(_ bytes: [UInt8], path: String) throws(WIFCredentialsError) -> SymmetricKey {
        let text = String(decoding: bytes, as: UTF8.self).trimming(.whitespacesAndNewlines)
        guard let data = Data(base64Encoded: text), data.count == 32 else {
            throw .storeWrongKey("the key file \(path) does not hold a store key (32 bytes in base64 on one line)")
        }
        return SymmetricKey(data: data)
    }
}

/// Keys derived for one store, so a load followed by a save runs scrypt once.
final class EncryptedStoreKeyCache: Sendable {
    private let entries = Mutex<[EncryptedStore.KeyCacheEntry: EncryptedStore.DerivedKeys]>([:])

    func keys(for entry: EncryptedStore.KeyCacheEntry) -> EncryptedStore.DerivedKeys? {
        self.entries.withLock { $0[entry] }
    }

    func insert(_ keys: EncryptedStore.DerivedKeys, for entry: EncryptedStore.KeyCacheEntry) {
        self.entries.withLock { $0[entry] = keys }
    }
}
