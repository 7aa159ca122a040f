import Crypto
import Foundation
import Logging
import WIFHTTP

/// One file holding secrets — refresh tokens, ID tokens, cached AWS credentials — encrypted with
/// AES-256-GCM.
///
/// The key comes from a passphrase through scrypt and a random salt, or from a key file
/// (``KeySource``). The header (magic, format version, key-derivation settings, salt) is authenticated
/// as additional data, and the file is written with mode 0600 by writing a new file, flushing it and
/// renaming it into place, so a crash never leaves half a store. With no passphrase and no key file,
/// a random key is kept in a file beside the store; ``Protection/notice`` then says plainly that the
/// store is protected only by file permissions.
///
/// A store that cannot be opened is never written: a wrong passphrase, an altered, truncated or
/// foreign file, or one from a newer format each give a ``WIFCredentialsError`` naming the file and
/// what was found, and the file stays as it was.
///
/// ```swift
/// let store = EncryptedStore(file: home.appending(path: "secrets.enc"), keySource: .passphrase(passphrase))
/// try store.update { document in
///     try document.setCredentials(credentials, forKey: "sts.build")
/// }
/// let cached = try store.load().credentials(forKey: "sts.build")
/// ```
///
/// Reads and writes are synchronous file I/O (and, for a passphrase, about a fraction of a second of
/// scrypt on first use); ``update(logger:_:)`` holds a lock between processes, so concurrent commands
/// do not lose each other's changes.
public struct EncryptedStore: Sendable, CustomStringConvertible {
    /// Settings for new stores.
    public struct Configuration: Sendable {
        /// The scrypt settings for a store created with a passphrase. Existing stores keep theirs.
        public var scrypt: ScryptParameters

        /// Creates settings.
        /// - Parameter scrypt: The scrypt settings for new passphrase stores.
        public init(scrypt: ScryptParameters = .default) {
            self.scrypt = scrypt
        }
    }

    /// The store file.
    public let file: URL
    /// Where the key comes from.
    public let keySource: KeySource
    /// Settings for a new store.
    public let configuration: Configuration
    let keyCache = EncryptedStoreKeyCache()

    /// Describes a store; creates and reads nothing.
    /// - Parameters:
    ///   - file: The store file.
    ///   - keySource: Where the key comes from; by default a key file generated beside the store.
    ///   - configuration: Settings for a new store.
    public init(file: URL, keySource: KeySource = .generatedKeyFile, configuration: Configuration = .init()) {
        self.file = file.standardizedFileURL
        self.keySource = keySource
        self.configuration = configuration
    }

    /// The key file used with ``KeySource/generatedKeyFile``: the store's name with the extension
    /// `.key` (`secrets.enc` → `secrets.key`), in the same folder.
    /// - Parameter file: The store file.
    /// - Returns: The key file's URL.
    public static func defaultKeyFile(forStoreAt file: URL) -> URL {
        let base = file.pathExtension.isEmpty ? file : file.deletingPathExtension()
        return base.appendingPathExtension("key")
    }

    /// The key file this store uses, or `nil` for a passphrase.
    public var keyFile: URL? {
        switch self.keySource.base {
        case .passphrase: nil
        case .keyFile(let url): url.standardizedFileURL
        case .generatedKeyFile: Self.defaultKeyFile(forStoreAt: self.file)
        }
    }

    /// How this store is (or will be) protected by its key source.
    public var protection: Protection {
        switch self.keySource.base {
        case .passphrase:
            Protection(kind: .passphrase, store: self.file)
        case .keyFile(let url):
            Protection(kind: .keyFile, keyFile: url.standardizedFileURL, store: self.file)
        case .generatedKeyFile:
            Protection(kind: .keyFile, keyFile: self.keyFile, protectedOnlyByFilePermissions: true, store: self.file)
        }
    }

