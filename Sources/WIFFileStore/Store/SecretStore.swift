import Foundation
import WIFCredentials

/// Where wif-tool keeps its secrets: one encrypted file, `$WIF_HOME/secrets.enc`, holding every
/// account's sign-in (token, temporary credentials) and the credentials `wif-tool credentials` caches.
///
/// The key, when the store is created: a passphrase from `WIF_PASSPHRASE` or, with `login --passphrase`,
/// asked on the terminal; a key file from `--key-file` or `WIF_KEY_FILE`; otherwise a random key in
/// `$WIF_HOME/secrets.key` (mode 0600), and the user is told that the store is then protected only by
/// file permissions. Afterwards the store's header says which kind it needs, and a passphrase store
/// asks again on the terminal when `WIF_PASSPHRASE` is not set.
public struct SecretStore: Sendable {
    /// The store file's name in `WIF_HOME`.
    public static let fileName = "secrets.enc"
    /// The variable holding the passphrase.
    public static let passphraseVariable = "WIF_PASSPHRASE"
    /// The variable naming a key file.
    public static let keyFileVariable = "WIF_KEY_FILE"

    /// The encrypted file and its key.
    public let store: EncryptedStore
    /// How the store announces that it was created protected by file permissions only.
    let interaction: Interaction

    /// The store's file.
    public var file: URL { self.store.file }

    /// The store's file in `home`, `<home>/secrets.enc`.
    public static func file(home: URL) -> URL {
        home.appendingPathComponent(Self.fileName)
    }

    /// Chooses the key for the store in `home`.
    /// - Parameters:
    ///   - home: `WIF_HOME`.
    ///   - keyFile: `--key-file`, if given (else `WIF_KEY_FILE` is read).
    ///   - newPassphrase: Whether a store created now should be protected by a passphrase asked through
    ///     `interaction` (`login --passphrase`).
    ///   - environment: The process environment.
    ///   - interaction: How a passphrase is asked for and a new store announced.
    /// - Returns: The store, not yet read.
    /// - Throws: ``FileStoreError``: `keyUnavailable` for a passphrase store when no passphrase can be
    ///   had, `storeDamaged` when the file is not a store wif-tool can read, `invalidSetting` for a
    ///   conflicting choice; what `interaction` throws.
    public static func open(
        home: URL,
        keyFile: String?,
        newPassphrase: Bool = false,
        environment: [String: String],
        interaction: Interaction = .silent
    ) throws -> SecretStore {
        let file = Self.file(home: home)
        let passphrase = environment[Self.passphraseVariable].flatMap { $0.isEmpty ? nil : $0 }
        let keyFilePath = keyFile ?? environment[Self.keyFileVariable].flatMap { $0.isEmpty ? nil : $0 }
        let existing: EncryptedStore.Protection?
        do {
            existing = try EncryptedStore.protection(ofStoreAt: file)
        } catch {
            throw Self.failure(error, file: file)
        }

        let source: EncryptedStore.KeySource
        switch existing?.kind {
        case .passphrase?:
            if let passphrase {
                source = .passphrase(passphrase)
            } else if let asked = try interaction.askPassphrase(.existing(store: file)) {
                source = .passphrase(asked)
            } else {
                throw FileStoreError(
                    .keyUnavailable,
                    "the store \(file.path) is protected by a passphrase: set \(Self.passphraseVariable), or run on a terminal to be asked for it")
            }
        case .keyFile?:
            if newPassphrase {
                throw FileStoreError.invalidSetting(
                    "the store \(file.path) already exists and is protected by a key file; --passphrase only applies to a new store")
            }
            source = keyFilePath.map { .keyFile(Self.absolute($0)) } ?? .generatedKeyFile
        case nil:
            if let keyFilePath {
                guard !newPassphrase else {
                    throw FileStoreError.invalidSetting("give --passphrase or a key file (--key-file, \(Self.keyFileVariable)), not both")
                }
                source = .keyFile(Self.absolute(keyFilePath))
            } else if let passphrase {
                source = .passphrase(passphrase)
            } else if newPassphrase {
                guard let asked = try interaction.askPassphrase(.new(store: file)) else {
                    throw FileStoreError.invalidSetting(
                        "--passphrase asks on the terminal, but standard input is not one; set \(Self.passphraseVariable) instead")
                }
                source = .passphrase(asked)
            } else {
                source = .generatedKeyFile
            }
        }
        let store = EncryptedStore(file: file, keySource: source)
        if let keyFile = store.keyFile, let notice = Self.exposureNotice(keyFile: keyFile.path) {
            interaction.notice(notice)
        }
        return SecretStore(store: store, interaction: interaction)
    }

    /// What to tell the user when a key file can be read by others (any group or other permission bit),
    /// as ssh does for a private key: anyone who can read it can open the store. `nil` when the file is
    /// private or not there (yet).
    static func exposureNotice(keyFile path: String) -> String? {
        guard case .file(let permissions) = DownloadFolder.kind(of: path, in: AT_FDCWD, followingLinks: true),
            permissions & 0o077 != 0
        else { return nil }
        return "the key file \(path) can be read or changed by other users (mode \(String(permissions, radix: 8))), and it opens the store; "
            + "make it yours alone: chmod 600 \(path)"
    }

    /// The store's contents; empty when there is no store yet.
    /// - Throws: ``FileStoreError`` as ``failure(_:file:)`` describes.
    public func load() throws(FileStoreError) -> StoreDocument {
        do {
            return try self.store.load()
        } catch {
            throw Self.failure(error, file: self.file)
        }
    }

    /// Changes the store under its lock, creating it when needed; a store that is created protected
    /// only by file permissions is announced through the interaction.
    /// - Parameter body: Changes the document; what it returns is returned.
    /// - Throws: ``FileStoreError`` for the store's own failures; what `body` throws.
    public func update<R>(_ body: (inout StoreDocument) throws -> R) throws -> R {
        let existed = self.store.exists
        let result: R
        do {
            result = try self.store.update(body)
        } catch let error as WIFCredentialsError {
            throw Self.failure(error, file: self.file)
        }
        if !existed, self.store.exists, let notice = self.store.protection.notice {
            self.interaction.notice(notice)
        }
        return result
    }

    /// A store error as a one-line failure: `keyUnavailable` when the key does not open the store,
    /// `storeDamaged` when the file is damaged, truncated, foreign or newer, `fileError` when it cannot
    /// be read or written. The file is never changed by a failure, and the message says so.
    package static func failure(_ error: WIFCredentialsError, file: URL) -> FileStoreError {
        let untouched = "; it was left as it is: restore it from a backup, or move it away and sign in again"
        switch error.code {
        case .storeWrongKey:
            return FileStoreError(.keyUnavailable, error.reason)
        case .storeDamaged, .storeTruncated, .notAStore:
            return .storeDamaged(error.reason + untouched)
        case .storeNewerVersion:
            return .storeDamaged(error.reason + "; it was left as it is")
        case .storeIO:
            return .fileError(error.reason)
        case .invalidParameter:
            return .invalidSetting(error.reason)
        default:
            return FileStoreError(.credentials, error.reason, credentialsError: error)
        }
    }

    package static func absolute(_ path: String) -> URL {
        URL(fileURLWithPath: path).standardizedFileURL
    }
}
