import Foundation

/// Where the shared config and credentials files are, and which profile is selected, as the AWS SDKs
/// work them out from the environment.
///
/// - The config file is `AWS_CONFIG_FILE`, else `~/.aws/config`; the credentials file is
///   `AWS_SHARED_CREDENTIALS_FILE`, else `~/.aws/credentials`.
/// - A leading `~` path component is replaced with the home directory: `HOME`; on Windows, when `HOME`
///   is unset, `USERPROFILE`, then `HOMEDRIVE` followed by `HOMEPATH`. When no home directory is
///   known the `~` is left in place, as the SDKs do.
/// - The selected profile is `AWS_PROFILE`, else `default`.
///
/// Variables set to the empty string count as unset.
public struct AWSConfigFileLocation: Sendable, Hashable {
    /// The path conventions to resolve paths with.
    public enum Platform: String, Sendable, Hashable, CaseIterable {
        /// Linux, macOS and other POSIX systems: `/` separates path components and only `HOME`
        /// names the home directory.
        case posix
        /// Windows: `\` separates path components (`/` is accepted too) and `USERPROFILE` or
        /// `HOMEDRIVE` + `HOMEPATH` stand in for an unset `HOME`.
        case windows

        /// The platform this program runs on.
        public static var current: Platform {
            #if os(Windows)
            .windows
            #else
            .posix
            #endif
        }

        var separator: String {
            switch self {
            case .posix: "/"
            case .windows: "\\"
            }
        }

        func isSeparator(_ character: Character) -> Bool {
            switch self {
            case .posix: character == "/"
            case .windows: character == "/" || character == "\\"
            }
        }
    }

    /// The shared config file's path.
    public var configFilePath: String
    /// The shared credentials file's path.
    public var credentialsFilePath: String
    /// The name of the selected profile.
    public var profileName: String

    /// Creates a location from explicit paths.
    /// - Parameters:
    ///   - configFilePath: The shared config file's path, used as given.
    ///   - credentialsFilePath: The shared credentials file's path, used as given.
    ///   - profileName: The selected profile.
    public init(configFilePath: String, credentialsFilePath: String, profileName: String = "default") {
        self.configFilePath = configFilePath
        self.credentialsFilePath = credentialsFilePath
        self.profileName = profileName
    }

    /// Works the location out from environment variables.
    /// - Parameters:
    ///   - environment: The variables to read; by default the process environment.
    ///   - platform: The path conventions to apply; by default this platform's.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        platform: Platform = .current
    ) {
        let home = Self.homeDirectory(environment: environment, platform: platform)
        func path(_ kind: AWSConfigFileKind) -> String {
            let configured = Self.value(kind.environmentVariable, in: environment) ?? kind.defaultPath
            return Self.expandingHome(in: configured, homeDirectory: home, platform: platform)
        }
        self.configFilePath = path(.config)
        self.credentialsFilePath = path(.credentials)
        self.profileName = Self.value("AWS_PROFILE", in: environment) ?? "default"
    }

    /// The path of the given file.
    /// - Parameter kind: Which file.
    public func path(of kind: AWSConfigFileKind) -> String {
        switch kind {
        case .config: self.configFilePath
        case .credentials: self.credentialsFilePath
        }
    }

    /// The user's home directory according to the environment.
    /// - Parameters:
    ///   - environment: The variables to read.
    ///   - platform: On ``Platform/windows``, `USERPROFILE` and `HOMEDRIVE`+`HOMEPATH` are consulted
    ///     when `HOME` is unset.
    /// - Returns: The home directory, or `nil` when the environment does not say.
    public static func homeDirectory(environment: [String: String], platform: Platform) -> String? {
        if let home = Self.value("HOME", in: environment) { return home }
        guard platform == .windows else { return nil }
        if let profile = Self.value("USERPROFILE", in: environment) { return profile }
        if let drive = Self.value("HOMEDRIVE", in: environment), let path = Self.value("HOMEPATH", in: environment) {
            return drive + path
        }
        return nil
    }

    /// Replaces a leading `~` path component with `homeDirectory`.
    ///
    /// Only `~` alone or followed by a separator is expanded (`~other/x` is left as is). The rest of
    /// the path is re-joined with the platform's separator, dropping empty and `.` components.
    /// - Parameters:
    ///   - path: The path to expand.
    ///   - homeDirectory: The home directory; when `nil` the path's `~` is kept.
    ///   - platform: The path conventions to apply.
    /// - Returns: The expanded path.
    public static func expandingHome(in path: String, homeDirectory: String?, platform: Platform) -> String {
        guard path.first == "~" else { return path }
        let rest = path.dropFirst()
        guard rest.isEmpty || rest.first.map(platform.isSeparator) == true else { return path }
        var result = homeDirectory ?? "~"
        for component in rest.split(whereSeparator: platform.isSeparator) where component != "." {
            if !(result.last.map(platform.isSeparator) ?? false) { result += platform.separator }
            result += component
        }
        return result
    }

    private static func value(_ name: String, in environment: [String: String]) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }
}
