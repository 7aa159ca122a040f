import Foundation
import Logging
import S3Partition
import WIFCredentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The signed-in user's folder, ready for requests: the stored session, credentials that renew
/// themselves, and the partitioned bucket.
struct SignedInStore: Sendable {
    let context: StoreContext
    let session: StoredSession
    let client: S3Client
    let bucket: PartitionedBucket

    var logger: Logger { self.context.logger }

    /// Runs `body` with the signed-in user's folder; fails before starting anything when nobody is
    /// signed in.
    static func with<T: Sendable>(
        _ configuration: ToolConfiguration,
        environment: [String: String],
        logger: Logger,
        _ body: (SignedInStore) async throws -> T
    ) async throws -> T {
        let (session, store) = try StoreRuntime.signedInSession(configuration, environment: environment)
        let prefix = try PartitionPrefix.make(template: session.partitionTemplate, userId: session.subject)
        return try await StoreRuntime.withTarget(configuration, logger: logger) { context in
            let credentials = SessionCredentials(
                session: session, store: store, account: configuration.account, sts: context.stsEndpoint,
                httpClient: context.httpClient)
            let client = try S3Client(
                configuration: S3Client.Configuration(region: configuration.region, endpoint: context.s3Endpoint.absoluteString),
                credentialProvider: credentials,
                environment: [:],
                httpClient: context.httpClient)
            let bucket = try PartitionedBucket(client: client, bucket: session.bucket, prefix: prefix)
            return try await body(SignedInStore(context: context, session: session, client: client, bucket: bucket))
        }
    }

    /// Whether a file of this name is in the folder, found by listing (which the folder's policy
    /// allows even where reading a missing object is answered with `AccessDenied`, as S3 does without
    /// `s3:ListBucket` on the key).
    func exists(_ name: String) async throws -> Bool {
        let first = try await self.bucket.list(prefix: name, pageSize: 1, logger: self.logger).objects.first { _ in true }
        return first?.name == name
    }

    /// Runs a request about one name, turning a refusal or `NoSuchKey` for a name that is not in the
    /// folder into a plain "no such file" (exit status 5).
    func reportingMissing<T>(_ name: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as S3Error where [.accessDenied, .noSuchKey, .notFound].contains(error.code) {
            if (try? await self.exists(name)) == false {
                throw CommandFailure(status: .notFound, message: "no file named '\(name)' in your folder (s3://\(self.session.bucket)/\(self.session.prefix))")
            }
            throw error
        }
    }

    /// `s3://bucket/key` of a name in the folder.
    func url(of name: String) -> String {
        "s3://\(self.session.bucket)/\(self.session.prefix)\(name)"
    }
}

/// Where downloads are written until they are complete: a private folder under `<WIF_HOME>/tmp`, so an
/// interrupted download (even a killed process) leaves nothing in the destination folder. Used when
/// it is on the destination's file system, so the final move is an atomic rename; otherwise the
/// download is written beside the destination under a hidden temporary name.
final class DownloadStaging: Sendable {
    /// This process's staging folder, `<home>/tmp/<pid>-<random>`.
    let folder: URL?

    private init(folder: URL?) {
        self.folder = folder
    }

    /// Creates this process's staging folder, removing those left by processes that no longer run.
    static func prepare(home: URL) -> DownloadStaging {
        let root = home.appendingPathComponent("tmp", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            return DownloadStaging(folder: nil)
        }
        Self.removeAbandoned(in: root)
        let folder = root.appendingPathComponent("\(getpid())-\(UUID().uuidString.prefix(8))", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            return DownloadStaging(folder: folder)
        } catch {
            return DownloadStaging(folder: nil)
        }
    }

    /// Removes staging folders whose process has ended.
    static func removeAbandoned(in root: URL) {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        for entry in entries {
            guard let dash = entry.firstIndex(of: "-"), let pid = Int32(entry[..<dash]), pid > 0 else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(at: root.appendingPathComponent(entry))
            }
        }
    }

    /// Where to download a file meant for `destination`.
    func stagingPath(for destination: String) -> String {
        guard let folder = self.folder else { return destination }
        let target = URL(fileURLWithPath: destination).deletingLastPathComponent().path
        var stagingInfo = stat()
        var targetInfo = stat()
        guard stat(folder.path, &stagingInfo) == 0, stat(target, &targetInfo) == 0, stagingInfo.st_dev == targetInfo.st_dev else {
            return destination
        }
        return folder.appendingPathComponent(UUID().uuidString).path
    }

    /// Moves a finished download into place.
    func finish(staged: String, destination: String) throws(CommandFailure) {
        guard staged != destination else { return }
        guard rename(staged, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(staged)
            throw CommandFailure(status: .io, message: "cannot move the download into place at \(destination): \(reason)")
        }
    }

    /// Removes this process's staging folder.
    func cleanUp() {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }
}
