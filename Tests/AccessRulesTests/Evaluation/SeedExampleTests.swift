import AccessRules
import Testing

/// The examples of Amplify's `@auth` documentation, each written as the schema a developer would write
/// and the questions they would ask of it. Identities: Alice (`sub-a`, `alice`), Bob (`sub-b`, `bob`).
@Suite("Seed examples")
struct SeedExampleTests {
    static let alice = Caller.userPools(sub: "sub-a", username: "alice")
    static let bob = Caller.userPools(sub: "sub-b", username: "bob")
    static let admin = Caller.userPools(sub: "sub-c", username: "carol", groups: ["Admin"])

    static func evaluator(_ schema: String, semantics: RuleSemantics = .v2) throws -> RuleEvaluator {
        RuleEvaluator(ruleSet: try RuleSet(schema: schema), semantics: semantics)
    }

    // MARK: Owner

    static let ownerSchema = """
        # Each user sees and changes only their own todos.
        type Todo @model @auth(rules: [{ allow: owner }]) {
          id: ID!
          content: String
          owner: String
        }
        """

    @Test("Owner: a create with no owner is filled with the caller")
    func ownerCreateFillsOwner() throws {
        let rules = try Self.evaluator(Self.ownerSchema)
        let decision = rules.decide(model: "Todo", operation: .create, caller: Self.alice, after: ["content": "milk"])
        #expect(decision.isAllowed)
        #expect(decision.reason == .grantedFillingOwner(field: "owner"))
        #expect(decision.explanation.contains("filled with the caller's identity"))
    }

    @Test("Owner: a create in someone else's name is refused")
    func ownerCreateForSomeoneElse() throws {
        let rules = try Self.evaluator(Self.ownerSchema)
        let decision = rules.decide(model: "Todo", operation: .create, caller: Self.alice, after: ["owner": "sub-b::bob"])
        #expect(decision.outcome == .deny)
        #expect(decision.reason == .createdForSomeoneElse(field: "owner"))
    }

    @Test("Owner: the owner may be stored as sub::username, sub or username", arguments: ["sub-a::alice", "sub-a", "alice"])
    func ownerStoredForms(stored: String) throws {
        let rules = try Self.evaluator(Self.ownerSchema)
        for operation in [ModelOperation.get, .update, .delete] {
            #expect(rules.decide(model: "Todo", operation: operation, caller: Self.alice, before: ["owner": .string(stored)]).isAllowed)
            #expect(!rules.decide(model: "Todo", operation: operation, caller: Self.bob, before: ["owner": .string(stored)]).isAllowed)
        }
    }

    @Test("Owner: a near miss of the joined form is not the owner")
    func ownerJoinedNearMiss() throws {
        let rules = try Self.evaluator(Self.ownerSchema)
        for stored in ["sub-a:alice", "sub-a::alic", "sub-a::alicee", "sub-b::alice", "::alice"] {
            let decision = rules.decide(model: "Todo", operation: .get, caller: Self.alice, before: ["owner": .string(stored)])
            #expect(decision.reason == .notOwner(field: "owner"), "\(stored)")
        }
    }

