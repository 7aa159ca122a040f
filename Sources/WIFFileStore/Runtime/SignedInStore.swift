import Foundation
import Logging
import S3Partition
import WIFCredentials
import WIFFoundation

/// The signed-in user's folder, ready for requests: the stored session, credentials that renew
/// themselves, and the partitioned bucket.
public struct SignedInStore: Sendable {
    /// Where requests go.
    public let context: StoreContext
    /// The sign-in.
    public let session: StoredSession
    /// The S3 client of the folder, for requests outside it (which the bucket's policy decides).
    public var client: S3Client { self.bucket.client }
    /// The user's folder.
    public let bucket: PartitionedBucket

    /// Where to log.
    public var logger: Logger { self.context.logger }

    /// Runs `body` with the signed-in user's folder, at the sign-in's endpoint unless the command has
    /// an endpoint of its own; fails before starting anything when nobody is signed in.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - environment: The process environment (`WIF_PASSPHRASE`, `WIF_KEY_FILE`).
    ///   - logger: Where to log.
    ///   - level: For an identity-pool sign-in, the Amplify folder to use instead of the sign-in's own
    ///     (`private/IDENTITY/`).
    ///   - identity: With `level`, whose folder it is (another user's `protected/` folder); the
    ///     signed-in identity when `nil`.
    ///   - body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: ``FileStoreError`` from the sign-in and the store, `invalidSetting` for a level without
    ///   an identity-pool sign-in or a malformed identity id; what `body` throws.
    public static func with<T: Sendable>(
        _ configuration: ToolConfiguration,
        environment: [String: String],
        logger: Logger,
        level: StorageLevel? = nil,
        identity: String? = nil,
        _ body: (SignedInStore) async throws -> T
    ) async throws -> T {
        let (stored, store, configuration) = try StoreRuntime.signedInSession(configuration, environment: environment)
        var session = stored
        if let level {
            guard let pool = stored.identityPool else {
                throw FileStoreError.invalidSetting(
                    "--level needs an identity-pool sign-in ('wif-tool login --identity-pool ID …'); this sign-in's folder is s3://\(stored.bucket)/\(stored.prefix)")
            }
            if let identity {
                guard level != .public else { throw FileStoreError.invalidSetting("--identity does not go with --level public: public/ is everyone's") }
                do {
                    try CognitoIdentityClient.checkId(identity, name: "--identity")
                } catch {
                    throw FileStoreError.invalidSetting("\(error.reason); give an identity id such as \(pool.identityId)")
                }
            }
            let folder = level.folder(identityId: identity ?? pool.identityId)
            session.partitionTemplate = folder.template
            session.subject = folder.id
        } else if identity != nil {
            throw FileStoreError.invalidSetting("--identity goes with --level protected (or private)")
        }
        // Refuse a folder the template cannot name before starting anything.
        let prefix: PartitionPrefix
        do throws(S3Error) {
            prefix = try PartitionPrefix.make(template: session.partitionTemplate, userId: session.subject)
        } catch {
            throw FileStoreError(.folderRefused, error.message, s3Error: error)
        }
        session.prefix = prefix.value
        return try await StoreRuntime.withTarget(configuration, logger: logger) { context in
            let federation = try context.federation(
                roleArn: session.roleArn, bucket: session.bucket, partitionTemplate: session.partitionTemplate, stsRegion: session.region)
            let credentials = SessionCredentials(
                session: stored, store: store, account: configuration.account, federation: federation, httpClient: context.httpClient,
                identityPool: stored.identityPool.map { IdentityPoolSignIn.Connection(context, stored: $0.endpoint) })
            let bucket = try federation.folder(subject: session.subject, credentialProvider: credentials)
            return try await body(SignedInStore(context: context, session: session, bucket: bucket))
        }
    }

    /// Whether a file of this name is in the folder, found by listing (which the folder's policy
    /// allows even where reading a missing object is answered with `AccessDenied`, as S3 does without
    /// `s3:ListBucket` on the key).
    /// - Parameter name: The file's name in the folder.
    /// - Returns: Whether it is there.
    /// - Throws: `S3Error` from the listing.
    public func exists(_ name: String) async throws -> Bool {
        let first = try await self.bucket.list(prefix: name, pageSize: 1, logger: self.logger).objects.first { _ in true }
        return first?.name == name
    }

    /// The files whose names start with `prefix`, for a command that works on all of them, and the names a
    /// server listed for the prefix without starting with it (compared as UTF-8 bytes), which such a
    /// command reports and never follows. Names ending in `/` (folder markers) are not files and are
    /// left out.
    /// - Parameter prefix: The start of the names.
    /// - Returns: The files, in name order, and the names outside the prefix.
    /// - Throws: `S3Error` from the listing.
    public func listFiles(startingWith prefix: String) async throws -> (files: [PartitionObject], outside: [String]) {
        var files: [PartitionObject] = []
        var outside: [String] = []
        for try await object in try self.bucket.list(prefix: prefix, logger: self.logger).objects {
            guard object.name.utf8.last != UInt8(ascii: "/") else { continue }
            if object.name.utf8.starts(with: prefix.utf8) {
                files.append(object)
            } else {
                outside.append(object.name)
            }
        }
        return (files, outside)
    }

    /// Why a name listed outside the prefix asked for is not followed.
    /// - Parameter prefix: The prefix asked for.
    /// - Returns: The reason.
    public static func outsideReason(prefix: String) -> String {
        "the server listed it for the prefix '\(prefix)', which it does not start with"
    }

    /// Runs a request about one name, turning a refusal or `NoSuchKey` for a name that is not in the
    /// folder into a plain "no such file".
    /// - Parameters:
    ///   - name: The file's name in the folder.
    ///   - body: The request.
    /// - Returns: What `body` returns.
    /// - Throws: ``FileStoreError`` `noSuchFile` for a name not in the folder; what `body` throws.
    public func reportingMissing<T>(_ name: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as S3Error where [.accessDenied, .noSuchKey, .notFound].contains(error.code) {
            if (try? await self.exists(name)) == false {
                throw FileStoreError(.noSuchFile, "no file named '\(PrintableText.escaping(name))' in your folder (s3://\(self.session.bucket)/\(self.session.prefix))")
            }
            throw error
        }
    }

    /// `s3://bucket/key` of a name in the folder.
    /// - Parameter name: The file's name in the folder.
    /// - Returns: The URL.
    public func url(of name: String) -> String {
        "s3://\(self.session.bucket)/\(self.session.prefix)\(name)"
    }
}
