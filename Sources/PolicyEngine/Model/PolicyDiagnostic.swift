/// One problem found while reading a policy: where it is (a JSON path such as
/// `Statement[1].Condition.StringLikes`, plus line and column when the policy came from text) and why.
public struct PolicyDiagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How serious a diagnostic is. A policy with any error is rejected; warnings flag risky but legal policies.
    public enum Severity: String, Sendable, Hashable, Codable {
        /// The policy is invalid; AWS would reject it or it cannot be evaluated faithfully.
        case error
        /// The policy is legal but probably does not do what its author intended.
        case warning
    }

    /// Whether this is an error or a warning.
    public var severity: Severity
    /// The JSON path of the element, for example `Statement[0].Resource[2]`; empty for the whole document.
    public var path: String
    /// What is wrong, in words.
    public var message: String
    /// A suggestion, such as the operator name that was probably meant.
    public var hint: String?
    /// The 1-based line of the element in the policy text, when known.
    public var line: Int?
    /// The 1-based column (in characters) of the element in the policy text, when known.
    public var column: Int?

    /// Creates a diagnostic.
    /// - Parameters:
    ///   - severity: Error or warning.
    ///   - path: The JSON path of the element.
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
    /// - Parameter sourceName: The file name to show, for example `policy.json`.
    /// - Returns: The formatted line.
    public func formatted(sourceName: String = "policy") -> String {
        var location = sourceName
        if let line {
            location += ":\(line)"
            if let column { location += ":\(column)" }
        }
        return "\(location): \(self.severity.rawValue): \(self.description)"
    }
}