    @Test("Owner: names are compared as bytes, so a canonically equivalent spelling is someone else")
    func ownerSpellingsAreDifferentPeople() throws {
        let rules = try Self.evaluator(Self.ownerSchema)
        // `é` precomposed and `e` + U+0301 are equal Swift strings, but two Cognito user names.
        let composed = Caller.userPools(sub: "sub-x", username: "ren\u{e9}")
        for stored in ["rene\u{301}", "sub-x::rene\u{301}"] {
            let decision = rules.decide(model: "Todo", operation: .get, caller: composed, before: ["owner": .string(stored)])
            #expect(decision.reason == .notOwner(field: "owner"), "\(stored.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        #expect(rules.decide(model: "Todo", operation: .get, caller: composed, before: ["owner": "ren\u{e9}"]).isAllowed)
    }

    @Test("Groups: a group name is compared as bytes")
    func groupSpellingsAreDifferentGroups() throws {
        let accented = try Self.evaluator("""
            type Todo @model @auth(rules: [{ allow: groups, groups: ["Caf\u{e9}"] }]) { id: ID! }
            """)
        let decomposed = Caller.userPools(sub: "sub-e", username: "erin", groups: ["Cafe\u{301}"])
        let composed = Caller.userPools(sub: "sub-f", username: "fay", groups: ["Caf\u{e9}"])
        #expect(!accented.decide(model: "Todo", operation: .get, caller: decomposed, before: [:]).isAllowed)
        #expect(accented.decide(model: "Todo", operation: .get, caller: composed, before: [:]).isAllowed)
    }

    @Test("Owner: other auth modes and signed-out callers are refused")
    func ownerOtherModes() throws {
        let rules = try Self.evaluator(Self.ownerSchema)
        #expect(rules.decide(model: "Todo", operation: .get, caller: .apiKey, before: ["owner": "alice"]).reason == .noRuleForAuthMode)
        #expect(rules.decide(model: "Todo", operation: .get, caller: nil, before: ["owner": "alice"]).reason == .signedOut)
        #expect(rules.decide(model: "Todo", operation: .list, caller: Self.bob).reason == .grantedFiltered)
    }

    // MARK: Owner with operations

    static let ownerOperationsSchema = """
        type Post @model @auth(rules: [
          { allow: owner, operations: [create, update, delete] }
          { allow: private, operations: [read] }
        ]) {
          id: ID!
          title: String
          owner: String
        }
        """

    @Test("Owner with operations: everyone signed in reads, only the owner writes")
    func ownerWithOperations() throws {
        let rules = try Self.evaluator(Self.ownerOperationsSchema)
        let post: Record = ["owner": "sub-a::alice", "title": "Hello"]
        #expect(rules.decide(model: "Post", operation: .get, caller: Self.bob, before: post).isAllowed)
        #expect(rules.decide(model: "Post", operation: .update, caller: Self.alice, before: post, after: ["title": "Hi"]).isAllowed)
        let update = rules.decide(model: "Post", operation: .update, caller: Self.bob, before: post, after: ["title": "Hi"])
        #expect(update.reason == .notOwner(field: "owner"))
        #expect(update.rule?.allow == .owner)
    }

    // MARK: Static groups

    @Test("Static groups: only members of Admin, whether the claim is a list or one string")
    func staticGroups() throws {
        let rules = try Self.evaluator("""
            type Salary @model @auth(rules: [{ allow: groups, groups: ["Admin"] }]) { id: ID! wage: Int }
            """)
        #expect(rules.decide(model: "Salary", operation: .update, caller: Self.admin, before: [:], after: ["wage": .other("1")]).isAllowed)
        let single = Caller(authMode: .userPools, claims: ["sub": "s", "cognito:groups": "Admin"])
        #expect(rules.decide(model: "Salary", operation: .get, caller: single, before: [:]).isAllowed)
        #expect(rules.decide(model: "Salary", operation: .get, caller: Self.alice, before: [:]).reason == .notInGroups)
    }

    // MARK: Owner and an Admin group

    static let ownerAdminSchema = """
        type Todo @model @auth(rules: [{ allow: owner }, { allow: groups, groups: ["Admin"] }]) {
          id: ID!
          owner: String
        }
        """

    @Test("Owner + Admin: admins act on anyone's records, including creating them for someone")
    func ownerAndAdmin() throws {
        let rules = try Self.evaluator(Self.ownerAdminSchema)
        let todo: Record = ["owner": "sub-a::alice"]
        #expect(rules.decide(model: "Todo", operation: .delete, caller: Self.admin, before: todo).isAllowed)
        #expect(rules.decide(model: "Todo", operation: .update, caller: Self.admin, before: todo, after: ["owner": "bob"]).isAllowed)
        #expect(rules.decide(model: "Todo", operation: .create, caller: Self.admin, after: ["owner": "bob"]).isAllowed)
        #expect(rules.decide(model: "Todo", operation: .update, caller: Self.alice, before: todo, after: ["owner": "bob"]).isAllowed)
        let bob = rules.decide(model: "Todo", operation: .delete, caller: Self.bob, before: todo)
        #expect(bob.outcome == .deny)
        #expect(bob.reason == .notInGroups || bob.reason == .notOwner(field: "owner"))
    }

    // MARK: Public

    static let publicSchema = """
        type Note @model @auth(rules: [
          { allow: public }
          { allow: public, provider: iam, operations: [read] }
        ]) { id: ID! text: String }
        """

    @Test("Public: an API key may do everything, guests of the identity pool may read")
    func publicApiKeyAndIAM() throws {
        let rules = try Self.evaluator(Self.publicSchema)
        #expect(rules.decide(model: "Note", operation: .create, caller: .apiKey, after: ["text": "hi"]).isAllowed)
        #expect(rules.decide(model: "Note", operation: .list, caller: .iam(.unauthenticated)).isAllowed)
        #expect(rules.decide(model: "Note", operation: .create, caller: .iam(.unauthenticated), after: [:]).reason == .noRuleForOperation)
        #expect(rules.decide(model: "Note", operation: .list, caller: .iam(.authenticated)).reason == .noRuleForAuthMode)
        #expect(rules.decide(model: "Note", operation: .list, caller: Self.alice).reason == .noRuleForAuthMode)
        #expect(rules.decide(model: "Note", operation: .list, caller: nil).reason == .signedOut)
    }

    // MARK: Private

    @Test("Private: any signed-in user pool user, and the identity pool's authenticated role")
    func privateUserPoolsAndIAM() throws {
        let rules = try Self.evaluator("""
            type Doc @model @auth(rules: [{ allow: private }, { allow: private, provider: iam }]) { id: ID! }
            """)
        #expect(rules.decide(model: "Doc", operation: .get, caller: Self.bob, before: [:]).isAllowed)
        #expect(rules.decide(model: "Doc", operation: .get, caller: .iam(.authenticated), before: [:]).isAllowed)
        #expect(!rules.decide(model: "Doc", operation: .get, caller: .iam(.unauthenticated), before: [:]).isAllowed)
        #expect(!rules.decide(model: "Doc", operation: .get, caller: .apiKey, before: [:]).isAllowed)
    }

    // MARK: OIDC identity claim

    @Test("Owner with an OIDC identityClaim: the owner is the claim's value")
    func ownerWithOIDCClaim() throws {
        let rules = try Self.evaluator("""
            type Profile @model @auth(rules: [{ allow: owner, provider: oidc, identityClaim: "user_id" }]) {
              id: ID!
              owner: String
            }
            """)
        let profile: Record = ["owner": "u-1"]
        #expect(rules.decide(model: "Profile", operation: .get, caller: .oidc(claims: ["user_id": "u-1"]), before: profile).isAllowed)
        #expect(rules.decide(model: "Profile", operation: .get, caller: .oidc(claims: ["user_id": "u-2"]), before: profile).reason
            == .notOwner(field: "owner"))
        #expect(rules.decide(model: "Profile", operation: .get, caller: .oidc(claims: ["sub": "u-1"]), before: profile).reason
            == .missingIdentityClaim(claim: "user_id"))
        let userPools = Caller.userPools(sub: "u-1", username: "u-1")
        #expect(rules.decide(model: "Profile", operation: .get, caller: userPools, before: profile).reason == .noRuleForAuthMode)
    }

    // MARK: Custom group claim

    @Test("Groups with a custom groupClaim: the groups are read from that claim only")
    func groupsWithCustomClaim() throws {
        let rules = try Self.evaluator("""
            type Article @model @auth(rules: [{ allow: groups, provider: oidc, groups: ["Editors"], groupClaim: "roles" }]) { id: ID! }
            """)
        #expect(rules.decide(model: "Article", operation: .update, caller: .oidc(claims: ["roles": ["Editors"]]), before: [:], after: [:]).isAllowed)
        #expect(rules.decide(model: "Article", operation: .update, caller: .oidc(claims: ["roles": "Editors"]), before: [:], after: [:]).isAllowed)
        let wrongClaim = Caller.oidc(claims: ["cognito:groups": ["Editors"]])
        #expect(rules.decide(model: "Article", operation: .update, caller: wrongClaim, before: [:], after: [:]).reason == .notInGroups)
    }

    // MARK: Todo, UserA and UserB

    static let todoSchema = """
        type Todo @model @auth(rules: [{ allow: owner, operations: [create, update, delete] }]) {
          id: ID!
          content: String
          owner: String
        }
        """

    @Test("Todo/UserA/UserB under v1: UserB reads UserA's todo but cannot change it")
    func todoUnderV1() throws {
        let rules = try Self.evaluator(Self.todoSchema, semantics: .v1)
        let todo: Record = ["owner": "sub-a::alice", "content": "milk"]
        let read = rules.decide(model: "Todo", operation: .get, caller: Self.bob, before: todo)
        #expect(read.isAllowed)
        #expect(read.reason == .unprotectedInV1)
        #expect(read.explanation.hasPrefix("Allow (v1)"))
        #expect(!rules.decide(model: "Todo", operation: .update, caller: Self.bob, before: todo, after: ["content": "x"]).isAllowed)
    }

    @Test("Todo/UserA/UserB under v2: nobody reads, not even UserA, since no rule lists read")
    func todoUnderV2() throws {
        let rules = try Self.evaluator(Self.todoSchema)
        let todo: Record = ["owner": "sub-a::alice", "content": "milk"]
        let read = rules.decide(model: "Todo", operation: .get, caller: Self.bob, before: todo)
        #expect(read.reason == .noRuleForOperation)
        #expect(read.explanation.hasPrefix("Deny (v2)"))
        #expect(!rules.decide(model: "Todo", operation: .get, caller: Self.alice, before: todo).isAllowed)
        #expect(rules.decide(model: "Todo", operation: .update, caller: Self.alice, before: todo, after: ["content": "x"]).isAllowed)
    }
}
