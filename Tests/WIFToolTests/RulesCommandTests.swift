import Foundation
import Testing
import WIFTestSupport

/// `wif-tool rules validate` and `wif-tool rules simulate`, run as a user would.
@Suite(.oneToolRunAtATime) struct RulesCommandTests {
    static let schema = """
        # Todos: owners write, and under v1 everyone signed in reads.
        type Todo @model @auth(rules: [{ allow: owner, operations: [create, update, delete] }]) {
          id: ID!
          content: String
          owner: String
        }
        """

    static let badSchema = """
        type Todo @model @auth(rules: [{ allow: ownr }]) {
          id: ID!
        }
        """

    let folder: URL

    init() throws {
        self.folder = try ToolRunner.temporaryDirectory()
    }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let url = self.folder.appendingPathComponent(name)
        try text.write(to: url, atomically: false, encoding: .utf8)
        return url.path
    }

    func run(_ arguments: [String]) throws -> ToolRunner.Result {
        try ToolRunner.run(arguments, environment: ToolRunner.cleanEnvironment(home: self.folder))
    }

    func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    @Test func validateListsErrorsWithPositionsAndFails() throws {
        let bad = try self.write("bad.graphql", Self.badSchema)
        let good = try self.write("good.graphql", Self.schema)
        let result = try self.run(["rules", "validate", bad, good])
        #expect(result.status == 1)
        #expect(self.lines(result.stdout) == [
            "\(bad):1:41: error: Todo.@auth.rules[0].allow: unknown allow \"ownr\" (did you mean owner?)",
            "\(bad): invalid, 1 error, 0 warnings",
            "\(good): valid, 1 model",
        ])
    }

    @Test func validateAcceptsTheJSONForm() throws {
        let path = try self.write("rules.json", #"{"models": {"Todo": {"rules": [{"allow": "owner"}]}}}"#)
        let result = try self.run(["rules", "validate", path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout == "\(path): valid, 1 model\n")
    }

    @Test func simulateDecidesOneOperationAndStatesTheSemantics() throws {
        let schema = try self.write("schema.graphql", Self.schema)
        let bob = #"{"sub": "sub-b", "cognito:username": "bob"}"#
        let arguments = ["rules", "simulate", "--schema", schema, "--model", "Todo", "--operation", "get",
                         "--claims", bob, "--record", #"{"owner": "sub-a::alice"}"#]
        let v2 = try self.run(arguments + ["--explain"])
        #expect(v2.status == 0, "\(v2.stderr)")
        let v2Lines = self.lines(v2.stdout)
        #expect(v2Lines.first == "Deny")
        #expect(v2Lines.last?.hasPrefix("Deny (v2): no rule for the caller's auth mode lists the operation") == true)
        let v1 = try self.run(arguments + ["--semantics", "v1", "--json"])
        #expect(v1.stdout == #"{"decision":"Allow","semantics":"v1","rule":null}"# + "\n")
    }

    @Test func simulateWithoutCredentialsIsDenied() throws {
        let schema = try self.write("schema.graphql", Self.schema)
        let result = try self.run(["rules", "simulate", "--schema", schema, "--model", "Todo", "--operation", "create", "--explain"])
        #expect(result.status == 0)
        #expect(self.lines(result.stdout) == ["Deny", "Deny (v2): the caller has no credentials"])
    }

    @Test func simulateRefusesAModelTheSchemaDoesNotHave() throws {
        let schema = try self.write("schema.graphql", Self.schema)
        let result = try self.run(["rules", "simulate", "--schema", schema, "--model", "Todoo", "--operation", "get"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("--model: the schema has no model 'Todoo'; it has Todo"), "\(result.stderr)")
    }

    @Test func batchRunsCasesReportsBadOnesAndCounts() throws {
        let schema = try self.write("schema.graphql", Self.schema)
        let cases = try self.write("cases.json", """
            {"description": "the Todo/UserA/UserB example", "cases": [
              {"name": "UserA creates", "model": "Todo", "operation": "create",
               "caller": {"authMode": "userPools", "claims": {"sub": "sub-a", "cognito:username": "alice"}},
               "record": {"content": "milk"}, "expected": "Allow"},
              {"name": "UserB reads under v1", "model": "Todo", "operation": "read", "semantics": "v1",
               "caller": {"authMode": "userPools", "claims": {"sub": "sub-b", "cognito:username": "bob"}},
               "record": {"owner": "sub-a::alice"}, "expected": "Allow"},
              {"name": "UserB changes the owner", "model": "Todo", "operation": "update",
               "caller": {"authMode": "userPools", "claims": {"sub": "sub-b", "cognito:username": "bob"}},
               "record": {"owner": "sub-a::alice"}, "update": {"owner": "bob"}, "expected": "Deny"},
              {"name": "signed out", "model": "Todo", "operation": "list", "caller": null, "expected": "Allow"},
              {"name": "typo", "model": "Todo", "operation": "lst", "caller": null}
            ]}
            """)
        let result = try self.run(["rules", "simulate", "--schema", schema, "--cases", cases])
        #expect(result.status == 1)
        #expect(self.lines(result.stdout) == [
            #"{"name":"UserA creates","decision":"Allow","semantics":"v2","rule":"{ allow: owner, operations: [create, update, delete] }","expected":"Allow","ok":true}"#,
            #"{"name":"UserB reads under v1","decision":"Allow","semantics":"v1","rule":null,"expected":"Allow","ok":true}"#,
            #"{"name":"UserB changes the owner","decision":"Deny","semantics":"v2","rule":"{ allow: owner, operations: [create, update, delete] }","expected":"Deny","ok":true}"#,
            #"{"name":"signed out","decision":"Deny","semantics":"v2","rule":null,"expected":"Allow","ok":false}"#,
            #"{"name":"typo","error":"cases[4].operation: unknown operation 'lst' (did you mean 'list'?)","ok":false}"#,
            "3 passed, 2 failed",
        ])
    }

    @Test func simulateRefusesInvalidRulesAsAUsageError() throws {
        let bad = try self.write("bad.graphql", Self.badSchema)
        let result = try self.run(["rules", "simulate", "--schema", bad, "--model", "Todo", "--operation", "get"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("bad.graphql:1:41: error: Todo.@auth.rules[0].allow"))
    }
}
