import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension FileTokenSource {
    /// How a ``FileTokenSource`` looks at and reads its file. `posix` in production; tests wrap it to
    /// count reads.
    package struct FileAccess: Sendable {
        /// What identifies one version of a file cheaply: which file it is, its size and its
        /// modification time.
        package struct Identity: Sendable, Hashable {
            package var device: UInt64
            package var inode: UInt64
            package var size: Int64
            package var modificationSeconds: Int64
            package var modificationNanoseconds: Int64
        }

        /// Returns the identity of the file at a path, following symbolic links.
        package var identify: @Sendable (String) throws -> Identity
        /// Returns the content of the file at a path and the identity of what was read.
        package var read: @Sendable (String) throws -> (Data, Identity)

        package init(
            identify: @escaping @Sendable (String) throws -> Identity,
            read: @escaping @Sendable (String) throws -> (Data, Identity)
        ) {
            self.identify = identify
            self.read = read
        }

        /// Files larger than this are refused unread: even with generous whitespace around it, a token
        /// of at most 20,000 bytes does not need more.
        package static let maximumFileSize = 1 << 20

        /// `stat` and `read` on the real file system.
        package static let posix = FileAccess(
            identify: { path in
                var info = stat()
                guard stat(path, &info) == 0 else { throw Self.failure(path: path, errno: errno) }
                return Identity(info)
            },
            read: { path in
                let descriptor = open(path, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else { throw Self.failure(path: path, errno: errno) }
                defer { _ = close(descriptor) }
                var info = stat()
                guard fstat(descriptor, &info) == 0 else { throw Self.failure(path: path, errno: errno) }
                let origin = "web-identity token file '\(path)'"
                switch info.st_mode & S_IFMT {
                case S_IFREG:
                    break
                case S_IFDIR:
                    throw WIFCredentialsError.tokenUnavailable("\(origin) is a directory, not a file")
                default:
                    throw WIFCredentialsError.tokenUnavailable("\(origin) is not a regular file")
                }
                if Int64(info.st_size) > Int64(Self.maximumFileSize) {
                    throw WIFCredentialsError.tokenUnavailable(
                        "\(origin) is \(info.st_size) bytes; a token is at most \(WebIdentityToken.maximumLength) bytes"
                    )
                }
                // Read to the end rather than trusting st_size: the file may grow while it is read.
                var data = Data()
                var buffer = [UInt8](repeating: 0, count: 8192)
                while true {
                    let count = buffer.withUnsafeMutableBytes { raw in
                        Glue.read(descriptor, raw.baseAddress, raw.count)
                    }
                    if count < 0 {
                        if errno == EINTR { continue }
                        throw Self.failure(path: path, errno: errno)
                    }
                    if count == 0 { break }
                    data.append(contentsOf: buffer[..<count])
                    if data.count > Self.maximumFileSize {
                        throw WIFCredentialsError.tokenUnavailable(
                            "\(origin) is over \(Self.maximumFileSize) bytes; a token is at most \(WebIdentityToken.maximumLength) bytes"
                        )
                    }
                }
                return (data, Identity(info))
            }
        )

        /// An error naming the file and what the system said, in words.
        static func failure(path: String, errno code: Int32) -> WIFCredentialsError {
            let origin = "web-identity token file '\(path)'"
            switch code {
            case ENOENT:
                return .tokenUnavailable("\(origin) does not exist")
            case ENOTDIR:
                return .tokenUnavailable("\(origin) does not exist (a parent in the path is not a directory)")
            case EACCES, EPERM:
                return .tokenUnavailable("\(origin) cannot be read: permission denied")
            case EISDIR:
                return .tokenUnavailable("\(origin) is a directory, not a file")
            default:
                return .tokenUnavailable("\(origin) cannot be read: \(String(cString: strerror(code))) (errno \(code))")
            }
        }
    }
}

extension FileTokenSource.FileAccess.Identity {
    init(_ info: stat) {
        #if canImport(Darwin)
        let modification = info.st_mtimespec
        #else
        let modification = info.st_mtim
        #endif
        self.init(
            device: UInt64(truncatingIfNeeded: info.st_dev),
            inode: UInt64(truncatingIfNeeded: info.st_ino),
            size: Int64(info.st_size),
            modificationSeconds: Int64(modification.tv_sec),
            modificationNanoseconds: Int64(modification.tv_nsec)
        )
    }
}

/// The C library's `read`, named apart from ``FileTokenSource/FileAccess/read``.
private enum Glue {
    static func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.read(descriptor, buffer, count)
        #elseif canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
        #elseif canImport(Musl)
        Musl.read(descriptor, buffer, count)
        #endif
    }
}
