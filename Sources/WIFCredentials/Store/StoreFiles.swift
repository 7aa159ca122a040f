import Foundation
import WIFFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file operations of ``EncryptedStore``, on POSIX calls so each failure names the system's reason:
/// reads that tell a missing file from an unreadable one, writes that never leave half a file, and a
/// lock between processes.
enum StoreFiles {
    /// Reads a whole regular file.
    /// - Parameters:
    ///   - path: The file.
    ///   - limit: The most bytes to accept; a longer file throws `storeDamaged`.
    ///   - what: What the file is, for messages (`store`, `key file`).
    /// - Returns: The bytes, or `nil` when there is no such file.
    /// - Throws: ``WIFCredentialsError`` `storeIO` when it cannot be read, `notAStore` when the path is
    ///   not a regular file, `storeDamaged` when it is longer than `limit`.
    static func read(_ path: String, limit: Int, what: String) throws(WIFCredentialsError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw .storeIO("cannot read the \(what) \(path): \(Self.describe(code))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw .storeIO("cannot read the \(what) \(path): \(Self.describe(errno))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw .notAStore("\(path) is not a regular file, so not a \(what)")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw .storeIO("cannot read the \(what) \(path): \(Self.describe(code))")
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
            if bytes.count > limit {
                throw .storeDamaged("the \(what) \(path) is larger than \(limit) bytes, more than any \(what) holds")
            }
        }
        return bytes
    }

    /// Replaces a file atomically with one of mode 0600: a new file beside it, written, flushed to disk,
    /// renamed over it, then the folder flushed, so a crash leaves the old file or the new one, never
    /// half a file. The folder is created (mode 0700) when missing.
    /// - Throws: ``WIFCredentialsError`` `storeIO` naming the file and the system's reason; the old
    ///   file is then untouched.
    static func writeAtomically(_ bytes: [UInt8], to path: String, what: String) throws(WIFCredentialsError) {
        let (temporary, folder) = try Self.writeTemporary(bytes, beside: path, what: what)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw .storeIO("cannot write the \(what) \(path): \(Self.describe(code))")
        }
        Self.syncFolder(folder)
    }

    /// Creates a file of mode 0600 holding `bytes` only if none exists at `path`: written in full
    /// under a temporary name first, then linked into place, so no reader sees half of it.
    /// - Returns: `false` when a file already exists there (it is left as it is).
    /// - Throws: ``WIFCredentialsError`` `storeIO` when it cannot be written.
    static func createExclusively(_ bytes: [UInt8], at path: String, what: String) throws(WIFCredentialsError) -> Bool {
        let (temporary, folder) = try Self.writeTemporary(bytes, beside: path, what: what)
        defer { unlink(temporary) }
        guard link(temporary, path) == 0 else {
            let code = errno
            if code == EEXIST { return false }
            throw .storeIO("cannot create the \(what) \(path): \(Self.describe(code))")
        }
        Self.syncFolder(folder)
        return true
    }

    /// Writes `bytes` in full to a new file of mode 0600 beside `path` under a temporary name, and
    /// syncs it; a failure removes it.
    /// - Returns: The temporary file's path and the folder that holds both.
    private static func writeTemporary(
        _ bytes: [UInt8],
        beside path: String,
        what: String
    ) throws(WIFCredentialsError) -> (temporary: String, folder: String) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent()
        try Self.createFolder(folder, what: what)
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(Self.randomSuffix()).tmp").path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .storeIO("cannot write the \(what) \(path): \(Self.describe(errno))")
        }
        var failure = bytes.withUnsafeBytes { DescriptorWriter.writeAll($0, to: descriptor) }
        if failure == nil, fchmod(descriptor, 0o600) != 0 { failure = errno }
        if failure == nil, fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0, failure == nil { failure = errno }
        if let failure {
            unlink(temporary)
            throw .storeIO("cannot write the \(what) \(path): \(Self.describe(failure))")
        }
        return (temporary, folder.path)
    }

    /// Runs `body` holding an exclusive `flock` on `lockPath` (created with mode 0600), so processes
    /// that read, change and write the same store take turns.
    static func withExclusiveLock<R>(_ lockPath: String, what: String, _ body: () throws -> R) throws -> R {
        let folder = URL(fileURLWithPath: lockPath).deletingLastPathComponent()
        try Self.createFolder(folder, what: what)
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw WIFCredentialsError.storeIO("cannot lock the \(what) (\(lockPath)): \(Self.describe(errno))")
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            let code = errno
            if code == EINTR { continue }
            throw WIFCredentialsError.storeIO("cannot lock the \(what) (\(lockPath)): \(Self.describe(code))")
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    /// Removes a file.
    /// - Returns: Whether there was one.
    static func remove(_ path: String, what: String) throws(WIFCredentialsError) -> Bool {
        if unlink(path) == 0 { return true }
        let code = errno
        if code == ENOENT { return false }
        throw .storeIO("cannot remove the \(what) \(path): \(Self.describe(code))")
    }

    static func createFolder(_ folder: URL, what: String) throws(WIFCredentialsError) {
        var info = stat()
        if stat(folder.path, &info) == 0 { return }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .storeIO("cannot create the folder \(folder.path) for the \(what): \(FileFailure.reason(error, path: folder.path))")
        }
    }

    /// Flushes a folder so a rename or link in it survives a crash; best effort (some file systems
    /// refuse to open folders for this).
    private static func syncFolder(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    private static func randomSuffix() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(generator.next() as UInt64, radix: 36)
    }

    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

/// `read(2)`, named apart from the methods called `read` above.
@inline(__always)
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
