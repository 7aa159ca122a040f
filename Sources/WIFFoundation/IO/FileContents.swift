#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the whole of a file that a person named: a regular file, or a pipe or device such as the
/// `/dev/fd/63` of a shell's `<(command)` or `/dev/stdin`, which Foundation's readers refuse on Linux
/// with a misleading "permission denied".
///
/// Reading stops with ``Failure/Kind/tooLarge(_:)`` past a limit, so naming `/dev/zero` or an endless
/// pipe fails rather than filling memory.
package enum FileContents {
    /// Why a file could not be read.
    package struct Failure: Error, Sendable, Equatable {
        package enum Kind: Sendable, Equatable {
            /// Nothing is at the path (or a folder on the way is not one).
            case missing
            /// The path names a folder.
            case folder
            /// The system refused to open or read it.
            case denied
            /// It holds more than the limit, in bytes.
            case tooLarge(Int)
            /// Another system error, its `errno`.
            case system(Int32)
        }

        package var kind: Kind

        /// The reason in words, to follow "cannot read 'PATH': ".
        package var reason: String {
            switch self.kind {
            case .missing: "there is no such file"
            case .folder: "it is a folder"
            case .denied: "permission denied"
            case .tooLarge(let limit): "it holds more than \(limit) bytes"
            case .system(let code): String(cString: strerror(code))
            }
        }

        init(errno code: Int32) {
            switch code {
            case ENOENT, ENOTDIR: self.kind = .missing
            case EISDIR: self.kind = .folder
            case EACCES, EPERM: self.kind = .denied
            default: self.kind = .system(code)
            }
        }

        package init(kind: Kind) {
            self.kind = kind
        }
    }

    /// Reads a file to its end.
    /// - Parameters:
    ///   - path: The file, following symbolic links; a pipe or a character device is read as it comes.
    ///   - limit: The most bytes accepted.
    /// - Returns: Every byte.
    /// - Throws: ``Failure``.
    package static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        let descriptor = path.withCString { openReadOnly($0) }
        guard descriptor >= 0 else { throw Failure(errno: errno) }
        defer { _ = close(descriptor) }
        return try self.read(descriptor: descriptor, limit: limit)
    }

    /// Reads standard input to its end, under the same limit as a named file.
    /// - Parameter limit: The most bytes accepted.
    /// - Returns: Every byte.
    /// - Throws: ``Failure``.
    package static func readStandardInput(limit: Int) throws(Failure) -> [UInt8] {
        try self.read(descriptor: STDIN_FILENO, limit: limit)
    }

    /// Reads an open descriptor to its end; the caller closes it.
    private static func read(descriptor: Int32, limit: Int) throws(Failure) -> [UInt8] {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Failure(errno: errno) }
        if info.st_mode & S_IFMT == S_IFDIR { throw Failure(kind: .folder) }
        let isRegular = info.st_mode & S_IFMT == S_IFREG
        if isRegular && Int64(info.st_size) > Int64(limit) { throw Failure(kind: .tooLarge(limit)) }

        // A regular file's size is known, but it may change while it is read: read to the end either way.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(isRegular ? Int(info.st_size) + 1 : 64 * 1024)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(errno: errno)
            }
            if count == 0 { return bytes }
            guard bytes.count + count <= limit else { throw Failure(kind: .tooLarge(limit)) }
            bytes.append(contentsOf: chunk[..<count])
        }
    }
}

/// `open(2)` for reading, which Swift imports as a variadic function on some platforms.
private func openReadOnly(_ path: UnsafePointer<CChar>) -> Int32 {
    var result: Int32
    repeat {
        result = open(path, O_RDONLY | O_CLOEXEC)
    } while result < 0 && errno == EINTR
    return result
}

/// `read(2)`, under a name that ``FileContents`` does not hide.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
