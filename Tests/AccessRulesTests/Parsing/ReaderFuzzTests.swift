import AccessRules
import Testing

/// Seeded mutations of valid schemas and rules files: the readers must answer every one with rules or
/// diagnostics, never crash, and every position they name must lie inside the text.
@Suite("Reader fuzzing")
struct ReaderFuzzTests {
    /// A small deterministic generator (xorshift64*), so a failure reproduces from its seed.
    struct Generator {
        var state: UInt64

        mutating func next() -> UInt64 {
            self.state ^= self.state >> 12
            self.state ^= self.state << 25
            self.state ^= self.state >> 27
            return self.state &* 2_685_821_657_736_338_717
        }

        mutating func below(_ bound: Int) -> Int { Int(self.next() % UInt64(max(bound, 1))) }
    }

    static let schemaSeeds = [
        """
        # Todos and their owners
        type Todo @model @auth(rules: [{ allow: owner }, { allow: groups, groups: ["Admin"], operations: [read, delete] }]) {
          id: ID!
          "what to do"
          content: String
          owner: String
          secret: String @auth(rules: [{ allow: owner, ownerField: "owner", identityClaim: "sub" }])
        }

        type Post @model @auth(rules: [{ allow: public, provider: iam, operations: [get, list] }, { allow: private }]) {
          id: ID!
          editors: [String]
          teams: [String!]!
        }
        """,
        """
        type Doc @model @auth(rules: [{ allow: groups, groupsField: "teams", groupClaim: "roles", provider: oidc }, { allow: custom }]) {
          id: ID! teams: [String]
          \"\"\"block
          description\"\"\"
          body: String @auth(rules: [{ allow: private, operations: [read, sync, listen, search] }])
        }
        """,
    ]

    static let jsonSeeds = [
        """
        {"semantics": "v1", "models": {"Todo": {"fields": {"id": "ID!", "owner": "String", "tags": "[String]"},
          "rules": [{"allow": "owner", "operations": ["create", "update", "delete"]}, {"allow": "groups", "groups": ["Admin"]}],
          "fieldRules": {"tags": [{"allow": "public", "provider": "iam", "operations": ["read"]}]}}}}
        """,
        """
        {"models": {"Doc": {"rules": [{"allow": "custom"}, {"allow": "groups", "groupsField": "teams", "groupClaim": "roles"}]},
          "Note": {"fields": {"owner": "[String!]!"}, "rules": [{"allow": "owner", "identityClaim": "user_id", "provider": "oidc"}]}}}
        """,
    ]

    static let fragments: [[UInt8]] = [
        "@auth", "@model", "rules", "allow", "owner", "groups", "[", "]", "{", "}", "(", ")", ":", ",", "\"", "\"\"\"",
        "#", "\n", "\r", "\\", "\\u", "\\uD800", "é", "\u{1F600}", "\u{0}", "null", "true", "1e999", "-", "!", "$x", "...",
        "ownerField", "provider", "apiKey", "operations", "read", "type", "{\"allow\":", "\"models\"", "[]", "{}",
    ].map { Array($0.utf8) }

    static func mutate(_ seed: [UInt8], _ generator: inout Generator) -> [UInt8] {
        var bytes = seed
        for _ in 0...generator.below(4) {
            let position = generator.below(bytes.count + 1)
            switch generator.below(6) {
            case 0 where !bytes.isEmpty:
                bytes[min(position, bytes.count - 1)] = UInt8(truncatingIfNeeded: generator.next())
            case 1:
                bytes.insert(contentsOf: fragments[generator.below(fragments.count)], at: position)
            case 2 where !bytes.isEmpty:
                let end = min(bytes.count, position + generator.below(24) + 1)
                bytes.removeSubrange(min(position, end)..<end)
            case 3:
                let start = generator.below(bytes.count)
                let end = min(bytes.count, start + generator.below(40))
                let copied = Array(bytes[start..<end])
                bytes.insert(contentsOf: copied, at: min(position, bytes.count))
            case 4:
                bytes = Array(bytes.prefix(position))
            default:
                bytes.insert(UInt8(truncatingIfNeeded: generator.next() & 0x7F), at: position)
            }
        }
        return bytes
    }