    /// How an existing store is protected, read from its header without any key, so a program knows
    /// whether to ask for a passphrase.
    /// - Parameter file: The store file.
    /// - Returns: ``Protection`` (for a key-file store, `keyFile` is the default one beside it and
    ///   `protectedOnlyByFilePermissions` whether that file exists), or `nil` when there is no file.
    /// - Throws: ``WIFCredentialsError`` `notAStore`, `storeTruncated`, `storeNewerVersion`,
    ///   `storeDamaged` or `storeIO`.
    public static func protection(ofStoreAt file: URL) throws(WIFCredentialsError) -> Protection? {
        let file = file.standardizedFileURL
        guard let bytes = try StoreFiles.read(file.path, limit: Self.maximumFileLength, what: "store") else { return nil }
        let header = try Header.parse(bytes, path: file.path).header
        switch header.keyDerivation {
        case .scrypt:
            return Protection(kind: .passphrase, store: file)
        case .keyFile:
            let keyFile = Self.defaultKeyFile(forStoreAt: file)
            let beside = FileManager.default.fileExists(atPath: keyFile.path)
            return Protection(kind: .keyFile, keyFile: beside ? keyFile : nil, protectedOnlyByFilePermissions: beside, store: file)
        }
    }

    /// Whether the store file exists.
    public var exists: Bool {
        FileManager.default.fileExists(atPath: self.file.path)
    }

    /// Reads and decrypts the store.
    /// - Parameter logger: Where to log.
    /// - Returns: The document; an empty one when the file does not exist.
    /// - Throws: ``WIFCredentialsError``: `storeWrongKey` (the passphrase or key file does not open it),
    ///   `storeDamaged` (altered: authentication failed, or a malformed header), `storeTruncated`,
    ///   `storeNewerVersion`, `notAStore`, `storeIO` (unreadable), `invalidParameter` (an empty
    ///   passphrase).
    public func load(logger: Logger = Self.noLogger) throws(WIFCredentialsError) -> StoreDocument {
        try self.read(logger: logger)?.document ?? StoreDocument()
    }

    /// Replaces the store's contents with `document`, creating the store (and a missing key file)
    /// when there is none.
    ///
    /// An existing store is opened first, under the lock of ``update(logger:_:)``: a store this key
    /// does not open (or that is damaged, or newer) is left untouched and its error thrown.
    /// - Parameters:
    ///   - document: The new contents.
    ///   - logger: Where to log.
    /// - Throws: What ``load(logger:)`` throws, and `storeIO` when the file cannot be written.
    public func save(_ document: StoreDocument, logger: Logger = Self.noLogger) throws(WIFCredentialsError) {
        do {
            try self.update(logger: logger) { $0 = document }
        } catch let error as WIFCredentialsError {
            throw error
        } catch {
            throw .storeIO("cannot save the store \(self.file.path): \(error)")
        }
    }

    /// Reads the store, lets `body` change the document, and writes it back when it changed — all
    /// while holding a lock that other processes' updates of the same store wait for.
    ///
    /// Nothing is written when the store cannot be opened, when `body` throws, or when the document
    /// is unchanged. A new store gets a random salt and, for a passphrase, the configured scrypt
    /// settings; an existing one keeps its salt and settings and gets a new random nonce.
    /// - Parameters:
    ///   - logger: Where to log.
    ///   - body: Changes the document; what it returns is returned.
    /// - Returns: What `body` returned.
    /// - Throws: What ``load(logger:)`` throws, `storeIO` when the file cannot be written, or what
    ///   `body` throws.
    public func update<R>(logger: Logger = Self.noLogger, _ body: (inout StoreDocument) throws -> R) throws -> R {
        try StoreFiles.withExclusiveLock(self.lockFile.path, what: "store \(self.file.path)") {
            let existing = try self.read(logger: logger)
            var document = existing?.document ?? StoreDocument()
            let result = try body(&document)
            if let existing, existing.document == document { return result }
            if existing == nil, document.isEmpty { return result }
            try self.write(document, reusing: existing?.header, logger: logger)
            return result
        }
    }

    /// Deletes the store file. The key file, if any, is kept: it may serve other stores.
    /// - Returns: Whether there was a store.
    /// - Throws: ``WIFCredentialsError`` `storeIO` when it cannot be removed.
    @discardableResult
    public func remove() throws(WIFCredentialsError) -> Bool {
        try StoreFiles.remove(self.file.path, what: "store")
    }

