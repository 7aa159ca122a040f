import Crypto
import Foundation
import WIFFoundation

/// The stack's data directory: its keys, the objects of each bucket and the multipart uploads in progress.
///
/// ```
/// <root>/keys/        signing key and certificate, session and token secrets (mode 0600)
/// <root>/buckets/<bucket>/…   objects and their metadata
/// <root>/uploads/<upload id>/ parts of multipart uploads
/// <root>/parts/<upload id>/   parts of the objects those uploads completed
/// <root>/tmp/         files being written, renamed into place when complete
/// ```
struct DataDirectory: Sendable {
    /// The directory's path.
    let root: String

    /// Opens the directory, creating it and its folders when missing.
    /// - Throws: ``LocalStackError`` when a folder cannot be created.
    init(root: String) throws(LocalStackError) {
        self.root = root
        for folder in [root, self.keys, self.buckets, self.uploads, self.parts, self.temporary] {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw LocalStackError("cannot create the data directory folder \(folder): \(FileFailure.reason(error, path: folder))")
            }
        }
    }

    var keys: String { self.root + "/keys" }
    var buckets: String { self.root + "/buckets" }
    var uploads: String { self.root + "/uploads" }
    var parts: String { self.root + "/parts" }
    var temporary: String { self.root + "/tmp" }

    /// Reads a secret kept in `keys/<name>`, or creates it with random bytes (mode 0600) when missing, so
    /// that tokens and sessions survive restarts.
    /// - Parameters:
    ///   - name: The file name.
    ///   - byteCount: The secret's length when it is created.
    /// - Returns: The secret.
    func secret(named name: String, byteCount: Int = 32) throws(LocalStackError) -> SymmetricKey {
        let path = self.keys + "/" + name
        if let data = FileManager.default.contents(atPath: path) {
            guard data.count == byteCount else {
                throw LocalStackError("the key file \(path) holds \(data.count) bytes, expected \(byteCount); remove it to create a new one")
            }
            return SymmetricKey(data: data)
        }
        let key = SymmetricKey(size: SymmetricKeySize(bitCount: byteCount * 8))
        let bytes = key.withUnsafeBytes { Data($0) }
        try self.writeAtomically(bytes, to: path, permissions: 0o600)
        return key
    }

    /// Writes a small file atomically: to a temporary file in the same folder, synced, then renamed.
    func writeAtomically(_ data: Data, to path: String, permissions: Int = 0o600) throws(LocalStackError) {
        let temporary = path + ".tmp-\(UUID().uuidString)"
        guard FileManager.default.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: permissions]) else {
            throw LocalStackError("cannot create \(temporary)")
        }
        do {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
            guard rename(temporary, path) == 0 else {
                throw LocalStackError("cannot rename \(temporary) to \(path): \(String(cString: strerror(errno)))")
            }
        } catch let error as LocalStackError {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw LocalStackError("cannot write \(path): \(FileFailure.reason(error, path: path))")
        }
    }
}

/// A failure to start or run the local stack: a bad configuration, a data directory that cannot be used.
public struct LocalStackError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public let message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { self.message }
}
