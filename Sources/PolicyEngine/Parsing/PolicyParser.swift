import WIFFoundation

/// Reads a policy document: checks the IAM grammar, builds the model and compiles it, collecting every
/// problem with its JSON path instead of stopping at the first.
struct PolicyParser {
    static let maximumErrors = 100

    var locator: SourceLocator
    let kind: PolicyKind?
    var diagnostics: [PolicyDiagnostic] = []
    var errorCount = 0
    var version: PolicyVersion?
    /// Byte offsets of elements by JSON path, for warnings found after parsing.
    var offsets: [String: Int] = [:]

    var variablesEnabled: Bool { self.version == .v2012_10_17 }

    static func run(
        _ bytes: [UInt8], kind: PolicyKind?, name: String?, trustedProviders: Set<String>? = nil
    ) -> (Policy?, [PolicyDiagnostic], Bool) {
        var parser = PolicyParser(locator: SourceLocator(bytes: bytes), kind: kind)
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            parser.error("", error.offset, error.message)
            return (nil, parser.diagnostics, true)
        }
        let parsed = parser.parseDocument(root)
        guard let parsed else { return (nil, parser.sorted(), false) }
        // Lint whatever parsed, even when there are errors, so a broken policy's warnings are reported with its
        // errors instead of only after the errors are fixed.
        var linter = PolicyLinter(parser: parser, version: parsed.version, statements: parsed.statements, paths: parsed.paths)
        linter.trustedProviders = trustedProviders
        linter.run()
        parser = linter.parser
        guard parser.errorCount == 0 else { return (nil, parser.sorted(), false) }
        let diagnostics = parser.sorted()
        let policy = Policy(
            version: parsed.version, id: parsed.id, statements: parsed.statements, kind: kind, name: name,
            warnings: diagnostics.filter { $0.severity == .warning },
            compiled: CompiledPolicy(statements: parsed.compiled))
        return (policy, diagnostics, false)
    }

    func sorted() -> [PolicyDiagnostic] {
        // Errors first, then by position, keeping discovery order otherwise.
        self.diagnostics.enumerated().sorted { lhs, rhs in
            let left = lhs.element
            let right = rhs.element
            if left.severity != right.severity { return left.severity == .error }
            if let leftLine = left.line, let rightLine = right.line, leftLine != rightLine { return leftLine < rightLine }
            if let leftColumn = left.column, let rightColumn = right.column, left.line == right.line,
               leftColumn != rightColumn
            {
                return leftColumn < rightColumn
            }
            return lhs.offset < rhs.offset
        }.map(\.element)
    }

    // MARK: Diagnostics

    mutating func error(_ path: String, _ offset: Int, _ message: String, hint: String? = nil) {
        self.errorCount += 1
        if self.errorCount == Self.maximumErrors + 1 {
            self.diagnostics.append(PolicyDiagnostic(severity: .error, path: "", message: "too many errors; stopping"))
        }
        guard self.errorCount <= Self.maximumErrors else { return }
        self.add(.error, path, offset, message, hint)
    }

    mutating func warning(_ path: String, _ offset: Int, _ message: String, hint: String? = nil) {
        guard self.diagnostics.count < 4 * Self.maximumErrors else { return }
        self.add(.warning, path, offset, message, hint)
    }

    private mutating func add(_ severity: PolicyDiagnostic.Severity, _ path: String, _ offset: Int, _ message: String, _ hint: String?) {
        let location = self.locator.location(of: offset)
        self.diagnostics.append(
            PolicyDiagnostic(severity: severity, path: path, message: message, hint: hint, line: location?.line, column: location?.column))
    }

    // MARK: Paths

    static func member(_ path: String, _ key: String) -> String {
        var plain = !key.isEmpty
        for byte in key.utf8 where plain {
            plain = (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "/")
        }
        if plain { return path.isEmpty ? key : "\(path).\(key)" }
        return "\(path)[\(JSONWriter.quoted(key))]"
    }

    static func element(_ path: String, _ index: Int) -> String {
        "\(path)[\(index)]"
    }

    // MARK: Document

    struct ParsedDocument {
        var version: PolicyVersion?
        var id: String?
        var statements: [Statement]
        var compiled: [CompiledStatement]
        /// The JSON path of each statement in `statements` (statements with errors are left out of both).
        var paths: [String]
    }

    mutating func checkDuplicates(_ members: [JSONMember], path: String) {
        var seen: Set<String> = []
        for member in members where !seen.insert(member.key).inserted {
            self.error(Self.member(path, member.key), member.keyOffset, "duplicate key \"\(member.key)\"")
        }
    }

    mutating func parseDocument(_ root: JSONNode) -> ParsedDocument? {
        guard case .object(let members) = root.kind else {
            self.error("", root.offset, "a policy must be a JSON object, not \(root.typeName)")
            return nil
        }
        self.checkDuplicates(members, path: "")
        var versionNode: JSONNode?
        var idNode: JSONNode?
        var statementNode: JSONNode?
        for member in members {
            self.offsets[member.key] = member.keyOffset
            switch member.key {
            case "Version": versionNode = member.value
            case "Id": idNode = member.value
            case "Statement": statementNode = member.value
            default:
                let hint = closestMatch(member.key, in: ["Version", "Id", "Statement"]).map { "did you mean '\($0)'?" }
                self.error(Self.member("", member.key), member.keyOffset, "unknown policy element", hint: hint)
            }
        }
        if let versionNode {
            if let text = versionNode.stringValue, let version = PolicyVersion(rawValue: text) {
                self.version = version
            } else {
                self.error("Version", versionNode.offset, "Version must be \"2012-10-17\" or \"2008-10-17\"")
            }
        }
        var id: String?
        if let idNode {
            if let text = idNode.stringValue { id = text } else {
                self.error("Id", idNode.offset, "Id must be a string, not \(idNode.typeName)")
            }
        }
        guard let statementNode else {
            self.error("", root.offset, "missing Statement element")
            return nil
        }
        var statements: [Statement] = []
        var compiled: [CompiledStatement] = []
        var paths: [String] = []
        switch statementNode.kind {
        case .object:
            if let (statement, compiledStatement) = self.parseStatement(statementNode, path: "Statement", index: 0) {
                paths.append("Statement")
                statements.append(statement)
                compiled.append(compiledStatement)
            }
        case .array(let elements):
            if elements.isEmpty {
                self.error("Statement", statementNode.offset, "Statement must contain at least one statement")
            }
            for (index, element) in elements.enumerated() {
                let path = Self.element("Statement", index)
                guard case .object = element.kind else {
                    self.error(path, element.offset, "a statement must be an object, not \(element.typeName)")
                    continue
                }
                if let (statement, compiledStatement) = self.parseStatement(element, path: path, index: index) {
                    paths.append(path)
                    statements.append(statement)
                    compiled.append(compiledStatement)
                }
            }
        default:
            self.error("Statement", statementNode.offset, "Statement must be an object or an array of objects, not \(statementNode.typeName)")
        }
        return ParsedDocument(version: self.version, id: id, statements: statements, compiled: compiled, paths: paths)
    }

    // MARK: Lists

    /// A string, or an array of strings (non-empty). Records an error and returns `nil` otherwise.
    mutating func stringList(_ node: JSONNode, path: String, what: String) -> [(String, String, Int)]? {
        switch node.kind {
        case .string(let value):
            return [(value, path, node.offset)]
        case .array(let elements):
            guard !elements.isEmpty else {
                self.error(path, node.offset, "\(what) must not be an empty list")
                return nil
            }
            var values: [(String, String, Int)] = []
            var failed = false
            for (index, element) in elements.enumerated() {
                let elementPath = Self.element(path, index)
                if let value = element.stringValue {
                    values.append((value, elementPath, element.offset))
                } else {
                    self.error(elementPath, element.offset, "\(what) entries must be strings, not \(element.typeName)")
                    failed = true
                }
            }
            return failed ? nil : values
        default:
            self.error(path, node.offset, "\(what) must be a string or an array of strings, not \(node.typeName)")
            return nil
        }
    }
}

extension String {
    /// Whether the text contains `${`, scanning bytes (cheaper than a substring search).
    var containsVariableMarker: Bool {
        var previous: UInt8 = 0
        for byte in self.utf8 {
            if previous == UInt8(ascii: "$"), byte == UInt8(ascii: "{") { return true }
            previous = byte
        }
        return false
    }
}