    public var description: String {
        "EncryptedStore(\(self.file.path), \(self.keySource))"
    }

    /// A logger that discards everything: the default of every method.
    public static let noLogger = Logger.noop

    // MARK: Internals

    /// The largest store file read: the header's and tag's bytes beyond the largest ciphertext.
    static let maximumFileLength = Header.length(saltLength: Header.saltLengths.upperBound) + Int(Header.maximumCiphertextLength)
        + Header.tagLength

    /// The file locked by ``update(logger:_:)``: the store's path with `.lock` appended.
    var lockFile: URL { self.file.appendingPathExtension("lock") }

    /// Reads, checks and decrypts the file; `nil` when it does not exist.
    func read(logger: Logger) throws(WIFCredentialsError) -> (document: StoreDocument, header: Header)? {
        guard let bytes = try StoreFiles.read(self.file.path, limit: Self.maximumFileLength, what: "store") else {
            return nil
        }
        let (header, headerLength) = try Header.parse(bytes, path: self.file.path)
        let keys = try self.derivedKeys(for: header, creating: false)
        guard keys.matches(header.keyCheck) else {
            // The key check depends on the salt and KDF settings too, so an altered header also lands here.
            let what = self.keySource.isPassphrase ? "passphrase" : "key file \(self.keyFile?.path ?? "")"
            let wrong = self.keySource.isPassphrase ? "a wrong passphrase" : "a wrong key file"
            throw .storeWrongKey("the \(what) does not open the store \(self.file.path) (\(wrong), or a header that was altered)")
        }
        let ciphertextEnd = headerLength + Int(header.ciphertextLength)
        let plaintext: [UInt8]
        do {
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: header.nonce),
                ciphertext: bytes[headerLength..<ciphertextEnd],
                tag: bytes[ciphertextEnd...])
            plaintext = Array(try AES.GCM.open(box, using: keys.encryption, authenticating: bytes[0..<headerLength]))
        } catch {
            throw .storeDamaged("the store \(self.file.path) was altered or damaged: its contents fail authentication")
        }
        logger.debug("opened the encrypted store", metadata: ["wif.store.file": "\(self.file.path)"])
        return (try StoreDocument(decoding: plaintext, path: self.file.path), header)
    }

    /// Encrypts and writes a document, keeping an existing header's salt and key derivation.
    func write(_ document: StoreDocument, reusing existing: Header?, logger: Logger) throws(WIFCredentialsError) {
        let plaintext = try document.encoded()
        var header: Header
        if let existing {
            header = existing
        } else {
            var salt = [UInt8](repeating: 0, count: Header.newSaltLength)
            var generator = SystemRandomNumberGenerator()
            for index in salt.indices { salt[index] = generator.next() }
            header = Header(
                keyDerivation: self.keySource.isPassphrase ? .scrypt(self.configuration.scrypt) : .keyFile,
                salt: salt, keyCheck: [], nonce: [], ciphertextLength: 0)
        }
        let keys = try self.derivedKeys(for: header, creating: existing == nil)
        let nonce = AES.GCM.Nonce()
        header.keyCheck = keys.keyCheck
        header.nonce = Array(nonce)
        header.ciphertextLength = UInt64(plaintext.count)
        let headerBytes = header.encoded()
        let box: AES.GCM.SealedBox
        do {
            box = try AES.GCM.seal(plaintext, using: keys.encryption, nonce: nonce, authenticating: headerBytes)
        } catch {
            throw .storeIO("cannot encrypt the store \(self.file.path): \(error)")
        }
        try StoreFiles.writeAtomically(headerBytes + Array(box.ciphertext) + Array(box.tag), to: self.file.path, what: "store")
        if existing == nil {
            var metadata: Logger.Metadata = ["wif.store.file": "\(self.file.path)"]
            if let notice = self.protection.notice {
                metadata["wif.store.notice"] = "\(notice)"
            }
            logger.info("created the encrypted store", metadata: metadata)
        }
    }
}
