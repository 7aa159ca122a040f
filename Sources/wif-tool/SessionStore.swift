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
        }

        var kind: Kind
        /// The token itself, for `development` and `token`.
        var value: String?
        /// The absolute path, for `file`.
        var path: String?
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

    /// The format version of the file.
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

/// Keeps the sign-in in a JSON file readable by its owner only (mode 0600), replaced atomically so a
/// crash never leaves half a file.
struct SessionStore: Sendable {
    /// The file, `~/.wif/session.json` or `~/.wif/session.<account>.json`.
    let file: URL

    /// The stored sign-in, or `nil` when there is none.
    /// - Throws: `CommandFailure` (I/O) when the file cannot be read, (auth) when it is not a session file.
    func load() throws(CommandFailure) -> StoredSession? {
        let data: Data
        do {
            data = try Data(contentsOf: self.file)
        } catch {
            if !FileManager.default.fileExists(atPath: self.file.path) { return nil }
            throw CommandFailure(status: .io, message: "cannot read the session file \(self.file.path): \(error.localizedDescription)")
        }
        do {
            let session = try Self.decoder.decode(StoredSession.self, from: data)
            guard session.version == 1 else {
                throw CommandFailure(
                    status: .auth,
                    message: "the session file \(self.file.path) has format version \(session.version), which this wif-tool does not read; run 'wif-tool login' again")
            }
            return session
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(
                status: .auth, message: "the session file \(self.file.path) is damaged; run 'wif-tool login' again")
        }
    }

    /// Writes the sign-in: to a new file of mode 0600 beside the old one, flushed, then renamed over it.
    /// - Throws: `CommandFailure` (I/O) naming the file and the system's reason.
    func save(_ session: StoredSession) throws(CommandFailure) {
        let data: Data
        do {
            data = try Self.encoder.encode(session)
        } catch {
            throw CommandFailure(status: .io, message: "cannot encode the session: \(error)")
        }
        let folder = self.file.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CommandFailure(status: .io, message: "cannot create \(folder.path): \(error.localizedDescription)")
        }
        let temporary = folder.appendingPathComponent(".\(self.file.lastPathComponent).\(UUID().uuidString).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CommandFailure(status: .io, message: "cannot write \(temporary.path): \(Self.systemError())")
        }
        var failure: String?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = Self.systemError()
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = Self.systemError() }
        close(descriptor)
        if failure == nil, rename(temporary.path, self.file.path) != 0 { failure = Self.systemError() }
        if let failure {
            unlink(temporary.path)
            throw CommandFailure(status: .io, message: "cannot write the session file \(self.file.path): \(failure)")
        }
    }

    /// Removes the sign-in.
    /// - Returns: Whether there was one.
    func remove() throws(CommandFailure) -> Bool {
        if unlink(self.file.path) == 0 { return true }
        if errno == ENOENT { return false }
        throw CommandFailure(status: .io, message: "cannot remove the session file \(self.file.path): \(Self.systemError())")
    }

    static func systemError() -> String {
        String(cString: strerror(errno))
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
