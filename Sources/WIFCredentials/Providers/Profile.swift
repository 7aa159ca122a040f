/// One named profile from the shared config and credentials files, after merging both.
///
/// Property names are case-insensitive, as in the AWS SDKs: they are stored lower-cased and looked up
/// lower-cased. Values are kept exactly as the files give them (trimmed; continuation lines joined by
/// newlines). Read any setting with the subscript, `profile["role_arn"]`, or with the accessors in
/// `Profile+Settings.swift`.
///
/// `description` lists the properties but redacts the values of `aws_secret_access_key`,
/// `aws_session_token` and any other name that looks secret, so a profile can be logged.
public struct AWSProfile: AWSConfigProperties, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The profile's name: `default`, or the `name` of `[profile name]` / `[name]`.
    public let name: String
    /// The profile's properties, keyed by lower-cased name. Sub-property blocks are kept as written
    /// (a leading newline, then one `name = value` per line); read them with ``subProperties(_:)``.
    public internal(set) var properties: [String: String]

    /// Creates a profile.
    /// - Parameters:
    ///   - name: The profile's name.
    ///   - properties: Its properties; names are lower-cased.
    public init(name: String, properties: [String: String] = [:]) {
        self.name = name
        self.properties = Self.normalisedKeys(properties)
    }

    /// The profile's name and properties, with secret values redacted.
    public var description: String {
        "AWSProfile(\(self.name)\(Self.describe(self.properties)))"
    }

    /// Same as ``description``.
    public var debugDescription: String { self.description }
}

extension AWSProfile {
    /// Property names whose values are always secret.
    static let secretPropertyNames: Set<String> = [
        "aws_secret_access_key", "aws_session_token", "aws_security_token",
    ]

    /// Whether the value of a property with this (lower-cased) name must not be printed.
    static func isSecret(propertyName name: String) -> Bool {
        if Self.secretPropertyNames.contains(name) { return true }
        return name.contains("secret") || name.contains("password") || name.hasSuffix("_token")
    }

    /// `properties` with lower-cased names.
    static func normalisedKeys(_ properties: [String: String]) -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in properties {
            result[AWSConfigFileParser.asciiLowercased(key)] = value
        }
        return result
    }

    /// `", key: value, …"` sorted by name, secret values (also inside sub-property blocks) redacted.
    static func describe(_ properties: [String: String]) -> String {
        var text = ""
        for name in properties.keys.sorted() {
            text += ", \(name): \(Self.redacted(properties[name] ?? "", name: name))"
        }
        return text
    }

    private static func redacted(_ value: String, name: String) -> String {
        if Self.isSecret(propertyName: name) { return "<redacted>" }
        guard value.contains("\n") else { return value }
        let lines = value.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard let equals = line.firstIndex(of: "=") else { return String(line) }
            let subName = AWSConfigFileParser.asciiLowercased(AWSConfigFileParser.trimmingWhitespace(String(line[..<equals])))
            return Self.isSecret(propertyName: subName) ? "\(line[..<equals])= <redacted>" : String(line)
        }
        return lines.joined(separator: "\n")
    }
}

extension AWSProfile: CustomReflectable {
    /// No children: `dump` and `Mirror(reflecting:)` would otherwise list the stored secrets that
    /// ``description`` leaves out.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
