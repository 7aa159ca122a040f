import AccessRules
import Testing

/// Every mistake the readers report names its line and column, so an editor can jump to it.
@Suite("Diagnostics")
struct DiagnosticTests {
    struct Expected: Sendable, CustomStringConvertible {
        var severity: RuleDiagnostic.Severity
        var path: String
        var line: Int
        var column: Int
        var message: String
        var hint: String?

        var description: String { "\(self.path) \(self.line):\(self.column)" }
    }

    static let schema = """
        # A schema with one mistake of each kind.
        type Todo @model @auth(rules: [{ allow: ownr }]) {
          id: ID!
        }

        type Post @model @auth(rules: [{ allow: groups }, { allow: owner, provider: apiKey }]) {
          id: ID!
        }

        type Note @model @auth(rules: [{ allow: owner, ownerField: "writr" }]) {
          id: ID!
          writer: String
          body: String @auth(rules: [{ allow: public }])
        }
        """

    @Test("SDL: unknown allow, groups without groups, a provider that cannot serve, a missing ownerField, a wider field rule")
    func schemaDiagnostics() {
        let result = RuleSet.read(schema: Self.schema)
        let expected = [
            Expected(severity: .error, path: "Todo.@auth.rules[0].allow", line: 2, column: 41, message: "unknown allow \"ownr\"", hint: "did you mean owner?"),
            Expected(severity: .error, path: "Post.@auth.rules[0]", line: 6, column: 32,
                     message: "a groups rule needs groups (static) or groupsField (dynamic)", hint: "for example groups: [\"Admin\"]"),
            Expected(severity: .error, path: "Post.@auth.rules[1].provider", line: 6, column: 77,
                     message: "provider apiKey cannot serve { allow: owner }: an API key carries no identity", hint: "use userPools, oidc"),
            Expected(severity: .error, path: "Note.@auth.rules[0].ownerField", line: 10, column: 32,
                     message: "ownerField \"writr\" is not a field of Note", hint: "did you mean writer?"),
            Expected(severity: .warning, path: "Note.body.@auth.rules[0]", line: 13, column: 30,
                     message: "the rule on Note.body { allow: public } is wider than the rules of Note; callers it adds still need a rule of the type to reach the record",
                     hint: "narrow the field rule or widen the type's rules"),
        ]
        #expect(result.diagnostics.count == expected.count, "\(result.diagnostics)")
        for (diagnostic, want) in zip(result.diagnostics, expected) {
            #expect(diagnostic.severity == want.severity, "\(want)")
            #expect(diagnostic.path == want.path, "\(want)")
            #expect(diagnostic.line == want.line, "\(want)")
            #expect(diagnostic.column == want.column, "\(want)")
            #expect(diagnostic.message == want.message, "\(want)")
            #expect(diagnostic.hint == want.hint, "\(want)")
        }
        #expect(result.hasErrors)
        #expect(result.ruleSet.modelNames == ["Note", "Post", "Todo"])
    }

    @Test("SDL: the default owner field may be left out, with a warning that clients cannot see it")
    func implicitOwnerField() {
        let result = RuleSet.read(schema: "type Todo @model @auth(rules: [{ allow: owner }]) { id: ID! }")
        #expect(!result.hasErrors)
        #expect(result.diagnostics.map(\.path) == ["Todo.@auth.rules[0].ownerField"])
        #expect(result.diagnostics.first?.severity == .warning)
    }

    @Test("SDL: an owner field that cannot hold names is an error")
    func ownerFieldType() {
        let result = RuleSet.read(schema: "type Todo @model @auth(rules: [{ allow: owner }]) { id: ID! owner: Int }")
        #expect(result.diagnostics.first?.message == "ownerField \"owner\" is Int; it must be String or [String]")
    }

    @Test("SDL: a syntax error comes from the GraphQL parser with its position")
    func schemaSyntaxError() throws {
        let result = RuleSet.read(schema: "type Todo @model {\n  id: ID!\n  name String\n}")
        #expect(result.hasErrors)
        #expect(result.diagnostics.first?.line == 3)
        #expect(result.diagnostics.first?.column == 8)
        #expect(throws: AccessRulesError.malformedSchemaExample) { try RuleSet(schema: "type {") }
    }

    @Test("SDL: hostile nesting is refused before parsing")
    func deepNesting() {
        // The parenthesis of @auth( is the first level, so the 64th bracket is the 65th level.
        let text = "type T @model @auth(rules: " + String(repeating: "[", count: 5000) + ") { id: ID }"
        let result = RuleSet.read(schema: text)
        #expect(result.diagnostics.first?.message == "the schema nests deeper than 64 levels")
        #expect(result.diagnostics.first?.column == 91)
    }

    @Test("SDL: a backslash in a block string does not hide the nesting after it")
    func nestingAfterABlockStringWithABackslash() {
        // In a block string only \""" is an escape: `\"b` is text, and the string ends at the third quote
        // after it, so the brackets that follow are counted.
        let quotes = String(repeating: "\"", count: 3)
        let text = quotes + "a\\\"b" + quotes + "\ntype T @model @auth(rules: " + String(repeating: "[", count: 5000) + ") { id: ID }"
        let result = RuleSet.read(schema: text)
        #expect(result.diagnostics.first?.message == "the schema nests deeper than 64 levels")
        #expect(result.diagnostics.first?.line == 2)
    }

    static let json = """
        {
          "models": {
            "Todo": {
              "fields": {"id": "ID!", "owner": "String"},
              "rules": [{"allow": "owner", "provder": "oidc"}, {"allow": "groups", "operations": ["reed"]}]
            }
          },
          "semantic": "v1"
        }
        """

    @Test("JSON: unknown keys and operations, groups without groups, each at its line and column")
    func jsonDiagnostics() {
        let result = RuleSet.read(json: Array(Self.json.utf8))
        let found = result.diagnostics.map { "\($0.line ?? 0):\($0.column ?? 0) \($0.path) \($0.hint ?? "")" }
        #expect(found == [
            "8:3 semantic did you mean semantics?",
            "5:36 models.Todo.rules[0].provder did you mean provider?",
            "5:56 models.Todo.rules[1] for example groups: [\"Admin\"]",
            "5:91 models.Todo.rules[1].operations did you mean read?",
        ])
        #expect(throws: AccessRulesError(code: .invalidRules, reason: "")) { try RuleSet(json: Array(Self.json.utf8)) }
    }

    @Test("JSON: a syntax error names its position")
    func jsonSyntaxError() {
        let result = RuleSet.read(json: Array("{\"models\": {\n  \"Todo\": {,}}}".utf8))
        #expect(result.diagnostics.first?.line == 2)
        #expect(result.diagnostics.first?.column == 12)
        #expect(throws: AccessRulesError(code: .malformedJSON, reason: "")) { try RuleSet(json: Array("{".utf8)) }
    }
}

extension AccessRulesError {
    static let malformedSchemaExample = AccessRulesError(code: .malformedSchema, reason: "")
}
