import WIFFoundation
/// A value of a rule as written, in either SDL or JSON, with the byte offset it starts at, so that one
/// reader of rules serves both forms and every diagnostic can name a line and column.
struct RawValue {
    enum Kind {
        /// A quoted string.
        case string(String)
        /// A bare name: an SDL enum value such as `owner`.
        case name(String)
        case list([RawValue])
        case object([RawField])
        case null
        /// Any other value (a number, a boolean, a variable), named for messages.
        case other(String)
    }

    var kind: Kind
    var offset: Int

    /// The text of a string or a bare name; SDL writes `allow: owner`, JSON `"allow": "owner"`.
    var word: String? {
        switch self.kind {
        case .string(let text), .name(let text): return text
        default: return nil
        }
    }

    /// How messages name the kind of value.
    var typeName: String {
        switch self.kind {
        case .string: return "a string"
        case .name: return "a name"
        case .list: return "a list"
        case .object: return "an object"
        case .null: return "null"
        case .other(let name): return name
        }
    }
}

/// One `name: value` pair of a rule object.
struct RawField {
    var name: String
    var offset: Int
    var value: RawValue
}

/// Collects diagnostics for one document, turning byte offsets into lines and columns.
struct DiagnosticSink {
    private var locator: LineLocator
    private(set) var diagnostics: [RuleDiagnostic] = []

    init(bytes: [UInt8]) {
        self.locator = LineLocator(bytes: bytes)
    }

    mutating func position(of offset: Int) -> SourcePosition? {
        self.locator.position(of: offset)
    }

    mutating func error(_ path: String, _ message: String, hint: String? = nil, at offset: Int) {
        self.add(.error, path, message, hint: hint, at: offset)
    }

    mutating func warning(_ path: String, _ message: String, hint: String? = nil, at offset: Int) {
        self.add(.warning, path, message, hint: hint, at: offset)
    }

    mutating func add(_ severity: RuleDiagnostic.Severity, _ path: String, _ message: String, hint: String?, at offset: Int) {
        let position = self.locator.position(of: offset)
        self.diagnostics.append(
            RuleDiagnostic(severity: severity, path: path, message: message, hint: hint, line: position?.line, column: position?.column)
        )
    }

    mutating func add(_ diagnostic: RuleDiagnostic) {
        self.diagnostics.append(diagnostic)
    }

    /// An error for each key of an object that is not one of `allowed`, with "did you mean" for a near miss.
    mutating func unknownKeys(_ members: [JSONMember], allowed: [String], path: String) {
        for member in members where !allowed.contains(member.key) {
            let hint = closestMatch(member.key, in: allowed).map { "did you mean \($0)?" }
            self.error(path.isEmpty ? member.key : "\(path).\(member.key)", "unknown key \"\(member.key)\"", hint: hint, at: member.keyOffset)
        }
    }

    /// Errors first, then warnings, each in source order.
    var sorted: [RuleDiagnostic] {
        let errors = self.diagnostics.filter { $0.severity == .error }
        let warnings = self.diagnostics.filter { $0.severity == .warning }
        return errors + warnings
    }
}
