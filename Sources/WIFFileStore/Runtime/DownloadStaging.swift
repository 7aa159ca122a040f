import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where downloads are written until they are complete: a private folder under `<WIF_HOME>/tmp`, so an
/// interrupted download (even a killed process) leaves nothing in the destination folder. Used when
/// it is on the destination's file system, so the final move is an atomic rename; otherwise the
/// download is written in a hidden folder beside the destination (`.wif-download-<pid>-<random>`),
/// which ``cleanUp()`` removes, and ``InterruptCleanup`` too when the command is interrupted.
public final class DownloadStaging: Sendable {
    /// This process's staging folder, `<home>/tmp/<pid>-<random>`.
    public let folder: URL?
    private let registration: InterruptCleanup.Registration?
    /// Hidden folders made beside destinations on other file systems, by the folder they are in.
    private let local = Mutex<[String: (path: String, registration: InterruptCleanup.Registration)]>([:])

    private init(folder: URL?) {
        self.folder = folder
        self.registration = folder.map { InterruptCleanup.shared.register($0.path) }
    }

    /// Creates this process's staging folder, removing those left by processes that no longer run.
    /// - Parameter home: The tool's folder.
    /// - Returns: The staging; without a folder (downloads go beside their destination) when it
    ///   cannot be created.
    public static func prepare(home: URL) -> DownloadStaging {
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
    /// - Parameter destination: The file's final path.
    /// - Returns: A path in the staging folder when it is on the destination's file system, else in a
    ///   hidden folder beside the destination; `destination` itself only when neither can be made.
    public func stagingPath(for destination: String) -> String {
        let target = URL(fileURLWithPath: destination).deletingLastPathComponent().path
        return (try? self.stagingPath(inFolder: target)) ?? destination
    }

    /// Where to download a file that goes into `folder`: a path in the staging folder when it is on
    /// the folder's file system, else in a hidden folder inside `folder`, made the first time and
    /// removed by ``cleanUp()``.
    /// - Parameter folder: The folder the file goes into.
    /// - Returns: A path for a new file.
    /// - Throws: ``FileStoreError`` `fileError` when the hidden folder cannot be made.
    public func stagingPath(inFolder folder: String) throws(FileStoreError) -> String {
        if let shared = self.folder {
            var stagingInfo = stat()
            var targetInfo = stat()
            if stat(shared.path, &stagingInfo) == 0, stat(folder, &targetInfo) == 0, stagingInfo.st_dev == targetInfo.st_dev {
                return shared.appendingPathComponent(UUID().uuidString).path
            }
        }
        let made: Result<String, FileStoreError> = self.local.withLock { local in
            if let made = local[folder] { return .success(made.path) }
            let path = (folder.hasSuffix("/") ? folder : folder + "/") + ".wif-download-\(getpid())-\(UUID().uuidString.prefix(8))"
            guard mkdir(path, 0o700) == 0 else {
                return .failure(.fileError("cannot create a temporary folder in \(folder): \(String(cString: strerror(errno)))"))
            }
            local[folder] = (path, InterruptCleanup.shared.register(path))
            return .success(path)
        }
        return try made.get() + "/" + UUID().uuidString
    }

    /// Moves a finished download into place.
    /// - Parameters:
    ///   - staged: Where it was downloaded.
    ///   - destination: Where it belongs.
    /// - Throws: ``FileStoreError`` `fileError` when it cannot be moved; the staged file is removed.
    public func finish(staged: String, destination: String) throws(FileStoreError) {
        guard staged != destination else { return }
        // A regular file that is replaced passes on its permissions: a private file stays private.
        if case .file(let permissions) = DownloadFolder.kind(of: destination, in: AT_FDCWD) { _ = chmod(staged, permissions) }
        guard rename(staged, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(staged)
            throw FileStoreError.fileError("cannot move the download into place at \(destination): \(reason)")
        }
    }

    /// Removes this process's staging folder and the hidden folders made beside destinations.
    public func cleanUp() {
        if let folder { try? FileManager.default.removeItem(at: folder) }
        if let registration { InterruptCleanup.shared.unregister(registration) }
        let local = self.local.withLock { local in
            defer { local = [:] }
            return Array(local.values)
        }
        for made in local {
            try? FileManager.default.removeItem(atPath: made.path)
            InterruptCleanup.shared.unregister(made.registration)
        }
    }
}