    static func checkPositions(_ result: RuleSet.ReadResult, in bytes: [UInt8]) -> Bool {
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).count + bytes.filter { $0 == 0x0D }.count
        return result.diagnostics.allSatisfy { diagnostic in
            guard let line = diagnostic.line else { return true }
            return line >= 1 && line <= max(lines, 1) && (diagnostic.column ?? 1) >= 1 && (diagnostic.column ?? 1) <= bytes.count + 1
        }
    }

    @Test("The seeds themselves read without errors")
    func seedsAreValid() {
        for seed in Self.schemaSeeds { #expect(!RuleSet.read(schema: seed).hasErrors, "\(RuleSet.read(schema: seed).diagnostics)") }
        for seed in Self.jsonSeeds { #expect(!RuleSet.read(json: Array(seed.utf8)).hasErrors, "\(RuleSet.read(json: Array(seed.utf8)).diagnostics)") }
    }

    @Test("Mutated schemas", arguments: 0..<4)
    func mutatedSchemas(shard: Int) {
        var generator = Generator(state: 0x9E37_79B9_7F4A_7C15 &+ UInt64(shard))
        var outside = 0
        for round in 0..<Self.schemaRounds {
            let seed = Array(Self.schemaSeeds[round % Self.schemaSeeds.count].utf8)
            let bytes = Self.mutate(seed, &generator)
            let text = String(decoding: bytes, as: UTF8.self)
            let result = RuleSet.read(schema: text)
            if !Self.checkPositions(result, in: Array(text.utf8)) { outside += 1 }
        }
        #expect(outside == 0)
    }

    @Test("Mutated JSON rules files", arguments: 0..<4)
    func mutatedJSON(shard: Int) {
        var generator = Generator(state: 0xD1B5_4A32_D192_ED03 &+ UInt64(shard))
        var outside = 0
        for round in 0..<Self.jsonRounds {
            let seed = Array(Self.jsonSeeds[round % Self.jsonSeeds.count].utf8)
            let bytes = Self.mutate(seed, &generator)
            let result = RuleSet.read(json: bytes)
            if !Self.checkPositions(result, in: bytes) { outside += 1 }
        }
        #expect(outside == 0)
    }

    static let storageSeeds = [
        """
        {"bucket": "wif-personal", "paths": {"public/*": [{"allow": "guest", "to": ["read"]}, {"allow": "authenticated", "to": ["read", "write", "delete"]}],
          "protected/{entity_id}/*": [{"allow": "authenticated", "to": ["get"]}, {"allow": "entity", "entity": "identity", "to": ["read", "write"]}],
          "media/*": [{"allow": "groups", "groups": ["admin", "editors"], "to": ["list", "delete"]}], "media/albums/*": []}}
        """
    ]

    static let storageFragments: [[UInt8]] = [
        "{entity_id}", "/*", "//", "*", "paths", "bucket", "allow", "entity", "groups", "to", "read", "write", "\"", "[", "]", "{", "}",
        ":", ",", "é", "\u{0}", "null", "1e999",
    ].map { Array($0.utf8) }

    @Test("The storage seed reads without errors")
    func storageSeedIsValid() {
        for seed in Self.storageSeeds {
            let result = StorageRules.read(json: Array(seed.utf8))
            #expect(!result.hasErrors, "\(result.diagnostics)")
        }
    }

    /// Mutated storage rules: read with rules or diagnostics, positions inside the text, and whatever
    /// reads without errors compiles (or is refused by name) and, compiled, proves, since the compiler and
    /// the evaluator must agree on every valid rule set.
    /// One shard at a time: the proofs are CPU work, and four at once would hold every thread of a
    /// two-core machine.
    @Test("Mutated storage rules files", .serialized, arguments: 0..<4)
    func mutatedStorage(shard: Int) throws {
        var generator = Generator(state: 0x5851_F42D_4C95_7F2D &+ UInt64(shard))
        var outside = 0
        var valid = 0
        var proved = 0
        for round in 0..<Self.storageRounds {
            var bytes = Array(Self.storageSeeds[round % Self.storageSeeds.count].utf8)
            if generator.below(2) == 0 {
                let position = generator.below(bytes.count + 1)
                bytes.insert(contentsOf: Self.storageFragments[generator.below(Self.storageFragments.count)], at: position)
            }
            bytes = Self.mutate(bytes, &generator)
            let result = StorageRules.read(json: bytes)
            let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).count + bytes.filter { $0 == 0x0D }.count
            if !result.diagnostics.allSatisfy({ ($0.line ?? 1) >= 1 && ($0.line ?? 1) <= max(lines, 1) && ($0.column ?? 1) >= 1 }) { outside += 1 }
            // A sample of the valid ones is compiled and proved (the proof is the slow part): every tenth,
            // up to forty a shard.
            guard !result.hasErrors, !result.rules.paths.isEmpty else { continue }
            valid += 1
            guard valid % 10 == 0, proved < 40 else { continue }
            guard let compiled = try? StorageCompiler().compile(result.rules) else { continue }
            let proof = try StorageProof.check(result.rules, compiled: compiled, ids: Array(StorageProof.identityIds.prefix(5)))
            #expect(proof.holds, "\(String(decoding: bytes, as: UTF8.self)): \(proof.counterexamples.prefix(3).map(\.description))")
            proved += 1
        }
        #expect(outside == 0)
        #expect(proved > 0)
    }

    /// Per shard; four shards of each give 100,000 mutations. GraphQL's parser is the slower reader in a
    /// debug build, so most rounds go to JSON and the schema rounds still reach every mutation kind.
    static let schemaRounds = 2_500
    static let jsonRounds = 22_500
    /// Per shard, for storage rules files: four shards give 100,000 mutations.
    static let storageRounds = 25_000
}
