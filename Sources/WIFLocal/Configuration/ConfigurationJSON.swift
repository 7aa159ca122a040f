import WIFFoundation

/// A JSON value of a configuration file, read by the package's strict JSON reader, with the byte
/// range it came from so that an inline policy can be handed to PolicyEngine exactly as written and
/// every problem can name its line.
struct ConfigurationJSON: Sendable {
    enum Value: Sendable {
        case object([(key: String, value: ConfigurationJSON)])
        case array([ConfigurationJSON])
        case string(String)
        /// The number as written.
        case number(String)
        case bool(Bool)
        case null
    }

    var value: Value
    /// The byte range of the value in the source.
    var range: Range<Int>

    /// What kind of value this is, for messages (`an object`, `a string`, …).
    var typeName: String {
        switch self.value {
        case .object: JSONNode.TypeName.object
        case .array: JSONNode.TypeName.array
        case .string: JSONNode.TypeName.string
        case .number: JSONNode.TypeName.number
        case .bool: JSONNode.TypeName.bool
        case .null: JSONNode.TypeName.null
        }
    }

    /// A syntax error at a byte offset.
    struct SyntaxError: Error, Sendable {
        var offset: Int
        var message: String
    }

    /// Parses a JSON document with the package's strict reader, refusing a key named twice.
    static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> ConfigurationJSON {
        do {
            return ConfigurationJSON(try JSONParser.parse(bytes, options: JSONParser.Options(rejectsDuplicateKeys: true)))
        } catch {
            throw SyntaxError(offset: error.offset, message: error.message)
        }
    }

    /// The 1-based line and column of an offset.
    static func location(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        JSONParser.location(of: offset, in: bytes)
    }

    private init(_ node: JSONNode) {
        self.range = node.range
        switch node.kind {
        case .object(let members): self.value = .object(members.map { (key: $0.key, value: ConfigurationJSON($0.value)) })
        case .array(let elements): self.value = .array(elements.map(ConfigurationJSON.init))
        case .string(let text): self.value = .string(text)
        case .number(let text): self.value = .number(text)
        case .bool(let flag): self.value = .bool(flag)
        case .null: self.value = .null
        }
    }
}
