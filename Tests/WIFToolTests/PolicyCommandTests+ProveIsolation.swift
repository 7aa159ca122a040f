import Foundation
import Testing

/// `wif-tool policy prove-isolation`, run as a user would.
extension PolicyCommandTests {
    static let repositoryPolicies = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("policies")

    func prove(_ extra: [String], policy: String? = nil) throws -> ToolRunner.Result {
        let path = try policy.map { try self.write("policy.json", $0) }
            ?? Self.repositoryPolicies.appendingPathComponent("facebook/personal-store.json").path
        return try self.run(
            ["policy", "prove-isolation", "--policy", path, "--bucket", "wif-personal", "--template", "{id}/",
             "--id-key", "graph.facebook.com:id"] + extra)
    }

    @Test func proveIsolationProvesTheShippedPolicyForNumericIds() throws {
        let result = try self.prove(["--id-chars", "[0-9]"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let lines = self.lines(result.stdout)
        #expect(lines.first == "proved: no user can reach another user's folder wif-personal/{id}/")
        #expect(lines.contains("  ids: non-empty strings of [0-9], the value of graph.facebook.com:id"))
    }

    @Test func proveIsolationPrintsAConfirmedCounterexampleForIdsWithSlashes() throws {
        let result = try self.prove(["--json"])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let json = try self.json(result.stdout)
        #expect(json["result"] as? String == "counterexample")
        #expect(json["alphabet"] as? String == "any non-empty string")
        let caller = try #require(json["callerId"] as? String)
        let owner = try #require(json["ownerId"] as? String)
        #expect(caller != owner)
        #expect(owner.hasPrefix(caller + "/") || caller.hasPrefix(owner + "/"))
        #expect((json["allowedBy"] as? [String])?.isEmpty == false)
    }

    @Test func proveIsolationFindsAnUnconditionedListing() throws {
        let policy = """
            {"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:ListBucket",
             "Resource": "arn:aws:s3:::wif-personal"}}
            """
        let result = try self.prove(["--id-chars", "[0-9]"], policy: policy)
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("counterexample: user '"))
        #expect(result.stdout.contains("may s3:ListBucket arn:aws:s3:::wif-personal"))
    }

    @Test func proveIsolationWarnsWhenNoPolicyUsesTheIdKey() throws {
        let typo = try self.run(
            ["policy", "prove-isolation", "--policy", Self.repositoryPolicies.appendingPathComponent("facebook/personal-store.json").path,
             "--bucket", "wif-personal", "--template", "{id}/", "--id-key", "graph.facebok.com:id", "--id-chars", "[0-9]"])
        #expect(typo.status == 2, "\(typo.stdout)\(typo.stderr)")
        #expect(typo.stderr.contains("warning: no policy uses ${graph.facebok.com:id}, the --id-key; they use ${graph.facebook.com:id}"), "\(typo.stderr)")
        let right = try self.prove(["--id-chars", "[0-9]"])
        #expect(!right.stderr.contains("warning"), "\(right.stderr)")
        // A variable with a default value, `${key, 'default'}`, uses its key as the policy parser reads it.
        let defaulted = try self.prove(["--id-chars", "[0-9]"], policy: """
            {"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:GetObject",
             "Resource": "arn:aws:s3:::wif-personal/${graph.facebook.com:id, 'nobody'}/*"}}
            """)
        #expect(!defaulted.stderr.contains("no policy uses"), "\(defaulted.stderr)")
    }

    @Test func proveIsolationShowsTheLintersWarningsWithTheirPaths() throws {
        let policy = """
            {"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:GetObject",
             "Resource": "arn:aws:s3:::wif-personal/${cognito-identity.amazon.com:sub}/*"}}
            """
        let path = try self.write("typo.json", policy)
        let result = try self.run(
            ["policy", "prove-isolation", "--policy", path, "--bucket", "wif-personal", "--template", "{id}/",
             "--id-key", "cognito-identity.amazonaws.com:sub", "--json"])
        #expect(result.stderr.contains(": warning: Statement.Resource: ${cognito-identity.amazon.com:sub}: no identity provider issues this key"), "\(result.stderr)")
        #expect(result.stderr.contains("did you mean ${cognito-identity.amazonaws.com:sub}?"), "\(result.stderr)")
        #expect(result.stderr.contains("no policy uses ${cognito-identity.amazonaws.com:sub}"), "\(result.stderr)")
        // Standard output stays one JSON document.
        #expect(try self.json(result.stdout)["result"] as? String != nil)
    }

    @Test func proveIsolationIsUndecidedWithItsOwnExitCode() throws {
        let policy = """
            {"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:GetObject",
             "Resource": "arn:aws:s3:::wif-personal/${aws:userid}/*"}}
            """
        let result = try self.prove(["--id-chars", "[0-9]", "--json"], policy: policy)
        #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
        let json = try self.json(result.stdout)
        #expect(json["result"] as? String == "undecided")
        #expect((json["construct"] as? String)?.contains("${aws:userid}") == true)
    }

    @Test func proveIsolationChecksEachRole() throws {
        let facebook = Self.repositoryPolicies.appendingPathComponent("facebook/personal-store.json").path
        let open = try self.write("open.json", """
            {"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:GetObject",
             "Resource": "arn:aws:s3:::wif-personal/*"}}
            """)
        let result = try self.run(
            ["policy", "prove-isolation", "--role", "users=\(facebook)", "--role", "guests=\(open)",
             "--bucket", "wif-personal", "--template", "{id}/", "--id-key", "graph.facebook.com:id",
             "--id-chars", "[0-9]", "--json"])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let json = try self.json(result.stdout)
        #expect(json["result"] as? String == "counterexample")
        let roles = try #require(json["roles"] as? [[String: Any]])
        #expect(roles.map { $0["role"] as? String } == ["users", "guests"])
        #expect(roles.map { $0["result"] as? String } == ["proved", "counterexample"])
    }

    @Test func proveIsolationChecksRolesAgainstEachOthersUsers() throws {
        let facebook = Self.repositoryPolicies.appendingPathComponent("facebook/personal-store.json").path
        let google = Self.repositoryPolicies.appendingPathComponent("google/personal-store.json").path
        let localGoogle = Self.repositoryPolicies.appendingPathComponent("local/google.json").path
        let common = [
            "policy", "prove-isolation", "--bucket", "wif-personal", "--id-chars", "[0-9]", "--template", "{id}/",
            "--id-key", "graph.facebook.com:id", "--role", "facebook=\(facebook)", "--role-id-key", "google=accounts.google.com:sub",
        ]
        // Both at the root: Facebook's user 12 and Google's user 12 share a folder.
        let shared = try self.run(common + ["--role", "google=\(google)", "--json"])
        #expect(shared.status == 1, "\(shared.stdout)\(shared.stderr)")
        let json = try self.json(shared.stdout)
        #expect(json["result"] as? String == "counterexample")
        let roles = try #require(json["roles"] as? [[String: Any]])
        #expect(roles.map { $0["result"] as? String } == ["proved", "proved"])
        let pairs = try #require(json["pairs"] as? [[String: Any]])
        #expect(pairs.map { "\($0["caller"] ?? "")>\($0["owner"] ?? "")" } == ["facebook>google", "google>facebook"])
        #expect(pairs.map { $0["result"] as? String } == ["counterexample", "counterexample"])

        // Google's users in their own folder: proved in every direction, and the text says so per pair.
        let apart = try self.run(common + ["--role", "google=\(localGoogle)", "--role-template", "google=google/{id}/"])
        #expect(apart.status == 0, "\(apart.stdout)\(apart.stderr)")
        #expect(apart.stdout.contains("role facebook against the users of role google: proved"), "\(apart.stdout)")
        #expect(apart.stdout.contains("role google against the users of role facebook: proved"), "\(apart.stdout)")

        let unknown = try self.run(common + ["--role", "google=\(google)", "--role-template", "gogle=google/{id}/"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("names no role"), "\(unknown.stderr)")
        let twice = try self.run(common + ["--role", "google=\(google)", "--role-template", "google=a/{id}/", "--role-template", "google=b/{id}/"])
        #expect(twice.status == 64)
        #expect(twice.stderr.contains("given twice for role google"), "\(twice.stderr)")
    }

    @Test func proveIsolationRejectsBadOptions() throws {
        #expect(try self.prove(["--id-chars", "0-9"]).status == 64)
        let noId = try self.run(
            ["policy", "prove-isolation", "--policy", "x.json", "--bucket", "b", "--template", "users/",
             "--id-key", "k"])
        #expect(noId.status == 64)
        #expect(noId.stderr.contains("{id}"))
    }
}
