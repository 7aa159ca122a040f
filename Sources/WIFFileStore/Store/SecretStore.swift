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
struct SecretStore: Sendable {
    /// The store file's name in `WIF_HOME`.
    static let fileName = "secrets.enc"
    /// The variable holding the passphrase.
    static let passphraseVariable = "WIF_PASSPHRASE"
    /// The variable naming a key file.
    static let keyFileVariable = "WIF_KEY_FILE"

    let store: EncryptedStore

    var file: URL { self.store.file }

    static func file(home: URL) -> URL {
        home.appendingPathComponent(Self.fileName)
    }

    /// Chooses the key for the store in `home`.
    /// - Parameters:
    ///   - home: `WIF_HOME`.
    ///   - keyFile: `--key-file`, if given (else `WIF_KEY_FILE` is read).
    ///   - newPassphrase: Whether a store created now should be protected by a passphrase asked on the
    ///     terminal (`login --passphrase`).
    ///   - environment: The process environment.
    /// - Throws: `CommandFailure`: (auth) for a passphrase store when no passphrase can be had,
    ///   (store) when the file is not a store wif-tool can read, (usage) for a conflicting choice.
    static func open(
        home: URL,
        keyFile: String?,
        newPassphrase: Bool = false,
        environment: [String: String]
    ) throws(CommandFailure) -> SecretStore {
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
            } else if let asked = try PassphrasePrompt.ask("Passphrase for \(file.path): ") {
                source = .passphrase(asked)
            } else {
                throw CommandFailure(
                    status: .auth,
                    message: "the store \(file.path) is protected by a passphrase: set \(Self.passphraseVariable), or run on a terminal to be asked for it")
            }
        case .keyFile?:
            if newPassphrase {
                throw CommandFailure(
                    status: .usage,
                    message: "the store \(file.path) already exists and is protected by a key file; --passphrase only applies to a new store")
            }
            source = keyFilePath.map { .keyFile(Self.absolute($0)) } ?? .generatedKeyFile
        case nil:
            if let keyFilePath {
                guard !newPassphrase else {
                    throw CommandFailure(status: .usage, message: "give --passphrase or a key file (--key-file, \(Self.keyFileVariable)), not both")
                }
                source = .keyFile(Self.absolute(keyFilePath))
            } else if let passphrase {
                source = .passphrase(passphrase)
            } else if newPassphrase {
                guard let asked = try PassphrasePrompt.askNew(for: file.path) else {
                    throw CommandFailure(
                        status: .usage,
                        message: "--passphrase asks on the terminal, but standard input is not one; set \(Self.passphraseVariable) instead")
                }
                source = .passphrase(asked)
            } else {
                source = .generatedKeyFile
            }
        }
        return SecretStore(store: EncryptedStore(file: file, keySource: source))
    }

    /// The store's contents; empty when there is no store yet.
    func load() throws(CommandFailure) -> StoreDocument {
        do {
            return try self.store.load()
        } catch {
            throw Self.failure(error, file: self.file)
        }
    }

    /// Changes the store under its lock, creating it when needed; a store that is created protected
    /// only by file permissions is announced on standard error.
    func update<R>(_ body: (inout StoreDocument) throws -> R) throws -> R {
        let existed = self.store.exists
        let result: R
        do {
            result = try self.store.update(body)
        } catch let error as WIFCredentialsError {
            throw Self.failure(error, file: self.file)
        }
        if !existed, self.store.exists, let notice = self.store.protection.notice {
            FileHandle.standardError.write(Data("note: \(notice)\n".utf8))
        }
        return result
    }

    /// A store error as a one-line failure with its exit status: 3 when the key does not open the
    /// store, 8 when the file is damaged, truncated, foreign or newer, 6 when it cannot be read or
    /// written. The file is never changed by a failure, and the message says so.
    static func failure(_ error: WIFCredentialsError, file: URL) -> CommandFailure {
        let untouched = "; it was left as it is: restore it from a backup, or move it away and sign in again"
        switch error.code {
        case .storeWrongKey:
            return CommandFailure(status: .auth, message: error.reason)
        case .storeDamaged, .storeTruncated, .notAStore:
            return CommandFailure(status: .store, message: error.reason + untouched)
        case .storeNewerVersion:
            return CommandFailure(status: .store, message: error.reason + "; it was left as it is")
        case .storeIO:
            return CommandFailure(status: .io, message: error.reason)
        case .invalidParameter:
            return CommandFailure(status: .usage, message: error.reason)
        default:
            return CommandFailure(status: ExitStatus.classify(error), message: error.reason)
        }
    }

    static func absolute(_ path: String) -> URL {
        URL(fileURLWithPath: path).standardizedFileURL
    }
}
