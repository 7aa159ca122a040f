import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Temporary files and folders for tests. Everything lives inside one folder per test process,
/// which is removed when the process exits, so a test run leaves nothing behind in the system's
/// temporary folder however its tests end.
///
/// An instance is one new folder, removed as soon as the last reference to it goes.
public final class TemporaryFolder: Sendable {
    /// The folder's path.
    public let path: String

    /// Creates a new, empty folder inside ``root``.
    /// - Parameter prefix: The start of its name.
    public init(_ prefix: String = "wif") throws {
        let path = Self.path(prefix)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        self.path = path
    }

    deinit {
        try? FileManager.default.removeItem(atPath: self.path)
    }

    /// The path of `name` inside the folder.
    public func file(_ name: String) -> String { self.path + "/" + name }

    /// The names in the folder, hidden ones included (`["<unreadable>"]` if it cannot be read).
    public func contents() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: self.path).sorted()) ?? ["<unreadable>"]
    }

    /// The folder that holds everything this process creates; made on first use.
    public static let root: URL = {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("wif-tests-\(getpid())-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: TemporaryFolder.root) }
        return url
    }()

    /// A fresh path inside ``root``: `prefix`, a unique suffix, then `suffix` (such as `.json`).
    /// Nothing is created there.
    public static func url(_ prefix: String, suffix: String = "") -> URL {
        self.root.appendingPathComponent("\(prefix)-\(UUID().uuidString)\(suffix)")
    }

    /// ``url(_:suffix:)`` as a file-system path.
    public static func path(_ prefix: String, suffix: String = "") -> String {
        self.url(prefix, suffix: suffix).path
    }

    /// A new, empty folder inside ``root``.
    public static func make(_ prefix: String) throws -> URL {
        let url = self.url(prefix)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
