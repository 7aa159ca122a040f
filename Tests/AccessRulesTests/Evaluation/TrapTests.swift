import AccessRules
import Testing

/// The traps Amplify's users fall into, and how the evaluator closes them.
@Suite("Traps")
struct TrapTests {
    static let alice = Caller.userPools(sub: "sub-a", username: "alice")
    static let bob = Caller.userPools(sub: "sub-b", username: "bob")
    static let hr = Caller.userPools(sub: "sub-h", username: "hana", groups: ["HR"])

    static let sharedSchema = """
        # Every signed-in user may edit a wiki page, but only its owner may give it away.
        type Page @model @auth(rules: [{ allow: owner }, { allow: private }]) {
          id: ID!
          body: String
          owner: String
        }
        """

    @Test("A private rule does not let a non-owner change the owner field")
    func ownerChangeByNonOwner() throws {
        let rules = RuleEvaluator(ruleSet: try RuleSet(schema: Self.sharedSchema))
        let page: Record = ["owner": "sub-a::alice", "body": "text"]
        #expect(rules.decide(model: "Page", operation: .update, caller: Self.bob, before: page, after: ["body": "edit"]).isAllowed)
        let steal = rules.decide(model: "Page", operation: .update, caller: Self.bob, before: page, after: ["owner": "sub-b::bob"])
        #expect(steal.outcome == .deny)
        #expect(steal.reason == .ownerChangeByNonOwner(field: "owner"))
        #expect(steal.explanation.contains("changes owner"))
        // Sending the stored owner unchanged is not a change.
        #expect(rules.decide(model: "Page", operation: .update, caller: Self.bob, before: page, after: ["owner": "sub-a::alice"]).isAllowed)
    }

    @Test("A private rule does not let a caller create a record in someone else's name")
    func createForSomeoneElseThroughPrivate() throws {
        let rules = RuleEvaluator(ruleSet: try RuleSet(schema: Self.sharedSchema))
        let decision = rules.decide(model: "Page", operation: .create, caller: Self.bob, after: ["owner": "alice"])
        #expect(decision.reason == .createdForSomeoneElse(field: "owner"))
        #expect(rules.decide(model: "Page", operation: .create, caller: Self.bob, after: ["owner": "bob"]).isAllowed)
    }

    static let employeeSchema = """
        type Employee @model @auth(rules: [{ allow: private }]) {
          id: ID!
          name: String
          owner: String
          salary: Int @auth(rules: [{ allow: owner, operations: [read] }, { allow: groups, groups: ["HR"] }])
        }
        """

    @Test("A field rule hides the field from other readers and says which rule")
    func fieldRedactedOnRead() throws {
        let rules = RuleEvaluator(ruleSet: try RuleSet(schema: Self.employeeSchema))
        let employee: Record = ["owner": "sub-a::alice", "name": "Alice", "salary": .other("100")]
        let other = rules.decide(model: "Employee", operation: .get, caller: Self.bob, before: employee)
        #expect(other.isAllowed)
        #expect(other.redactions.map(\.field) == ["salary"])
        #expect(other.redactions.first?.rule?.allow == .owner)
        #expect(other.explanation.contains("field salary is null"))
        #expect(rules.decide(model: "Employee", operation: .get, caller: Self.alice, before: employee).redactions.isEmpty)
        #expect(rules.decide(model: "Employee", operation: .get, caller: Self.hr, before: employee).redactions.isEmpty)
    }

    @Test("A field rule refuses an update touching the field, not one leaving it alone")
    func fieldRefusedOnUpdate() throws {
        let rules = RuleEvaluator(ruleSet: try RuleSet(schema: Self.employeeSchema))
        let employee: Record = ["owner": "sub-a::alice", "name": "Alice"]
        let raise = rules.decide(model: "Employee", operation: .update, caller: Self.alice, before: employee, after: ["salary": .other("200")])
        #expect(raise.reason == .fieldRefused(field: "salary"))
        #expect(raise.field == "salary")
        #expect(rules.decide(model: "Employee", operation: .update, caller: Self.alice, before: employee, after: ["name": "Al"]).isAllowed)
        #expect(rules.decide(model: "Employee", operation: .update, caller: Self.hr, before: employee, after: ["salary": .other("200")]).isAllowed)
    }

    @Test("A custom rule is decided by the server's closure, and says so")
    func customRule() throws {
        let ruleSet = try RuleSet(schema: "type Ticket @model @auth(rules: [{ allow: custom }]) { id: ID! }")
        let rules = RuleEvaluator(ruleSet: ruleSet) { request in
            request.caller.claims["tier"] == .string("gold") && request.operation != .delete
        }
        let gold = Caller.function(claims: ["tier": "gold"])
        #expect(rules.decide(model: "Ticket", operation: .get, caller: gold, before: [:]).isAllowed)
        let delete = rules.decide(model: "Ticket", operation: .delete, caller: gold, before: [:])
        #expect(delete.reason == .customDenied)
        #expect(delete.explanation.contains("custom authorizer refused"))
        let without = RuleEvaluator(ruleSet: ruleSet)
        #expect(without.decide(model: "Ticket", operation: .get, caller: gold, before: [:]).reason == .noCustomAuthorizer)
    }

    @Test("Dynamic groups and multiple owners come from the record")
    func dynamicGroupsAndOwnerLists() throws {
        let rules = RuleEvaluator(ruleSet: try RuleSet(schema: """
            type Doc @model @auth(rules: [
              { allow: groups, groupsField: "teams" }
              { allow: owner, ownerField: "editors", operations: [read, update] }
            ]) { id: ID! teams: [String] editors: [String] }
            """))
        let doc: Record = ["teams": ["HR", "Ops"], "editors": ["bob", "sub-x::xavier"]]
        #expect(rules.decide(model: "Doc", operation: .delete, caller: Self.hr, before: doc).isAllowed)
        #expect(rules.decide(model: "Doc", operation: .update, caller: Self.bob, before: doc, after: [:]).isAllowed)
        #expect(rules.decide(model: "Doc", operation: .delete, caller: Self.bob, before: doc).reason == .notInGroupsField(field: "teams"))
    }

    @Test("A rule set from JSON decides as its SDL twin, in the semantics it names")
    func jsonForm() throws {
        let json = """
            {"semantics": "v1",
             "models": {"Todo": {"fields": {"id": "ID!", "owner": "String"},
                                 "rules": [{"allow": "owner", "operations": ["create", "update", "delete"]}]}}}
            """
        let ruleSet = try RuleSet(json: Array(json.utf8))
        #expect(ruleSet.semantics == .v1)
        let rules = RuleEvaluator(ruleSet: ruleSet)
        #expect(rules.decide(model: "Todo", operation: .get, caller: Self.bob, before: ["owner": "alice"]).reason == .unprotectedInV1)
        #expect(RuleEvaluator(ruleSet: ruleSet, semantics: .v2).decide(
            model: "Todo", operation: .get, caller: Self.bob, before: ["owner": "alice"]).reason == .noRuleForOperation)
    }
}
