import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension WIFTool.Get {
    /// Where a single download goes.
    static func destination(for name: String, output: String?) throws(CommandFailure) -> String {
        // The last segment after a `/` byte: a `/` with a combining mark after it still separates.
        let fileName = String(decoding: name.utf8.split(separator: UInt8(ascii: "/")).last ?? name.utf8[...], as: UTF8.self)
        guard let output else {
            return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(fileName).path
        }
        var isFolder: ObjCBool = false
        // Asked without the final `/`, which makes a file's name not exist at all.
        let exists = FileManager.default.fileExists(atPath: URL(fileURLWithPath: output).path, isDirectory: &isFolder)
        if output.hasSuffix("/") || (exists && isFolder.boolValue) {
            if exists, !isFolder.boolValue {
                throw CommandFailure(status: .io, message: "cannot write into \(output): it is a file, not a folder")
            }
            // A folder named with a final `/` that does not exist yet is made for the file.
            if !exists { try Self.refuseUnexpandedHome(output) }
            return URL(fileURLWithPath: output).appendingPathComponent(fileName).path
        }
        let parent = URL(fileURLWithPath: output).deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isFolder), isFolder.boolValue else {
            throw CommandFailure(status: .io, message: "cannot write \(output): folder \(parent) does not exist")
        }
        return URL(fileURLWithPath: output).path
    }

    /// Refuses an output path that starts with a `~` naming nothing here: the shell did not expand
    /// it (it was quoted, or followed `=`), and making the folders would make one named `~`.
    static func refuseUnexpandedHome(_ output: String) throws(CommandFailure) {
        guard output.hasPrefix("~") else { return }
        let first = String(output.prefix { $0 != "/" })
        guard !FileManager.default.fileExists(atPath: first) else { return }
        throw CommandFailure(
            status: .io, message: "cannot write into \(output): '~' is not expanded inside quotes or after '='; give the folder's full path")
    }

    /// The path without its last `/`-separated part, as written: `..` is left for the kernel to
    /// follow, as `mkdir -p` leaves it.
    static func parent(of path: String) -> String {
        var text = Substring(path)
        while text.count > 1, text.hasSuffix("/") { text = text.dropLast() }
        guard let slash = text.lastIndex(of: "/") else { return "." }
        return slash == text.startIndex ? "/" : String(text[..<slash])
    }

    /// When the folder `path` goes into does not exist yet (`-o DIR/`): the nearest folder above it
    /// that does, which the download is staged for; `nil` when the folder exists.
    /// - Throws: ``CommandFailure`` when a file stands where a folder should be, or a folder on the
    ///   way cannot be looked at.
    static func existingFolder(above path: String, output: String) throws(CommandFailure) -> String? {
        var folder = Self.parent(of: path)
        var missing = false
        var info = stat()
        while stat(folder, &info) != 0 {
            guard errno == ENOENT || errno == ENOTDIR else {
                throw CommandFailure(status: .io, message: "cannot write into \(output): \(folder): \(String(cString: strerror(errno)))")
            }
            let parent = Self.parent(of: folder)
            if parent == folder { break }
            folder = parent
            missing = true
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw CommandFailure(status: .io, message: "cannot write into \(output): \(folder) is not a folder")
        }
        return missing ? folder : nil
    }

    /// Makes the folders above `path` that do not exist, one by one as `mkdir -p` does (a folder
    /// another process made meanwhile is taken as it is), once the file is here, so a download that
    /// fails leaves no folder behind.
    /// - Throws: ``CommandFailure`` when one cannot be made.
    static func makeFolders(above path: String) throws(CommandFailure) {
        var missing: [String] = []
        var folder = Self.parent(of: path)
        var info = stat()
        while stat(folder, &info) != 0 {
            missing.append(folder)
            let parent = Self.parent(of: folder)
            if parent == folder { break }
            folder = parent
        }
        for folder in missing.reversed() {
            guard mkdir(folder, 0o777) == 0 || errno == EEXIST else {
                throw CommandFailure(status: .io, message: "cannot create folder \(folder): \(String(cString: strerror(errno)))")
            }
        }
    }
}
