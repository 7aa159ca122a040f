/// Something read from a shared config or credentials file that holds `name = value` properties: a
/// profile or another section.
///
/// Property names are case-insensitive, as in the AWS SDKs: they are stored lower-cased and looked up
/// lower-cased.
public protocol AWSConfigProperties: Sendable {
    /// The properties, keyed by lower-cased name. Sub-property blocks are kept as written (a leading
    /// newline, then one `name = value` per line); read them with ``subProperties(_:)``.
    var properties: [String: String] { get }
}

extension AWSConfigProperties {
    /// The value of property `key`, matched without regard to ASCII case; `nil` when absent.
    ///
    /// An empty value (`name =`) is returned as `""`.
    /// - Parameter key: The property name, such as `region`.
    public subscript(key: String) -> String? {
        self.properties[AWSConfigFileParser.asciiLowercased(key)]
    }

    /// The value of sub-property `subProperty` inside property `key`, as in
    /// `s3 =\n  endpoint_url = http://127.0.0.1:9000`.
    /// - Parameters:
    ///   - key: The property holding a sub-property block.
    ///   - subProperty: The name inside the block.
    public subscript(key: String, subProperty subProperty: String) -> String? {
        self.subProperties(key)[AWSConfigFileParser.asciiLowercased(subProperty)]
    }

    /// The sub-properties of property `key`, keyed by lower-cased name; empty when the property is
    /// missing or holds a plain value.
    /// - Parameter key: The property holding the block.
    /// - Returns: The block's `name = value` pairs.
    public func subProperties(_ key: String) -> [String: String] {
        guard let value = self[key] else { return [:] }
        return AWSConfigFileParser.subProperties(of: value)
    }
}
