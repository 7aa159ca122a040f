extension RuleSet {
    /// What reading a schema or rules file found: the rules, and every problem with its position.
    public struct ReadResult: Sendable {
        /// The rules that could be read; a rule with an error is left out.
        public var ruleSet: RuleSet
        /// Errors first, then warnings.
        public var diagnostics: [RuleDiagnostic]

        /// Whether any diagnostic is an error.
        public var hasErrors: Bool { self.diagnostics.contains { $0.severity == .error } }
    }

    /// Reads the `@auth` rules of a GraphQL schema, reporting every problem instead of stopping at the first.
    /// - Parameter schema: SDL text, with `@model` types, comments and `@auth` on types and fields.
    /// - Returns: The rules and the diagnostics.
    public static func read(schema: String) -> ReadResult {
        let (ruleSet, diagnostics) = SchemaReader.read(schema)
        return ReadResult(ruleSet: ruleSet, diagnostics: diagnostics)
    }

    /// Reads rules in their JSON form, reporting every problem instead of stopping at the first.
    /// - Parameter json: The rules file's bytes, UTF-8.
    /// - Returns: The rules and the diagnostics.
    public static func read(json: [UInt8]) -> ReadResult {
        let (ruleSet, diagnostics) = JSONRulesReader.read(json)
        return ReadResult(ruleSet: ruleSet, diagnostics: diagnostics)
    }

    /// Reads either form: JSON when the text starts with `{`, SDL otherwise.
    /// - Parameter text: A schema or a JSON rules file.
    /// - Returns: The rules and the diagnostics.
    public static func read(text: String) -> ReadResult {
        let first = text.utf8.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF }
        return first == UInt8(ascii: "{") ? read(json: Array(text.utf8)) : read(schema: text)
    }

    /// Reads a GraphQL schema's rules, refusing rules with errors.
    /// - Parameters:
    ///   - schema: SDL text.
    ///   - semantics: How the rules are read.
    /// - Throws: ``AccessRulesError`` with code `malformedSchema` or `invalidRules` and every diagnostic.
    public init(schema: String, semantics: RuleSemantics = .v2) throws(AccessRulesError) {
        let result = Self.read(schema: schema)
        try Self.refuseErrors(result, syntaxCode: .malformedSchema)
        self = result.ruleSet
        self.semantics = semantics
    }

    /// Reads rules in their JSON form, refusing rules with errors.
    /// - Parameter json: The rules file's bytes; its `semantics` key chooses the semantics.
    /// - Throws: ``AccessRulesError`` with code `malformedJSON` or `invalidRules` and every diagnostic.
    public init(json: [UInt8]) throws(AccessRulesError) {
        let result = Self.read(json: json)
        try Self.refuseErrors(result, syntaxCode: .malformedJSON)
        self = result.ruleSet
    }

    private static func refuseErrors(_ result: ReadResult, syntaxCode: AccessRulesError.Code) throws(AccessRulesError) {
        let errors = result.diagnostics.filter { $0.severity == .error }
        guard let first = errors.first else { return }
        // A syntax error leaves no models and a diagnostic with no path.
        let code: AccessRulesError.Code = first.path.isEmpty && result.ruleSet.models.isEmpty ? syntaxCode : .invalidRules
        let location = first.line.map { " at \($0):\(first.column ?? 1)" } ?? ""
        throw AccessRulesError(
            code: code, reason: "\(errors.count) error\(errors.count == 1 ? "" : "s"); the first\(location): \(first.description)",
            diagnostics: result.diagnostics)
    }
}
