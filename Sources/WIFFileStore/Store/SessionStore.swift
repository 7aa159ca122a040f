import Foundation
import WIFCredentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A sign-in kept between commands: where the token comes from, what it federated into, and the
/// temporary credentials with their expiry.
///
/// It holds secrets (the token and the credentials), so ``description`` shows neither.
struct StoredSession: Codable, Sendable, CustomStringConvertible {
    /// Where the web-identity token is read from when the credentials need renewing.
    struct TokenRecord: Codable, Sendable {
        enum Kind: String, Codable, Sendable {
            /// A development token minted by the embedded stack.
            case development
            /// A token given on the command line.
            case token
            /// A token file, read again at every renewal (it may have been rotated).
            case file
            /// An OpenID Connect sign-in (`login --issuer`): the ID token comes from the OAuth account
            /// ``TokenRecord/account`` in the encrypted store, renewed with its refresh token.
            case oidc
        }

        var kind: Kind
        /// The token itself, for `development` and `token`.
        var value: String?
        /// The absolute path, for `file`.
        var path: String?
        /// The OAuth account's name in the encrypted store, for `oidc`.
        var account: String?
        /// The token's `exp`, when it is a JWT (opaque access tokens have none the tool can read).
        var expiration: Date?
    }

    /// Temporary credentials and their expiry.
    struct CredentialRecord: Codable, Sendable {
        var accessKeyId: String
        var secretAccessKey: String
        var sessionToken: String?
        var expiration: Date?

        init(_ credentials: AWSCredentials) {
            self.accessKeyId = credentials.accessKeyId
            self.secretAccessKey = credentials.secretAccessKey
            self.sessionToken = credentials.sessionToken
            self.expiration = credentials.expiration
        }

        var credentials: AWSCredentials {
            AWSCredentials(
                accessKeyId: self.accessKeyId, secretAccessKey: self.secretAccessKey, sessionToken: self.sessionToken,
                expiration: self.expiration)
        }
    }

    /// The format version of the stored sign-in.
    var version = 1
    /// `embedded`, or the S3 endpoint URL the session was made for.
    var target: String
    /// The STS endpoint the session federates through (`nil` on the embedded stack, whose port changes).
    var stsEndpoint: String?
    var region: String
    /// The provider name (`google`, `facebook`, …).
    var provider: String
    /// The `ProviderId` sent with opaque access tokens (`graph.facebook.com`, `www.amazon.com`).
    var providerId: String?
    /// The user id: STS's `SubjectFromWebIdentityToken`.
    var subject: String
    var roleArn: String
    /// The assumed-role ARN STS reported.
    var assumedRoleArn: String?
    /// The role session name sent to STS.
    var roleSessionName: String
    var bucket: String
    /// The user's folder in the bucket, ending in `/`.
    var prefix: String
    /// The template the folder was made from, `{id}` standing for ``subject``.
    var partitionTemplate: String
    var token: TokenRecord
    var credentials: CredentialRecord
    /// When the user signed in.
    var signedInAt: Date

    var description: String {
        "StoredSession(provider: \(self.provider), subject: \(self.subject), role: \(self.roleArn), bucket: \(self.bucket), prefix: \(self.prefix), secrets: <redacted>)"
    }
}

/// Keeps each account's sign-in in the encrypted store (``SecretStore``) under
/// `wif-tool.signin.<account>`, so the token and the temporary credentials are never on disk in the
/// clear.
///
/// Earlier versions kept the sign-in in `session.json` (`session.<account>.json`) in plaintext; such a
/// file is moved into the store the first time it is read, then deleted.
struct SessionStore: Sendable {
    let secrets: SecretStore
    /// The named sign-in, or `nil` for the default one.
    let account: String?
    /// The plaintext file of earlier versions.
    let legacyFile: URL

    /// The prefix of every sign-in's key in the store.
    static let keyPrefix = "wif-tool.signin."

    /// This account's key in the store.
    var key: String { Self.keyPrefix + (self.account ?? "default") }

    /// The stored sign-in, or `nil` when there is none.
    /// - Throws: `CommandFailure`: what ``SecretStore`` reports for a store it cannot open; (store) when
    ///   the stored sign-in does not decode; (I/O) when an old session file cannot be read or removed.
    func load() throws(CommandFailure) -> StoredSession? {
        let document = try self.secrets.load()
        let session: StoredSession?
        do {
            session = try document.value(StoredSession.self, forKey: self.key)
        } catch {
            throw CommandFailure(
                status: .store, message: "the stored sign-in in \(self.secrets.file.path) is damaged (\(error.reason)); run 'wif-tool login' again")
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
    /// - Throws: `CommandFailure` as ``SecretStore`` reports it.
    func save(_ session: StoredSession) throws(CommandFailure) {
        do {
            try self.secrets.update { document in
                try document.setValue(session, forKey: self.key)
            }
        } catch let failure as CommandFailure {
            throw failure
        } catch let error as WIFCredentialsError {
            throw SecretStore.failure(error, file: self.secrets.file)
        } catch {
            throw CommandFailure(status: .failure, message: "cannot save the sign-in: \(error)")
        }
        try self.removeLegacyFile()
    }

    /// Removes the sign-in.
    /// - Returns: Whether there was one.
    func remove() throws(CommandFailure) -> Bool {
        var removed = false
        if self.secrets.store.exists {
            do {
                removed = try self.secrets.update { document in document.removeValue(forKey: self.key) }
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                throw CommandFailure(status: .failure, message: "cannot remove the sign-in: \(error)")
            }
        }
        if try self.removeLegacyFile() { removed = true }
        return removed
    }

    /// Refuses a sign-in written by a newer wif-tool.
    static func check(_ session: StoredSession, path: String) throws(CommandFailure) {
        guard session.version == 1 else {
            throw CommandFailure(
                status: .store,
                message: "the sign-in stored in \(path) has format version \(session.version), which this wif-tool does not read; run 'wif-tool login' again")
        }
    }

    /// Moves an old plaintext session file into the store and deletes it.
    private func importLegacyFile() throws(CommandFailure) -> StoredSession? {
        let data: Data
        do {
            data = try Data(contentsOf: self.legacyFile)
        } catch {
            if !FileManager.default.fileExists(atPath: self.legacyFile.path) { return nil }
            throw CommandFailure(status: .io, message: "cannot read the old session file \(self.legacyFile.path): \(error.localizedDescription)")
        }
        let session: StoredSession
        do {
            session = try Self.legacyDecoder.decode(StoredSession.self, from: data)
        } catch {
            throw CommandFailure(
                status: .auth, message: "the old session file \(self.legacyFile.path) is damaged; delete it and run 'wif-tool login' again")
        }
        try Self.check(session, path: self.legacyFile.path)
        try self.save(session)
        return session
    }

    /// Deletes the old plaintext session file, if there is one.
    @discardableResult
    private func removeLegacyFile() throws(CommandFailure) -> Bool {
        if unlink(self.legacyFile.path) == 0 { return true }
        if errno == ENOENT { return false }
        throw CommandFailure(
            status: .io, message: "cannot remove the old plaintext session file \(self.legacyFile.path): \(String(cString: strerror(errno)))")
    }

    /// How earlier versions wrote dates.
    static let legacyDecoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
