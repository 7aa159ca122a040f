/// A non-profile section of the shared config file: `[sso-session name]`, `[services name]`, or any
/// other `[type name]` section.
///
/// Property names are case-insensitive: they are stored lower-cased and looked up lower-cased.
/// Values that look secret are redacted from `description`.
public struct AWSConfigFileSection: AWSConfigProperties, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The word before the name in the header, such as `sso-session` or `services`.
    public let type: String
    /// The section's name, as written after its type.
    public let name: String
    /// The section's properties, keyed by lower-cased name. Sub-property blocks are kept as written
    /// (a leading newline, then one `name = value` per line); read them with ``subProperties(_:)``.
    public internal(set) var properties: [String: String]

    /// Creates a section.
    /// - Parameters:
    ///   - type: The word before the name in the header, such as `services`.
    ///   - name: The section's name.
    ///   - properties: Its properties; names are lower-cased.
    public init(type: String, name: String, properties: [String: String] = [:]) {
        self.type = type
        self.name = name
        self.properties = AWSProfile.normalisedKeys(properties)
    }

    /// The section's type, name and properties, with secret-looking values redacted.
    public var description: String {
        "AWSConfigFileSection(\(self.type) \(self.name)\(AWSProfile.describe(self.properties)))"
    }

    /// Same as ``description``.
    public var debugDescription: String { self.description }
}
