import Foundation
import Testing

/// `wif-tool rules compile`: storage rules to the identity pool's role policies, proved before writing.
extension RulesCommandTests {
    static let defaultRules = PolicyCommandTests.root.appendingPathComponent("policies/storage/amplify-default.rules.json").path
    static let pool = "us-east-1:00000000-0000-4000-8000-000000000001"

    @Test func compileWritesTheShippedPoliciesAndSaysTheProofHeld() throws {
        let out = self.folder.appendingPathComponent("compiled")
        let result = try self.run(["rules", "compile", Self.defaultRules, "--pool", Self.pool, "--out", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("proved: the policies of the unauthenticated role, the authenticated role, the role of group admin decide"), "\(result.stdout)")
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(names == ["authenticated.json", "authenticated.trust.json", "group-admin.json", "group-admin.trust.json", "unauthenticated.json", "unauthenticated.trust.json"])
        let shipped = PolicyCommandTests.root.appendingPathComponent("policies/storage/amplify-default")
        for name in names {
            #expect(try Data(contentsOf: out.appendingPathComponent(name)) == Data(contentsOf: shipped.appendingPathComponent(name)), "\(name)")
        }
        // What was written validates as IAM.
        let validate = try self.run(["policy", "validate", out.appendingPathComponent("authenticated.json").path])
        #expect(validate.status == 0, "\(validate.stdout)")
    }

    @Test func aFolderInTheWayOfOnePolicyWritesNone() throws {
        let out = self.folder.appendingPathComponent("blocked")
        try FileManager.default.createDirectory(at: out.appendingPathComponent("group-admin.json"), withIntermediateDirectories: true)
        let result = try self.run(["rules", "compile", Self.defaultRules, "--pool", Self.pool, "--out", out.path])
        #expect(result.status == 6, "\(result.stderr)")
        #expect(result.stderr.contains("group-admin.json: a folder is in the way; nothing was written"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["group-admin.json"])
    }

    @Test func checkProvesWithoutWritingAndJSONSaysSo() throws {
        let result = try self.run(["rules", "compile", Self.defaultRules, "--check", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let output = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(output["proved"] as? Bool == true)
        #expect((output["checked"] as? Int ?? 0) > 5_000)
        #expect(output["written"] as? [String] == [])
        #expect(output["roles"] as? [String] == ["unauthenticated.json", "authenticated.json", "group-admin.json"])
        #expect(output["subjectKey"] as? String == "cognito-identity.amazonaws.com:sub")
    }

    @Test func rulesWithErrorsAndEnginesThatCannotExpressThemAreRefused() throws {
        let bad = try self.write("bad.rules.json", #"{"bucket": "wif-personal", "paths": {"public/": [{"allow": "guest", "to": ["read"]}]}}"#)
        let out = self.folder.appendingPathComponent("never")
        let refused = try self.run(["rules", "compile", bad, "--out", out.path])
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(refused.stderr.contains("\(bad):1:38: error: paths[\"public/\"]: the path 'public/' must end with '/*'"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))

        let ceph = try self.run(["rules", "compile", Self.defaultRules, "--engine", "ceph-rgw", "--check"])
        #expect(ceph.status == 64)
        #expect(ceph.stderr.contains("cannot compile for ceph-rgw"), "\(ceph.stderr)")
        #expect(ceph.stderr.contains("an owner rule needs a policy variable in Resource"), "\(ceph.stderr)")

        for (arguments, message) in [
            (["--check", "--out", out.path], "--check writes nothing"),
            ([String](), "give --out DIR"),
            (["--check", "--engine", "minio"], "--engine is aws, seaweedfs or ceph-rgw"),
            (["--check", "--pool", "pool"], "--pool"),
            (["--check", "--subject-key", "${sub}"], "--subject-key is a context key"),
        ] {
            let result = try self.run(["rules", "compile", Self.defaultRules] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    @Test func plainWebIdentityUsesTheProvidersSubjectKey() throws {
        let rules = try self.write(
            "users.rules.json", #"{"bucket": "wif-personal", "paths": {"google/{entity_id}/*": [{"allow": "entity", "to": ["read", "write", "delete"]}]}}"#)
        let out = self.folder.appendingPathComponent("google")
        let result = try self.run(["rules", "compile", rules, "--subject-key", "accounts.google.com:sub", "--out", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        let policy = try String(contentsOf: out.appendingPathComponent("authenticated.json"), encoding: .utf8)
        #expect(policy.contains("arn:aws:s3:::wif-personal/google/${accounts.google.com:sub}/*"))
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("authenticated.trust.json").path))
    }

    @Test func validateChecksStorageRulesFilesToo() throws {
        let good = try self.run(["rules", "validate", Self.defaultRules])
        #expect(good.status == 0, "\(good.stdout)")
        #expect(good.stdout == "\(Self.defaultRules): valid, 3 paths\n")
        let bad = try self.write("bad.rules.json", "{\"bucket\": \"wif-personal\",\n \"paths\": {\"a/{entity_id}/b/*\": [{\"allow\": \"owner\", \"to\": [\"read\"]}]}}")
        let result = try self.run(["rules", "validate", bad])
        #expect(result.status == 1)
        #expect(result.stdout.contains("\(bad):2:12: error: paths[\"a/{entity_id}/b/*\"]: the path 'a/{entity_id}/b/*' may hold {entity_id} only as the last part"), "\(result.stdout)")
    }
}
