import AccessRules
import Testing

/// The client-side check before sending a save: the same evaluator, the same reasons.
@Suite("Checking a save before sending")
struct SaveCheckTests {
    @Test("A client learns before sending that a save would be refused, and why")
    func checkSaveBeforeSending() throws {
        let rules = RuleEvaluator(ruleSet: try RuleSet(schema: TrapTests.sharedSchema))
        let bob = Caller.userPools(sub: "sub-b", username: "bob")
        let page: Record = ["owner": "sub-a::alice", "body": "text"]
        let steal = rules.checkSave(model: "Page", caller: bob, stored: page, changes: ["owner": "bob"])
        #expect(steal.outcome == .deny)
        #expect(steal.explanation.contains("changes owner, and only an owner or a group rule may"))
        #expect(rules.checkSave(model: "Page", caller: bob, stored: nil, changes: ["body": "new"]).isAllowed)
        #expect(rules.checkSave(model: "Page", caller: nil, stored: nil, changes: ["body": "new"]).reason == .signedOut)
    }
}
