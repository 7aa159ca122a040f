import Foundation
import WIFCredentials
import WIFFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps each account's sign-in in the encrypted store (``SecretStore``) under
/// `wif-tool.signin.<account>`, so the token and the temporary credentials are never on disk in the
/// clear.
///
/// Earlier versions kept the sign-in in `session.json` (`session.<account>.json`) in plaintext; such a
/// file is moved into the store the first time it is read, then deleted.
public struct SessionStore: Sendable {
    /// The encrypted store the sign-in is kept in.
    public let secrets: SecretStore
    /// The named sign-in, or `nil` for the default one.
    public let account: String?
    /// The plaintext file of earlier versions.
    public let legacyFile: URL

    /// Keeps the sign-in of `account` in `secrets`, importing `legacyFile` when found.
    /// - Parameters:
    ///   - secrets: The encrypted store.
    ///   - account: The named sign-in, or `nil` for the default one.
    ///   - legacyFile: The plaintext session file of earlier versions.
    public init(secrets: SecretStore, account: String?, legacyFile: URL) {
        self.secrets = secrets
        self.account = account
        self.legacyFile = legacyFile
    }

    /// The prefix of every sign-in's key in the store.
    public static let keyPrefix = "wif-tool.signin."

    /// This account's key in the store.
    public var key: String { Self.keyPrefix + (self.account ?? "default") }

    /// The stored sign-in, or `nil` when there is none.
    /// - Throws: ``FileStoreError``: what ``SecretStore`` reports for a store it cannot open;
    ///   `storeDamaged` when the stored sign-in does not decode; `fileError` when an old session file
    ///   cannot be read or removed; `signInRequired` when it is damaged.
    public func load() throws(FileStoreError) -> StoredSession? {
        let document = try self.secrets.load()
        let session: StoredSession?
        do {
            session = try document.value(StoredSession.self, forKey: self.key)
        } catch {
            throw FileStoreError.storeDamaged(
                "the stored sign-in in \(self.secrets.file.path) is damaged (\(error.reason)); run 'wif-tool login' again")
        }
        if let session {
            try Self.check(session, path: self.secrets.file.path)
            try self.removeLegacyFile()
            return session
        }
        return try self.importLegacyFile()
    }

    /// Stores the sign-in, replacing the account's previous one, and removes an old plaintext session
    /// file.
    /// - Throws: ``FileStoreError`` as ``SecretStore`` reports it.
    public func save(_ session: StoredSession) throws(FileStoreError) {
        do {
            try self.secrets.update { document in
                try document.setValue(session, forKey: self.key)
            }
        } catch let failure as FileStoreError {
            throw failure
        } catch let error as WIFCredentialsError {
            throw SecretStore.failure(error, file: self.secrets.file)
        } catch {
            throw FileStoreError(.failure, "cannot save the sign-in: \(error)")
        }
        try self.removeLegacyFile()
    }

    /// Removes the sign-in.
    /// - Returns: Whether there was one.
    /// - Throws: ``FileStoreError`` as ``SecretStore`` reports it; `fileError` when an old session file
    ///   cannot be removed.
    public func remove() throws(FileStoreError) -> Bool {
        var removed = false
        if self.secrets.store.exists {
            do {
                removed = try self.secrets.update { document in document.removeValue(forKey: self.key) }
            } catch let failure as FileStoreError {
                throw failure
            } catch {
                throw FileStoreError(.failure, "cannot remove the sign-in: \(error)")
            }
        }
        if try self.removeLegacyFile() { removed = true }
        return removed
    }

    /// Refuses a sign-in written by a newer wif-tool.
    static func check(_ session: StoredSession, path: String) throws(FileStoreError) {
        guard session.version == 1 else {
            throw FileStoreError.storeDamaged(
                "the sign-in stored in \(path) has format version \(session.version), which this wif-tool does not read; run 'wif-tool login' again")
        }
    }

    /// Moves an old plaintext session file into the store and deletes it.
    private func importLegacyFile() throws(FileStoreError) -> StoredSession? {
        let data: Data
        do {
            data = try Data(contentsOf: self.legacyFile)
        } catch {
            if !FileManager.default.fileExists(atPath: self.legacyFile.path) { return nil }
            throw FileStoreError.fileError("cannot read the old session file \(self.legacyFile.path): \(FileFailure.reason(error, path: self.legacyFile.path))")
        }
        let session: StoredSession
        do {
            session = try Self.legacyDecoder.decode(StoredSession.self, from: data)
        } catch {
            throw FileStoreError.signInRequired(
                "the old session file \(self.legacyFile.path) is damaged; delete it and run 'wif-tool login' again")
        }
        try Self.check(session, path: self.legacyFile.path)
        try self.save(session)
        return session
    }

    /// Deletes the old plaintext session file, if there is one.
    @discardableResult
    private func removeLegacyFile() throws(FileStoreError) -> Bool {
        if unlink(self.legacyFile.path) == 0 { return true }
        if errno == ENOENT { return false }
        throw FileStoreError.fileError(
            "cannot remove the old plaintext session file \(self.legacyFile.path): \(String(cString: strerror(errno)))")
    }

    /// How earlier versions wrote dates.
    static let legacyDecoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
