import Foundation
import WIFFoundation

extension AWSProfileSet {
    /// Reads the shared config and credentials files the environment points at and merges them.
    ///
    /// See ``AWSConfigFileLocation`` for how the paths and the selected profile are found. A file that
    /// does not exist counts as empty, as in the AWS SDKs.
    /// - Parameters:
    ///   - environment: The variables to read; by default the process environment.
    ///   - platform: The path conventions to apply; by default this platform's.
    /// - Returns: The merged profiles, with ``selectedProfileName`` from `AWS_PROFILE`.
    /// - Throws: ``WIFCredentialsError`` with code `profileParse` when a file is malformed or not
    ///   UTF-8, or `invalidConfiguration` when a file exists but cannot be read.
    public static func load(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        platform: AWSConfigFileLocation.Platform = .current
    ) throws -> AWSProfileSet {
        try Self.load(from: AWSConfigFileLocation(environment: environment, platform: platform))
    }

    /// Reads the shared config and credentials files at `location` and merges them: config first,
    /// then credentials, whose values win.
    /// - Parameter location: The files to read and the profile to select.
    /// - Returns: The merged profiles, with ``selectedProfileName`` from `location`.
    /// - Throws: ``WIFCredentialsError`` with code `profileParse` when a file is malformed or not
    ///   UTF-8, or `invalidConfiguration` when a file exists but cannot be read.
    public static func load(from location: AWSConfigFileLocation) throws -> AWSProfileSet {
        var set = AWSProfileSet(selectedProfileName: location.profileName)
        for kind in [AWSConfigFileKind.config, .credentials] {
            let path = location.path(of: kind)
            guard let contents = try Self.readFile(atPath: path) else { continue }
            try set.merge(contents: contents, kind: kind, path: path)
        }
        return set
    }

    /// The file's text, or `nil` when nothing exists at `path`.
    private static func readFile(atPath path: String) throws -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw WIFCredentialsError.invalidConfiguration("could not read \(path): \(FileFailure.reason(error, path: path))")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw WIFCredentialsError.profileParse("error parsing \(path): the file is not UTF-8 text")
        }
        return text
    }
}
