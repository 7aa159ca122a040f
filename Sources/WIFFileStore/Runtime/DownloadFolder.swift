import Foundation
import WIFFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The folder a recursive download writes into, held open for the whole batch.
///
/// Names come from the bucket, so nothing below the folder is reached by a path: each folder is opened
/// (or made, then opened) relative to the one above it, without following symbolic links, and the
/// finished file is renamed into the folder that was opened. A link anywhere below the folder — one
/// that was there before or one planted during the download — is refused with an error naming it,
/// never followed, so nothing is written outside the folder. The folder itself is the user's choice
/// and is opened as given.
public final class DownloadFolder: Sendable {
    /// The folder as given.
    public let path: String
    private let descriptor: Int32

    /// Opens the folder, creating it (and the folders above it) when it does not exist.
    /// - Parameter path: The folder.
    /// - Throws: ``FileStoreError`` `fileError` when it cannot be made or opened, or is not a folder.
    public init(path: String) throws(FileStoreError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw .fileError("cannot create folder \(path): \(FileFailure.reason(error, path: path))")
        }
        let descriptor = Self.retrying { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            throw .fileError("cannot open folder \(path): \(String(cString: strerror(errno)))")
        }
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        close(self.descriptor)
    }

    /// The path of a file below the folder.
    /// - Parameter relative: Its `/`-separated path below the folder.
    /// - Returns: The full path, for messages and output.
    public func path(of relative: String) -> String {
        self.path.hasSuffix("/") ? self.path + relative : self.path + "/" + relative
    }

    /// Why a file cannot be written at `relative`, found without writing anything: the path is not a
    /// plain relative path (empty, absolute, with an empty, `.` or `..` segment, or a NUL), a folder on
    /// the way is a symbolic link or not a folder, or the file's place holds a link or a folder.
    /// - Parameter relative: The file's `/`-separated path below the folder.
    /// - Returns: The reason, or `nil` when the file can be written.
    public func refusal(of relative: String) -> String? {
        let segments: [String]
        switch Self.segments(of: relative) {
        case .success(let value): segments = value
        case .failure(let problem): return problem.reason
        }
        var current = dup(self.descriptor)
        guard current >= 0 else { return "cannot open \(self.path): \(String(cString: strerror(errno)))" }
        defer { close(current) }
        for (index, segment) in segments.enumerated() {
            let shown = PrintableText.escaping(self.path(of: segments[...index].joined(separator: "/")))
            let isLast = index == segments.count - 1
            switch Self.kind(of: segment, in: current) {
            case .missing:
                return nil
            case .link:
                return "\(shown) is a symbolic link; links inside the download folder are not followed"
            case .folder where isLast:
                return "\(shown) is a folder"
            case .file where !isLast, .special where !isLast:
                return "\(shown) is not a folder"
            case .special:
                return "\(shown) is not a regular file; it is not replaced"
            case .failed(let reason):
                return "cannot inspect \(shown): \(reason)"
            case .folder:
                let next = Self.openFolder(segment, in: current)
                guard next >= 0 else { return "cannot open \(shown): \(String(cString: strerror(errno)))" }
                close(current)
                current = next
            case .file:
                return nil
            }
        }
        return nil
    }

    /// ``refusal(of:)`` for every file of a batch, checked before anything is written; a file is also
    /// refused when its path is a folder of another file of the batch (S3 allows both `a` and `a/b`).
    /// - Parameter relatives: The files' paths below the folder.
    /// - Returns: The reason for each refused file, `nil` for the others, in the same order.
    public func refusals(of relatives: [String]) -> [String?] {
        // Compared as bytes, as file names are: two names that are canonically equivalent but spelled
        // differently are two different files.
        var folders: Set<ExactText> = []
        for relative in relatives {
            var folder = ""
            for segment in Self.byteSegments(of: relative).dropLast() {
                folder += folder.isEmpty ? segment : "/" + segment
                folders.insert(ExactText(folder))
            }
        }
        return relatives.map { relative in
            if let reason = self.refusal(of: relative) { return reason }
            if folders.contains(ExactText(relative)) {
                return "\(PrintableText.escaping(self.path(of: relative))) would also be the folder of other files of the download"
            }
            return nil
        }
    }

    /// Makes the folders of `relative` that are missing and opens the one the file goes in, each relative
    /// to the one above, never following a link.
    /// - Parameter relative: The file's `/`-separated path below the folder.
    /// - Returns: The file's place.
    /// - Throws: ``FileStoreError`` `fileError` naming the path when a folder on the way is a link or not a
    ///   folder, or cannot be made.
    public func destination(for relative: String) throws(FileStoreError) -> Destination {
        let segments: [String]
        switch Self.segments(of: relative) {
        case .success(let value): segments = value
        case .failure(let problem): throw .fileError("cannot write '\(PrintableText.escaping(relative))': \(problem.reason)")
        }
        var current = dup(self.descriptor)
        guard current >= 0 else { throw .fileError("cannot open \(self.path): \(String(cString: strerror(errno)))") }
        for (index, segment) in segments.dropLast().enumerated() {
            let shown = PrintableText.escaping(self.path(of: segments[...index].joined(separator: "/")))
            if mkdirat(current, segment, 0o777) != 0 && errno != EEXIST {
                let reason = String(cString: strerror(errno))
                close(current)
                throw .fileError("cannot create folder \(shown): \(reason)")
            }
            let next = Self.openFolder(segment, in: current)
            let failure = errno
            guard next >= 0 else {
                let isLink = Self.kind(of: segment, in: current) == .link
                close(current)
                if isLink { throw .fileError("\(shown) is a symbolic link; links inside the download folder are not followed") }
                throw .fileError("cannot open folder \(shown): \(String(cString: strerror(failure)))")
            }
            close(current)
            current = next
        }
        return Destination(folder: current, name: segments[segments.count - 1], path: self.path(of: relative))
    }

    /// Where to download a file before it is moved in: `staging`'s folder when it is on this folder's
    /// file system (so the move is a rename), else a hidden folder made inside this one, which
    /// `staging` removes when it is cleaned up.
    /// - Parameter staging: The process's staging.
    /// - Returns: A path for a new file.
    /// - Throws: ``FileStoreError`` `fileError` when no hidden folder can be made.
    public func stagingPath(using staging: DownloadStaging) throws(FileStoreError) -> String {
        try staging.stagingPath(inFolder: self.path)
    }

    /// A file's place: the opened folder it goes in and its name there.
    public final class Destination: Sendable {
        /// The file's full path, for messages and output.
        public let path: String
        private let folder: Int32
        private let name: String

        fileprivate init(folder: Int32, name: String, path: String) {
            self.folder = folder
            self.name = name
            self.path = path
        }

        deinit {
            close(self.folder)
        }

        /// Moves a finished download into place with a rename inside the opened folder, which replaces a
        /// file but never follows a link; a link or a folder at the place is refused and left as it is.
        /// - Parameter staged: Where the download was written.
        /// - Throws: ``FileStoreError`` `fileError`; the staged file is removed.
        public func moveIn(from staged: String) throws(FileStoreError) {
            let shown = PrintableText.escaping(self.path)
            switch DownloadFolder.kind(of: self.name, in: self.folder) {
            case .link:
                unlink(staged)
                throw .fileError("\(shown) is a symbolic link; it is not replaced")
            case .folder:
                unlink(staged)
                throw .fileError("\(shown) is a folder")
            case .special:
                unlink(staged)
                throw .fileError("\(shown) is not a regular file; it is not replaced")
            case .file(let permissions):
                // The new file keeps the permissions of the one it replaces: a private file stays private.
                _ = chmod(staged, permissions)
            case .missing, .failed:
                break
            }
            guard renameat(AT_FDCWD, staged, self.folder, self.name) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(staged)
                throw .fileError("cannot move the download into place at \(shown): \(reason)")
            }
        }
    }

    // MARK: Paths and entries

    struct Problem: Error {
        var reason: String
    }

    /// The segments of a plain relative path, split at every `/` byte as the kernel does: a `/` that
    /// begins a grapheme with a combining mark after it is still a separator, so the path is read over
    /// its UTF-8, never as characters.
    static func segments(of relative: String) -> Result<[String], Problem> {
        if relative.isEmpty { return .failure(Problem(reason: "the path is empty")) }
        if relative.utf8.contains(0) { return .failure(Problem(reason: "the path contains a NUL character")) }
        if relative.utf8.first == UInt8(ascii: "/") { return .failure(Problem(reason: "the path is absolute")) }
        let segments = Self.byteSegments(of: relative)
        for segment in segments {
            if segment.isEmpty { return .failure(Problem(reason: "the path has an empty segment")) }
            if segment.utf8.elementsEqual(".".utf8) || segment.utf8.elementsEqual("..".utf8) {
                return .failure(Problem(reason: "the path has a '\(segment)' segment"))
            }
        }
        return .success(segments)
    }

    /// `relative` cut at every `/` byte, empty segments kept. Each cut is at an ASCII byte, so every
    /// segment is whole UTF-8.
    static func byteSegments(of relative: String) -> [String] {
        relative.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    enum Kind: Equatable {
        case missing, link, folder
        /// A regular file, with its permission bits.
        case file(permissions: mode_t)
        /// A device, a FIFO or a socket.
        case special
        case failed(String)
    }

    /// What `name` is in the folder `descriptor`, without following a link unless `followingLinks`.
    static func kind(of name: String, in descriptor: Int32, followingLinks: Bool = false) -> Kind {
        var info = stat()
        guard fstatat(descriptor, name, &info, followingLinks ? 0 : AT_SYMLINK_NOFOLLOW) == 0 else {
            return errno == ENOENT ? .missing : .failed(String(cString: strerror(errno)))
        }
        switch info.st_mode & S_IFMT {
        case S_IFLNK: return .link
        case S_IFDIR: return .folder
        case S_IFREG: return .file(permissions: info.st_mode & 0o777)
        default: return .special
        }
    }

    /// Opens a folder below `descriptor`; fails on a link (`O_NOFOLLOW`) and on anything not a folder.
    static func openFolder(_ name: String, in descriptor: Int32) -> Int32 {
        Self.retrying { openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
    }

    private static func retrying(_ call: () -> Int32) -> Int32 {
        var result: Int32
        repeat {
            result = call()
        } while result < 0 && errno == EINTR
        return result
    }
}
