/// One problem found while reading rules: where it is (a path such as `Todo.@auth.rules[1].allow`,
/// plus line and column) and why.
public struct RuleDiagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How serious a diagnostic is. Rules with any error are rejected; warnings flag legal but risky rules.
    public enum Severity: String, Sendable, Hashable, Codable {
        /// The rules cannot be evaluated as written.
        case error
        /// The rules are legal but probably do not do what their author intended.
        case warning
    }

    /// Whether this is an error or a warning.
    public var severity: Severity
    /// The path of the element: `Model.@auth.rules[0].allow`, `Model.field.@auth…`, or a JSON path.
    public var path: String
    /// What is wrong, in words.
    public var message: String
    /// A suggestion, such as the name that was probably meant.
    public var hint: String?
    /// The 1-based line of the element, when known.
    public var line: Int?
    /// The 1-based column (in characters) of the element, when known.
    public var column: Int?

    /// Creates a diagnostic.
    /// - Parameters:
    ///   - severity: Error or warning.
    ///   - path: The path of the element.
    ///   - message: What is wrong.
    ///   - hint: An optional suggestion.
    ///   - line: The 1-based line, if known.
    ///   - column: The 1-based column, if known.
    public init(
        severity: Severity, path: String, message: String, hint: String? = nil, line: Int? = nil, column: Int? = nil
    ) {
        self.severity = severity
        self.path = path
        self.message = message
        self.hint = hint
        self.line = line
        self.column = column
    }

    /// `path: message`, with the hint in parentheses when there is one.
    public var description: String {
        var text = self.path.isEmpty ? self.message : "\(self.path): \(self.message)"
        if let hint { text += " (\(hint))" }
        return text
    }

    /// A compiler-style line for terminals: `name:line:column: error: path: message (hint)`.
    /// - Parameter sourceName: The file name to show, for example `schema.graphql`.
    /// - Returns: The formatted line.
    public func formatted(sourceName: String = "schema") -> String {
        var location = sourceName
        if let line {
            location += ":\(line)"
            if let column { location += ":\(column)" }
        }
        return "\(location): \(self.severity.rawValue): \(self.description)"
    }
}
