import Foundation
import PolicyEngine
import Testing

@testable import AccessRules

/// Storage rules in Gen 2's vocabulary: read with their positions, decided by their own evaluator,
/// compiled to IAM, and proved equal to it.
///
/// Serialized: the proofs are CPU work, better one at a time on a two-core machine.
@Suite(.serialized) struct StorageRulesTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let defaultRulesFile = root.appendingPathComponent("policies/storage/amplify-default.rules.json")
    static let defaultCompiledFolder = root.appendingPathComponent("policies/storage/amplify-default")
    static let pool = "us-east-1:00000000-0000-4000-8000-000000000001"
    static let alice = "us-east-1:11111111-1111-4111-8111-111111111111"
    static let bob = "us-east-1:22222222-2222-4222-8222-222222222222"

    static func read(_ text: String) -> StorageRules.ReadResult {
        StorageRules.read(json: Array(text.utf8))
    }

    // MARK: Reading

    @Test func theShippedDefaultLayoutIsTheLibrarysDefault() throws {
        let rules = try StorageRules(json: Array(try Data(contentsOf: Self.defaultRulesFile)))
        #expect(rules == StorageRules.amplifyDefault(bucket: "wif-personal"))
        #expect(rules.groups == ["admin"])
    }

    @Test(arguments: [
        ("/public/*", "must not start with '/'"),
        ("public/", "must end with '/*'"),
        ("public//x/*", "must not contain '//'"),
        ("pub*lic/*", "may have '*' only at its end"),
        ("a/{entity_id}/b/*", "only as the last part before '/*'"),
        ("a/{entity_id}/{entity_id}/*", "only once"),
        ("a/{owner}/*", "no '{' or '}' other than {entity_id}"),
    ])
    func pathsBreakingGen2sRulesAreRefusedWithTheirPosition(path: String, message: String) {
        let text = "{\"bucket\": \"b-1\",\n \"paths\": {\n  \"\(path)\": [{\"allow\": \"guest\", \"to\": [\"read\"]}]}}"
        let result = Self.read(text)
        let error = result.diagnostics.first { $0.severity == .error }
        #expect(error?.message.contains(message) == true, "\(result.diagnostics)")
        #expect(error?.line == 3 && error?.column == 3, "\(String(describing: error))")
        #expect(error?.path == "paths[\"\(path)\"]")
    }

    @Test func badRulesAreNamedByJSONPathLineAndColumn() {
        let text = """
            {"bucket": "wif-personal",
             "paths": {
               "public/*": [{"allow": "guests", "to": ["read"]},
                            {"allow": "authenticated", "to": ["reed"]}],
               "media/*": [{"allow": "entity", "to": ["read"]}],
               "team/*": [{"allow": "groups", "to": ["read"]}, {"allow": "groups", "groups": ["a/b"], "to": ["get"]}],
               "x/*": [{"allow": "guest", "to": ["read"]}, {"allow": "guest", "to": ["write"]}]},
             "buckt": 1}
            """
        let result = Self.read(text)
        let found = result.diagnostics.map { "\($0.line ?? 0):\($0.column ?? 0) \($0.path): \($0.message)\($0.hint.map { " (\($0))" } ?? "")" }
        let expected = [
            "3:27 paths[\"public/*\"][0].allow: allow must be one of guest, authenticated, entity, groups (did you mean guest?)",
            "4:51 paths[\"public/*\"][1].to[0]: an action is one of read, get, list, write, delete (did you mean read?)",
            "5:26 paths[\"media/*\"][0].allow: an entity rule needs a path with {entity_id}, such as 'private/{entity_id}/*'",
            "6:15 paths[\"team/*\"][0]: a groups rule needs \"groups\": a non-empty list of group names",
            "6:83 paths[\"team/*\"][1].groups[0]: a group name is 1 to 128 letters, digits and _+=,.@- (a group's role is named after it)",
            "7:48 paths[\"x/*\"][1]: paths[\"x/*\"] has a second rule for guests (the first is [0]) (give all their actions in one rule)",
            "8:2 buckt: unknown key \"buckt\" (did you mean bucket?)",
        ]
        for line in expected {
            #expect(found.contains(line), "missing \(line) in \(found.joined(separator: "\n"))")
        }
        #expect(throws: AccessRulesError.self) { _ = try StorageRules(json: Array(text.utf8)) }
    }

    @Test func nestingIsLimitedAsInGen2() {
        let inside = Self.read(#"{"bucket": "b-1", "paths": {"a/{entity_id}/*": [{"allow": "entity", "to": ["read"]}], "a/b/*": [{"allow": "guest", "to": ["read"]}]}}"#)
        #expect(inside.diagnostics.contains { $0.message.contains("lies inside the owner folders of 'a/{entity_id}/*'") }, "\(inside.diagnostics)")
        let twice = Self.read(#"{"bucket": "b-1", "paths": {"a/*": [], "a/b/*": [], "a/b/c/*": []}}"#)
        #expect(twice.diagnostics.contains { $0.message.contains("lies inside both") }, "\(twice.diagnostics)")
        let once = Self.read(#"{"bucket": "b-1", "paths": {"a/*": [{"allow": "guest", "to": ["read"]}], "a/b/*": [], "c/*": [], "c/{entity_id}/*": [{"allow": "entity", "to": ["read"]}]}}"#)
        #expect(!once.hasErrors, "\(once.diagnostics)")
        #expect(once.diagnostics.map(\.message) == ["the path has no rules, so it allows nothing", "the path has no rules, so it allows nothing"])
        let malformed = Self.read("{\"bucket\": \"b-1\", \"paths\": {\"a/*\": [}")
        #expect(malformed.hasErrors && malformed.diagnostics.first?.line == 1)
    }

    // MARK: Deciding

    @Test func theDefaultLayoutDecidesAsAmplifysDocumentationSays() {
        let rules = StorageRules.amplifyDefault(bucket: "wif-personal")
        let alice = StoragePrincipal.identity(Self.alice)
        let bob = StoragePrincipal.identity(Self.bob)
        let admin = StoragePrincipal.identity(Self.bob, group: "admin")
        func allowed(_ request: StorageRequest, _ principal: StoragePrincipal) -> Bool { rules.decide(request, as: principal).allowed }
        #expect(allowed(.get(key: "public/a.txt"), .guest))
        #expect(!allowed(.put(key: "public/a.txt"), .guest))
        #expect(allowed(.list(prefix: "public/"), .guest))
        #expect(!allowed(.get(key: "protected/\(Self.alice)/a.txt"), .guest))
        #expect(allowed(.put(key: "public/a.txt"), alice))
        #expect(allowed(.get(key: "protected/\(Self.alice)/a.txt"), bob))
        #expect(!allowed(.put(key: "protected/\(Self.alice)/a.txt"), bob))
        #expect(allowed(.put(key: "protected/\(Self.alice)/a.txt"), alice))
        #expect(!allowed(.get(key: "private/\(Self.alice)/a.txt"), bob))
        #expect(!allowed(.list(prefix: "private/\(Self.alice)/"), bob))
        #expect(allowed(.list(prefix: "private/\(Self.alice)/"), alice))
        // One id a prefix of another does not reach the other's folder.
        #expect(!allowed(.get(key: "private/\(Self.alice)x/a.txt"), alice))
        #expect(!allowed(.list(prefix: nil), alice) && !allowed(.list(prefix: ""), admin))
        // A group member has the group's rules only (the group's role replaces the authenticated one).
        #expect(allowed(.delete(key: "private/\(Self.alice)/a.txt"), admin))
        #expect(!allowed(.get(key: "elsewhere/a.txt"), admin))
        let decision = rules.decide(.put(key: "protected/\(Self.alice)/a.txt"), as: bob)
        #expect(decision.path == "protected/{entity_id}/*")
        #expect(decision.reason == "protected/{entity_id}/* gives identity \(Self.bob) no rule to write")
    }

    @Test func theMostSpecificPathGovernsItsKeys() throws {
        let rules = try StorageRules(json: Array(#"""
            {"bucket": "b-1", "paths": {
              "media/*": [{"allow": "authenticated", "to": ["read", "write"]}, {"allow": "guest", "to": ["read"]}],
              "media/albums/*": [{"allow": "guest", "to": ["read"]}],
              "home/*": [{"allow": "authenticated", "to": ["read"]}, {"allow": "guest", "to": ["list"]}],
              "home/{entity_id}/*": [{"allow": "entity", "to": ["read", "write"]}, {"allow": "authenticated", "to": ["get"]}]}}
            """#.utf8))
        let alice = StoragePrincipal.identity(Self.alice)
        #expect(rules.decide(.put(key: "media/x.jpg"), as: alice).allowed)
        #expect(!rules.decide(.put(key: "media/albums/x.jpg"), as: alice).allowed)
        #expect(!rules.decide(.get(key: "media/albums/x.jpg"), as: alice).allowed)
        #expect(rules.decide(.get(key: "media/albums/x.jpg"), as: .guest).allowed)
        #expect(rules.decide(.put(key: "home/\(Self.alice)/x.jpg"), as: alice).allowed)
        #expect(!rules.decide(.put(key: "home/\(Self.bob)/x.jpg"), as: alice).allowed)
        #expect(rules.decide(.get(key: "home/\(Self.bob)/x.jpg"), as: alice).allowed)
        // Listing a folder of home/ is the owner's alone, though home/* lets every signed-in user list home/ itself.
        #expect(rules.decide(.list(prefix: "home/"), as: alice).allowed)
        #expect(rules.decide(.list(prefix: "home/\(Self.alice)/"), as: alice).allowed)
        #expect(!rules.decide(.list(prefix: "home/\(Self.bob)/"), as: alice).allowed)
        #expect(!rules.decide(.list(prefix: "home/\(Self.bob)/"), as: .guest).allowed)
        // ... and the compiled policies say the same everywhere, denies included.
        let compiled = try StorageCompiler().compile(rules)
        let proof = try StorageProof.check(rules, compiled: compiled)
        #expect(proof.holds, "\(proof.counterexamples.prefix(5).map(\.description))")
        #expect(compiled.policies[.authenticated]?.contains("\"Deny\"") == true)
    }

    // MARK: Compiling and proving

    @Test func theDefaultLayoutCompilesToTheShippedPoliciesAndTheProofHolds() throws {
        let rules = StorageRules.amplifyDefault(bucket: "wif-personal")
        let compiled = try StorageCompiler(identityPoolId: Self.pool).compile(rules)
        #expect(compiled.roles == [.unauthenticated, .authenticated, .group("admin")])
        for role in compiled.roles {
            let shipped = try String(contentsOf: Self.defaultCompiledFolder.appendingPathComponent(role.fileName), encoding: .utf8)
            #expect(shipped == compiled.policies[role], "policies/storage/amplify-default/\(role.fileName) is not the compiler's output")
            let trust = try String(contentsOf: Self.defaultCompiledFolder.appendingPathComponent(role.trustFileName), encoding: .utf8)
            #expect(trust == compiled.trustPolicies[role])
        }
        let proof = try StorageProof.check(rules, compiled: compiled)
        #expect(proof.holds, "\(proof.counterexamples.prefix(5).map(\.description))")
        #expect(proof.checked > 5_000)
        let authenticated = try #require(compiled.policies[.authenticated])
        #expect(authenticated.contains("arn:aws:s3:::wif-personal/private/${cognito-identity.amazonaws.com:sub}/*"))
        #expect(authenticated.contains("arn:aws:s3:::wif-personal/protected/*/*"))
    }

    @Test func theProofCatchesAKeyThatNeverResolves() throws {
        // One Amplify release wrote cognito-identity.amazon.com, a key no request carries: owners lost their folders.
        let rules = StorageRules.amplifyDefault(bucket: "wif-personal")
        var compiled = try StorageCompiler().compile(rules)
        compiled.policies[.authenticated] = compiled.policies[.authenticated]?
            .replacingOccurrences(of: "cognito-identity.amazonaws.com:sub", with: "cognito-identity.amazon.com:sub")
        let proof = try StorageProof.check(rules, compiled: compiled)
        #expect(!proof.holds)
        let first = try #require(proof.counterexamples.first { $0.principal == .identity(StorageProof.identityIds[0]) })
        #expect(first.rules.allowed && first.iam != .allow)
        #expect(first.description.contains("the rules say Allow"), "\(first)")
    }

    @Test func theProofCatchesAPolicyWiderThanTheRules() throws {
        let rules = StorageRules.amplifyDefault(bucket: "wif-personal")
        var compiled = try StorageCompiler().compile(rules)
        // Protected folders written by every signed-in user, not only their owner.
        compiled.policies[.authenticated] = compiled.policies[.authenticated]?
            .replacingOccurrences(of: "protected/${cognito-identity.amazonaws.com:sub}/*", with: "protected/*")
        let proof = try StorageProof.check(rules, compiled: compiled)
        #expect(proof.counterexamples.contains { !$0.rules.allowed && $0.iam == .allow && $0.request == .put(key: "protected/\(StorageProof.identityIds[1])/file.txt") })
    }

    @Test func enginesRefuseWhatTheyCannotExpress() throws {
        let rules = StorageRules.amplifyDefault(bucket: "wif-personal")
        let seaweed = try #require(throws: AccessRulesError.self) { _ = try StorageCompiler(engine: .seaweedfs).compile(rules) }
        #expect(seaweed.code == .unsupportedConstruct)
        #expect(seaweed.reason.contains("'public/*': a guest rule needs an identity pool's unauthenticated role"), "\(seaweed.reason)")
        let ceph = try #require(throws: AccessRulesError.self) { _ = try StorageCompiler(engine: .cephRGW).compile(rules) }
        #expect(ceph.reason.contains("'private/{entity_id}/*': an owner rule needs a policy variable in Resource"), "\(ceph.reason)")

        // Owner folders for signed-in users only: SeaweedFS compiles them with ${jwt:sub}, and the proof holds there too.
        let owners = try StorageRules(json: Array(#"{"bucket": "wif-personal", "paths": {"users/{entity_id}/*": [{"allow": "entity", "to": ["read", "write", "delete"]}]}}"#.utf8))
        let compiled = try StorageCompiler(engine: .seaweedfs).compile(owners)
        #expect(compiled.subjectKey == "jwt:sub")
        #expect(compiled.policies[.authenticated]?.contains("users/${jwt:sub}/*") == true)
        #expect(try StorageProof.check(owners, compiled: compiled).holds)
        let cephShared = try StorageRules(json: Array(#"{"bucket": "wif-personal", "paths": {"shared/*": [{"allow": "authenticated", "to": ["read"]}]}}"#.utf8))
        #expect(try StorageProof.check(cephShared, compiled: try StorageCompiler(engine: .cephRGW).compile(cephShared)).holds)
    }

    @Test func anOwnerPathInsideAPlainOneThatCannotBeDeniedIsRefused() throws {
        let rules = try StorageRules(json: Array(#"""
            {"bucket": "b-1", "paths": {
              "media/*": [{"allow": "authenticated", "to": ["write"]}],
              "media/{entity_id}/*": [{"allow": "entity", "to": ["write"]}]}}
            """#.utf8))
        let error = try #require(throws: AccessRulesError.self) { _ = try StorageCompiler().compile(rules) }
        #expect(error.code == .unsupportedConstruct)
        #expect(error.reason.contains("'media/{entity_id}/*' inside 'media/*'"), "\(error.reason)")
    }
}
