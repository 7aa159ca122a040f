import Foundation
@testable import WIFLocal
import WIFTestSupport

/// Temporary folders and configuration files for the configuration suites.
enum ConfigurationTestSupport {
    /// The repository's root, found from this file's path.
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Configuration
        .deletingLastPathComponent()  // WIFLocalTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// Runs `body` with a fresh folder that is removed afterwards.
    static func withFolder<T>(_ body: (URL) throws -> T) throws -> T {
        let folder = TemporaryFolder.url("wif-config")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder)
    }

    /// Writes `text` to `name` in `folder` and returns the path.
    @discardableResult
    static func write(_ text: String, to name: String, in folder: URL) throws -> String {
        let url = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// Loads configuration JSON written to `wif.json` in a fresh folder, with files beside it.
    static func load(_ json: String, files: [String: String] = [:]) throws -> LocalConfiguration {
        try self.withFolder { folder in
            for (name, text) in files { try self.write(text, to: name, in: folder) }
            let path = try self.write(json, to: "wif.json", in: folder)
            return try LocalConfiguration.load(file: path, dataDirectory: folder.appendingPathComponent("data").path)
        }
    }

    /// The message of the error that loading configuration JSON throws, or `nil` when it loads.
    static func loadError(_ json: String, files: [String: String] = [:]) throws -> String? {
        try self.withFolder { folder -> String? in
            for (name, text) in files { try self.write(text, to: name, in: folder) }
            let path = try self.write(json, to: "wif.json", in: folder)
            do {
                _ = try LocalConfiguration.load(file: path, dataDirectory: folder.appendingPathComponent("data").path)
                return nil
            } catch let error as LocalStackError {
                // Messages start with the file's path, which differs per run.
                return error.message.replacingOccurrences(of: path, with: "wif.json")
            }
        }
    }
}
