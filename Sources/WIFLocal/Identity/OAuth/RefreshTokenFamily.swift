import Foundation
import WIFFoundation

/// What a user approved: who, for which client, with which scopes, and when they signed in.
struct OAuthAuthorization: Sendable, Codable, Equatable {
    /// The scope that makes the token endpoint issue a refresh token.
    static let offlineAccess = "offline_access"

    /// The client the user approved.
    var clientId: String
    /// The development user, the ID token's `sub`.
    var subject: String
    /// The granted scopes, in request order.
    var scopes: [String]
    /// When the user approved, in seconds since 1970 (`auth_time`).
    var authTime: Int64

    /// Whether a refresh token comes with the tokens.
    var offlineAccess: Bool { self.scopes.contains(Self.offlineAccess) }
}

/// The refresh tokens of one sign-in: one current token, and those it replaced.
///
/// Each refresh replaces the current token with a new one (rotation). Presenting a replaced token means
/// two parties hold the family's tokens, so the whole family is revoked (OAuth 2.0 Security BCP §4.14).
/// Only SHA-256 digests of tokens are kept, in memory and on disk.
struct RefreshTokenFamily: Sendable, Codable, Equatable {
    /// The longest list of replaced tokens kept for reuse detection.
    static let maximumSpentTokens = 1000

    /// A random identifier.
    var id: String
    /// The sign-in the tokens continue.
    var authorization: OAuthAuthorization
    /// When the sign-in happened, in seconds since 1970.
    var createdAt: Int64
    /// The digest of the token that works now; `nil` once the family is revoked.
    var currentDigest: String?
    /// When the current token stops working, in seconds since 1970.
    var expiresAt: Int64
    /// The digests of the tokens the current one replaced, oldest first.
    var spentDigests: [String]
    /// When the family was revoked, if it was.
    var revokedAt: Int64?
}

/// The file of refresh-token families in the data directory: `oauth/refresh-tokens.json`, mode 0600,
/// replaced atomically on every change so that a crash leaves the old or the new content, never a mix.
struct RefreshTokenStore: Sendable {
    /// The folder under the data directory.
    static let folderName = "oauth"
    /// The file's name.
    static let fileName = "refresh-tokens.json"
    /// The format written.
    static let formatVersion = 1

    private struct Document: Codable {
        var version: Int
        var families: [RefreshTokenFamily]
    }

    let data: DataDirectory
    /// The file's path.
    let path: String

    /// Opens the store of a data directory, creating its folder.
    /// - Throws: ``LocalStackError`` when the folder cannot be created.
    init(data: DataDirectory) throws(LocalStackError) {
        self.data = data
        let folder = data.root + "/" + Self.folderName
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw LocalStackError("cannot create the data directory folder \(folder): \(FileFailure.reason(error, path: folder))")
        }
        self.path = folder + "/" + Self.fileName
    }

    /// The families on disk; none when the file does not exist.
    /// - Throws: ``LocalStackError`` when the file cannot be read or is not a family file of a known version.
    func load() throws(LocalStackError) -> [RefreshTokenFamily] {
        guard FileManager.default.fileExists(atPath: self.path) else { return [] }
        guard let bytes = FileManager.default.contents(atPath: self.path) else {
            throw LocalStackError("cannot read the refresh tokens file \(self.path)")
        }
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: bytes)
        } catch {
            throw LocalStackError(
                "the refresh tokens file \(self.path) is not valid (\(error.localizedDescription)); remove it to sign every user out")
        }
        guard document.version <= Self.formatVersion else {
            throw LocalStackError(
                "the refresh tokens file \(self.path) has format version \(document.version), newer than this version reads (\(Self.formatVersion))")
        }
        return document.families
    }

    /// Replaces the file with these families.
    /// - Throws: ``LocalStackError`` when the file cannot be written.
    func save(_ families: [RefreshTokenFamily]) throws(LocalStackError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes: Data
        do {
            bytes = try encoder.encode(Document(version: Self.formatVersion, families: families))
        } catch {
            throw LocalStackError("cannot encode the refresh tokens: \(error.localizedDescription)")
        }
        try self.data.writeAtomically(bytes, to: self.path, permissions: 0o600)
    }
}
