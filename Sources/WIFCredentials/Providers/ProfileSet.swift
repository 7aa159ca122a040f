/// The profiles and other sections of the shared config and credentials files, merged as the AWS
/// SDKs merge them, plus the name of the selected profile.
///
/// Build one with ``load(environment:platform:)`` (reads the files the environment points at), with
/// ``load(from:)``, or from text with ``init(configFile:credentialsFile:selectedProfileName:)``.
///
/// ```swift
/// let profiles = try AWSProfileSet.load()
/// if let profile = profiles.selectedProfile, let roleARN = profile.roleARN { … }
/// ```
public struct AWSProfileSet: Sendable, Hashable, CustomStringConvertible {
    /// Profiles by name.
    public internal(set) var profiles: [String: AWSProfile]
    /// `[sso-session name]` sections of the config file, by name.
    public internal(set) var ssoSessions: [String: AWSConfigFileSection]
    /// Other `[type name]` sections of the config file (such as `services`), by type, then name.
    public internal(set) var otherSections: [String: [String: AWSConfigFileSection]]
    /// The profile callers should use: `AWS_PROFILE` when loaded from the environment, else `default`.
    public var selectedProfileName: String
    /// The files merged into this set, in order, for messages.
    public internal(set) var sourcePaths: [String]
    /// Sections and properties that were skipped because the file format does not allow them (a
    /// config-file section without the `profile` prefix, an invalid name, …). Never holds values.
    public internal(set) var warnings: [String]

    /// Creates an empty set.
    /// - Parameter selectedProfileName: The profile callers should use.
    public init(selectedProfileName: String = "default") {
        self.profiles = [:]
        self.ssoSessions = [:]
        self.otherSections = [:]
        self.selectedProfileName = selectedProfileName
        self.sourcePaths = []
        self.warnings = []
    }

    /// Parses file contents given as text, config first, then credentials, whose values win.
    /// - Parameters:
    ///   - configFile: The shared config file's contents, if any.
    ///   - credentialsFile: The shared credentials file's contents, if any.
    ///   - selectedProfileName: The profile callers should use.
    /// - Throws: ``WIFCredentialsError`` with code `profileParse` naming the file and line.
    public init(configFile: String? = nil, credentialsFile: String? = nil, selectedProfileName: String = "default")
        throws
    {
        self.init(selectedProfileName: selectedProfileName)
        if let configFile { try self.merge(contents: configFile, kind: .config) }
        if let credentialsFile { try self.merge(contents: credentialsFile, kind: .credentials) }
    }

    /// The profile named `name`.
    /// - Parameter name: The profile's name (case-sensitive).
    public subscript(profile name: String) -> AWSProfile? {
        self.profiles[name]
    }

    /// The profile named by ``selectedProfileName``, if the files define it.
    public var selectedProfile: AWSProfile? {
        self.profiles[self.selectedProfileName]
    }

    /// The `[sso-session name]` section called `name`.
    /// - Parameter name: The session's name.
    public func ssoSession(named name: String) -> AWSConfigFileSection? {
        self.ssoSessions[name]
    }

    /// The `[services name]` section called `name`, as referenced by a profile's
    /// ``AWSProfile/services`` setting.
    /// - Parameter name: The section's name.
    public func servicesSection(named name: String) -> AWSConfigFileSection? {
        self.otherSections["services"]?[name]
    }

    /// The profile names and file paths; property values are not printed.
    public var description: String {
        var text = "AWSProfileSet(selected: \(self.selectedProfileName), profiles: [\(self.profiles.keys.sorted().joined(separator: ", "))]"
        if !self.ssoSessions.isEmpty {
            text += ", ssoSessions: [\(self.ssoSessions.keys.sorted().joined(separator: ", "))]"
        }
        if !self.sourcePaths.isEmpty { text += ", files: [\(self.sourcePaths.joined(separator: ", "))]" }
        return text + ")"
    }
}
