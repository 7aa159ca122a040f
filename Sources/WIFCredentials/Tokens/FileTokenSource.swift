import Foundation
import Logging
import Synchronization

/// A token source that reads the token from a file, such as the service-account token Kubernetes
/// projects into a pod (`AWS_WEB_IDENTITY_TOKEN_FILE`).
///
/// The file is rotated behind the application's back, so each ``token(forceRefresh:logger:)`` checks
/// it with a cheap `stat` and reads it again only when its identity, size or modification time changed
/// (symbolic links are followed, so Kubernetes' atomic swap of the `..data` link is seen). With
/// `forceRefresh` it is always read. Surrounding whitespace, newlines and a UTF-8 byte-order mark are
/// removed. Errors name the file and the problem, never the token.
public struct FileTokenSource: WebIdentityTokenSource, CustomStringConvertible {
    /// The path of the token file.
    public let path: String
    private let fileAccess: FileAccess
    private let storage: Storage

    /// Creates a source reading `path`. Nothing is read until the first token is asked for.
    /// - Parameter path: The token file's path; a relative path is resolved against the working
    ///   directory at each read.
    public init(path: String) {
        self.init(path: path, fileAccess: .posix)
    }

    /// Creates a source reading `path` through `fileAccess` (tests count reads with it).
    package init(path: String, fileAccess: FileAccess) {
        self.path = path
        self.fileAccess = fileAccess
        self.storage = Storage()
    }

    /// Returns the token in the file, reading it only if it changed since the last read or when
    /// `forceRefresh` is `true`.
    /// - Throws: ``WIFCredentialsError`` with code `tokenUnavailable` when the file is missing,
    ///   unreadable, not a regular file, empty, too large or not UTF-8.
    public func token(forceRefresh: Bool, logger: Logger) async throws -> WebIdentityToken {
        let current = try self.fileAccess.identify(self.path)
        if !forceRefresh, let cached = self.storage.cached.withLock({ $0 }), cached.identity == current {
            return cached.token
        }
        let (data, identity) = try self.fileAccess.read(self.path)
        let origin = "web-identity token file '\(self.path)'"
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw WIFCredentialsError.tokenUnavailable("\(origin) is not valid UTF-8 text")
        }
        let token = try WebIdentityToken.validated(text, origin: origin)
        self.storage.cached.withLock { $0 = Cached(identity: identity, token: token) }
        var metadata: Logger.Metadata = ["wif.token.path": "\(self.path)", "wif.token.bytes": "\(token.value.utf8.count)"]
        if let expiration = token.expiration { metadata["wif.token.expiration"] = "\(expiration.formatted(.iso8601))" }
        logger.debug("read web-identity token file", metadata: metadata)
        return token
    }

    /// The type and the file's path; never the token.
    public var description: String { "FileTokenSource(path: \(self.path))" }

    private struct Cached: Sendable {
        var identity: FileAccess.Identity
        var token: WebIdentityToken
    }

    private final class Storage: Sendable {
        let cached = Mutex<Cached?>(nil)
    }
}

extension WebIdentityTokenSource where Self == FileTokenSource {
    /// A source reading the token from the file at `path`, again whenever the file changes.
    /// - Parameter path: The token file's path.
    /// - Returns: A ``FileTokenSource``.
    public static func file(_ path: String) -> FileTokenSource {
        FileTokenSource(path: path)
    }
}
