import Foundation
import Testing
import WIFTestSupport

/// `wif-tool policy validate` and `wif-tool policy simulate`, run as a user would.
@Suite(.oneToolRunAtATime) struct PolicyCommandTests {
    static let perUserPolicy = """
        {
          "Version": "2012-10-17",
          "Statement": [
            {"Sid": "ListOwnFolder", "Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::wif-personal",
             "Condition": {"StringLike": {"s3:prefix": ["${graph.facebook.com:id}/", "${graph.facebook.com:id}/*"]}}},
            {"Sid": "ReadWriteOwnObjects", "Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject"],
             "Resource": "arn:aws:s3:::wif-personal/${graph.facebook.com:id}/*"}
          ]
        }
        """

    static let denyDeletes = """
        {"Version": "2012-10-17", "Statement": {"Sid": "NoDeletes", "Effect": "Deny", "Action": "s3:DeleteObject", "Resource": "*"}}
        """

    static let tagKeysPolicy = """
        {"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:PutObject", "Resource": "*",
          "Condition": {"ForAllValues:StringEquals": {"aws:TagKeys": ["project", "owner"]},
                        "Null": {"aws:TagKeys": "false"}}}}
        """

    static let ifExistsPolicy = """
        {"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*",
          "Condition": {"StringEqualsIfExists": {"aws:TagKeys": "x"}}}}
        """

    static let facebookTrust = """
        {"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Principal": {"Federated": "graph.facebook.com"},
          "Action": "sts:AssumeRoleWithWebIdentity", "Condition": {"StringEquals": {"graph.facebook.com:app_id": "app-1"}}}}
        """

    /// Two errors, on lines 3 and 4, and one warning (no Version), reported together.
    static let badPolicy = """
        {
          "Statement": [
            {"Effect": "Alow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*",
             "Condition": {"StringLikes": {"s3:prefix": "x"}}}
          ]
        }
        """

    let folder: URL

    init() throws {
        self.folder = try ToolRunner.temporaryDirectory()
    }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let url = self.folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: false, encoding: .utf8)
        return url.path
    }

    func run(_ arguments: [String], stdin: Data? = nil) throws -> ToolRunner.Result {
        try ToolRunner.run(arguments, environment: ToolRunner.cleanEnvironment(home: self.folder), stdin: stdin)
    }

    func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    // MARK: validate

    @Test func validateAcceptsAGoodPolicy() throws {
        let path = try self.write("good.json", Self.perUserPolicy)
        let result = try self.run(["policy", "validate", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(path): valid identity policy\n")
        #expect(result.stderr.isEmpty)
    }

    @Test func validateListsEveryErrorWithPathAndPosition() throws {
        let bad = try self.write("bad.json", Self.badPolicy)
        let good = try self.write("good.json", Self.perUserPolicy)
        let result = try self.run(["policy", "validate", bad, good])
        #expect(result.status == 1)
        let lines = self.lines(result.stdout)
        #expect(lines.count == 5, "\(lines)")
        #expect(lines[0].hasPrefix("\(bad):3:16: error: Statement[0].Effect: Effect must be \"Allow\" or \"Deny\""))
        #expect(lines[0].hasSuffix("(did you mean 'Allow'?)"))
        #expect(lines[1] == "\(bad):4:20: error: Statement[0].Condition.StringLikes: unknown condition operator (did you mean 'StringLike'?)")
        #expect(lines[2].hasPrefix("\(bad): warning: no Version element"))
        #expect(lines[3] == "\(bad): invalid identity policy, 2 errors, 1 warning")
        #expect(lines[4] == "\(good): valid identity policy")
        #expect(result.stderr.isEmpty)
    }

    @Test func validateListsWarningsButSucceeds() throws {
        let path = try self.write("risky.json", """
            {"Statement": {"Effect": "Allow", "Action": "s3:GetObject",
             "Resource": "*", "Condition": {"ForAllValues:StringEquals": {"aws:SourceIp": "1.2.3.4"}}}}
            """)
        let result = try self.run(["policy", "validate", path])
        #expect(result.status == 0)
        let lines = self.lines(result.stdout)
        #expect(lines.count == 5, "\(lines)")
        #expect(lines[0].hasPrefix("\(path): warning: no Version element"))
        #expect(lines[1].hasPrefix("\(path):2:2: warning: Statement.Resource: Resource \"*\" with s3:GetObject covers every object"))
        #expect(lines[2].hasPrefix("\(path):2:63: warning: Statement.Condition.ForAllValues:StringEquals.aws:SourceIp: aws:SourceIp is single-valued"))
        #expect(lines[4] == "\(path): valid identity policy, 4 warnings")
    }

    @Test func validateReportsMalformedJSONWithItsPosition() throws {
        let path = try self.write("broken.json", "{\"Version\": \"2012-10-17\",\n \"Statement\": [}")
        let result = try self.run(["policy", "validate", path])
        #expect(result.status == 1)
        let first = try #require(self.lines(result.stdout).first)
        #expect(first.hasPrefix("\(path):2:"), "\(first)")
        #expect(first.contains(": error: "))
    }

    @Test func validateReadsStandardInput() throws {
        let result = try self.run(["policy", "validate", "-"], stdin: Data(Self.denyDeletes.utf8))
        #expect(result.status == 0)
        #expect(result.stdout == "-: valid identity policy\n")
    }

    @Test func validateNamesAnUnreadableFileAndStillChecksTheOthers() throws {
        let good = try self.write("good.json", Self.perUserPolicy)
        let missing = self.folder.appendingPathComponent("missing.json").path
        let result = try self.run(["policy", "validate", missing, good, self.folder.path])
        #expect(result.status == 6)
        #expect(self.lines(result.stderr) == [
            "error: cannot read '\(missing)': no such file", "error: cannot read '\(self.folder.path)': it is a directory",
        ])
        #expect(result.stdout == "\(good): valid identity policy\n")
    }

    @Test func validateInfersTheKindAndAcceptsAnOverride() throws {
        let trust = try self.write("trust.json", Self.facebookTrust)
        let inferred = try self.run(["policy", "validate", trust])
        #expect(inferred.status == 0)
        #expect(inferred.stdout == "\(trust): valid trust policy\n")

        let asIdentity = try self.run(["policy", "validate", "--kind", "identity", trust])
        #expect(asIdentity.status == 1)
        #expect(asIdentity.stdout.contains("error: Statement: missing Resource or NotResource"))
        #expect(asIdentity.stdout.contains("error: Statement.Principal: Principal is not allowed in identity policies"))

        let unknown = try self.run(["policy", "validate", "--kind", "bucket-ish", trust])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("--kind must be identity, resource, trust, session or boundary"))
    }

    @Test func validateJSONIsStructured() throws {
        let bad = try self.write("bad.json", Self.badPolicy)
        let good = try self.write("good.json", Self.perUserPolicy)
        let result = try self.run(["policy", "validate", "--json", bad, good])
        #expect(result.status == 1)
        let report = try self.json(result.stdout)
        #expect(report["errors"] as? Int == 2)
        #expect(report["warnings"] as? Int == 1)
        let files = try #require(report["files"] as? [[String: Any]])
        #expect(files.map { $0["file"] as? String } == [bad, good])
        #expect(files.map { $0["valid"] as? Bool } == [false, true])
        #expect(files.map { $0["kind"] as? String } == ["identity", "identity"])
        let diagnostics = try #require(files.first?["diagnostics"] as? [[String: Any]])
        let effect = try #require(diagnostics.first { $0["path"] as? String == "Statement[0].Effect" })
        #expect(effect["severity"] as? String == "error")
        #expect(effect["line"] as? Int == 3)
        #expect(effect["column"] as? Int == 16)
        #expect(effect["hint"] as? String == "did you mean 'Allow'?")
    }

    /// Every policy in `policies/` (storage rules files, `*.rules.json`, are not policies).
    @Test func validateAcceptsEveryShippedPolicy() throws {
        let policies = Self.root.appendingPathComponent("policies")
        let files = try FileManager.default.subpathsOfDirectory(atPath: policies.path)
            .filter { $0.hasSuffix(".json") && !$0.hasSuffix(".rules.json") }.sorted().map { policies.appendingPathComponent($0).path }
        #expect(files.count >= 15)
        let result = try self.run(["policy", "validate"] + files)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(!result.stdout.contains("warning"), "\(result.stdout)")
        #expect(self.lines(result.stdout).count == files.count)
    }

    // MARK: simulate

    func simulate(_ extra: [String], policy: String = PolicyCommandTests.perUserPolicy) throws -> ToolRunner.Result {
        let path = try self.write("policy.json", policy)
        return try self.run(["policy", "simulate", "--policy", path] + extra)
    }

    @Test func simulateAllowsTheOwnFolderAndDeniesAnotherUsers() throws {
        let own = try self.simulate(["--action", "s3:GetObject", "--resource", "arn:aws:s3:::wif-personal/1001/a.txt",
                                     "--context", "graph.facebook.com:id=1001"])
        #expect(own.status == 0, "\(own.stderr)")
        #expect(own.stdout == "Allow\n")
        let other = try self.simulate(["--action", "s3:GetObject", "--resource", "arn:aws:s3:::wif-personal/1002/a.txt",
                                       "--context", "graph.facebook.com:id=1001"])
        #expect(other.status == 0, "the decision is the output, not the exit status")
        #expect(other.stdout == "ImplicitDeny\n")
        let list = try self.simulate(["--action", "s3:ListBucket", "--resource", "arn:aws:s3:::wif-personal",
                                      "--context", "graph.facebook.com:id=1001", "--context", "s3:prefix="])
        #expect(list.stdout == "ImplicitDeny\n")
    }

    @Test func simulateReportsExplicitDenyAcrossPolicies() throws {
        let deny = try self.write("deny.json", Self.denyDeletes)
        let policy = try self.write("policy.json", Self.perUserPolicy)
        let result = try self.run(["policy", "simulate", "--policy", policy, "--policy", deny, "--action", "s3:DeleteObject",
                                   "--resource", "arn:aws:s3:::wif-personal/1001/a", "--context", "graph.facebook.com:id=1001", "--json"])
        #expect(result.status == 0)
        let object = try self.json(result.stdout)
        #expect(object["decision"] as? String == "ExplicitDeny")
        let statements = try #require(object["statements"] as? [[String: Any]])
        #expect(statements.count == 1)
        #expect(statements.first?["policyName"] as? String == deny)
        #expect(statements.first?["sid"] as? String == "NoDeletes")
        #expect(object["explanation"] == nil)
    }

    @Test func simulateExplainsAsText() throws {
        let result = try self.simulate(["--action", "s3:ListBucket", "--resource", "arn:aws:s3:::wif-personal",
                                        "--context", "graph.facebook.com:id=1001", "--context", "s3:prefix=1002/", "--explain"])
        #expect(result.status == 0)
        let lines = self.lines(result.stdout)
        #expect(lines.first == "ImplicitDeny")
        #expect(lines.dropFirst().first?.hasPrefix("IMPLICIT DENY: ") == true)
        #expect(lines.contains("principal: arn:aws:sts::111122223333:assumed-role/simulated-role/simulated-session"))
        #expect(lines.contains { $0.contains("condition  [no]  StringLike s3:prefix: '1002/' matches none of ['1001/', '1001/*']") })
    }

    @Test func simulateExplainsAsJSON() throws {
        let result = try self.simulate(["--action", "s3:PutObject", "--resource", "arn:aws:s3:::wif-personal/1001/x",
                                        "--context", "graph.facebook.com:id=1001", "--explain", "--json",
                                        "--principal", "arn:aws:sts::111122223333:assumed-role/personal-store/alice"])
        #expect(result.status == 0)
        let object = try self.json(result.stdout)
        #expect(object["decision"] as? String == "Allow")
        let explanation = try #require(object["explanation"] as? [String: Any])
        #expect(explanation["outcome"] as? String == "allow")
        #expect(explanation["principal"] as? String == "arn:aws:sts::111122223333:assumed-role/personal-store/alice")
        let policies = try #require(explanation["policies"] as? [[String: Any]])
        let statements = try #require(policies.first?["statements"] as? [[String: Any]])
        #expect(statements.map { $0["applies"] as? Bool } == [false, true])
    }

    @Test func repeatedContextKeysAreMultiValued() throws {
        func decide(_ context: [String]) throws -> String {
            let result = try self.simulate(
                ["--action", "s3:PutObject", "--resource", "arn:aws:s3:::b/k"] + context.flatMap { ["--context", $0] },
                policy: Self.tagKeysPolicy)
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout
        }
        #expect(try decide(["aws:TagKeys=project", "aws:TagKeys=owner"]) == "Allow\n")
        #expect(try decide(["aws:TagKeys=project", "AWS:tagkeys=secret"]) == "ImplicitDeny\n", "keys are case-insensitive")
        #expect(try decide([]) == "ImplicitDeny\n")
    }

    @Test func contextJSONDistinguishesAnEmptySetFromAnAbsentKey() throws {
        let base = ["--action", "s3:GetObject", "--resource", "arn:aws:s3:::b/k"]
        #expect(try self.simulate(base, policy: Self.ifExistsPolicy).stdout == "Allow\n")
        #expect(try self.simulate(base + ["--context-json", #"{"aws:TagKeys": []}"#], policy: Self.ifExistsPolicy).stdout == "ImplicitDeny\n")
        let twice = try self.simulate(
            base + ["--context", "aws:TagKeys=x", "--context-json", #"{"aws:tagkeys": ["x"]}"#], policy: Self.ifExistsPolicy)
        #expect(twice.status == 64)
        #expect(twice.stderr == "error: context key 'aws:tagkeys' is given by both --context and --context-json\n")
        let notObject = try self.simulate(base + ["--context-json", "[1]"], policy: Self.ifExistsPolicy)
        #expect(notObject.status == 64)
        #expect(notObject.stderr.hasPrefix("error: --context-json must be a JSON object"))
    }

    @Test func expectTurnsAMismatchIntoExitOne() throws {
        let request = ["--action", "s3:GetObject", "--resource", "arn:aws:s3:::wif-personal/1002/a", "--context", "graph.facebook.com:id=1001"]
        let mismatch = try self.simulate(request + ["--expect", "Allow"])
        #expect(mismatch.status == 1)
        #expect(mismatch.stdout == "ImplicitDeny\n")
        #expect(mismatch.stderr == "error: expected Allow, got ImplicitDeny\n")
        let match = try self.simulate(request + ["--expect", "implicit-deny"])
        #expect(match.status == 0)
        let invalid = try self.simulate(request + ["--expect", "Maybe"])
        #expect(invalid.status == 64)
        #expect(invalid.stderr.contains("--expect must be Allow, ExplicitDeny or ImplicitDeny"))
    }

    @Test func simulatesATrustPolicyForAWebIdentity() throws {
        let trust = try self.write("trust.json", Self.facebookTrust)
        func assume(_ principal: String, appId: String) throws -> ToolRunner.Result {
            try self.run(["policy", "simulate", "--trust-policy", trust, "--principal", principal,
                          "--action", "sts:AssumeRoleWithWebIdentity", "--resource", "arn:aws:iam::111122223333:role/personal-store",
                          "--context", "graph.facebook.com:app_id=\(appId)"])
        }
        #expect(try assume("graph.facebook.com", appId: "app-1").stdout == "Allow\n")
        #expect(try assume("graph.facebook.com", appId: "app-2").stdout == "ImplicitDeny\n")
        #expect(try assume("accounts.google.com", appId: "app-1").stdout == "ImplicitDeny\n")
        let noPrincipal = try self.run(["policy", "simulate", "--trust-policy", trust, "--action", "sts:AssumeRoleWithWebIdentity",
                                        "--resource", "arn:aws:iam::111122223333:role/personal-store"])
        #expect(noPrincipal.status == 64)
        #expect(noPrincipal.stderr.contains("--trust-policy needs --principal"))
    }

    @Test func simulatePrincipalsAndTime() throws {
        let policy = """
            {"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*",
              "Condition": {"DateLessThan": {"aws:CurrentTime": "2025-01-01T00:00:00Z"}, "StringEquals": {"aws:PrincipalType": "User"}}}}
            """
        let base = ["--action", "s3:GetObject", "--resource", "arn:aws:s3:::b/k"]
        let user = ["--principal", "arn:aws:iam::111122223333:user/carol"]
        #expect(try self.simulate(base + user, policy: policy).stdout == "Allow\n")
        #expect(try self.simulate(base + user + ["--time", "2025-06-01T00:00:00Z"], policy: policy).stdout == "ImplicitDeny\n")
        #expect(try self.simulate(base, policy: policy).stdout == "ImplicitDeny\n", "the default principal is a role session")
        #expect(try self.simulate(base + ["--principal", "anonymous"], policy: policy).stdout == "ImplicitDeny\n")

        let role = try self.simulate(base + ["--principal", "arn:aws:iam::111122223333:role/app"], policy: policy)
        #expect(role.status == 64)
        #expect(role.stderr == "error: a role does not make requests, its sessions do: use arn:aws:sts::111122223333:assumed-role/app/SESSION\n")
        let nonsense = try self.simulate(base + ["--principal", "alice"], policy: policy)
        #expect(nonsense.status == 64)
        #expect(nonsense.stderr.hasPrefix("error: principal 'alice' is not recognised"))
        let badTime = try self.simulate(base + ["--time", "yesterday"], policy: policy)
        #expect(badTime.status == 64)
        #expect(badTime.stderr.contains("--time must be ISO 8601"))
    }

    @Test func simulateRejectsBadInputs() throws {
        let request = ["--action", "s3:GetObject", "--resource", "arn:aws:s3:::b/k"]
        let missing = self.folder.appendingPathComponent("nope.json").path
        let unreadable = try self.run(["policy", "simulate", "--policy", missing] + request)
        #expect(unreadable.status == 6)
        #expect(unreadable.stderr == "error: cannot read '\(missing)': no such file\n")

        let bad = try self.write("bad.json", Self.badPolicy)
        let invalid = try self.run(["policy", "simulate", "--policy", bad] + request)
        #expect(invalid.status == 64)
        #expect(invalid.stderr.hasPrefix("error: invalid identity policy \(bad):3:16: Statement[0].Effect: "))
        #expect(invalid.stderr.contains("(and 1 more error; 'wif-tool policy validate' lists them all)"))
        #expect(self.lines(invalid.stderr).count == 1)

        let trustAsIdentity = try self.write("trust.json", Self.facebookTrust)
        let wrongKind = try self.run(["policy", "simulate", "--policy", trustAsIdentity] + request)
        #expect(wrongKind.status == 64)
        #expect(wrongKind.stderr.hasPrefix("error: invalid identity policy \(trustAsIdentity)"))

        let badContext = try self.simulate(request + ["--context", "novalue"])
        #expect(badContext.status == 64)
        #expect(badContext.stderr == "error: --context must look like KEY=VALUE, not 'novalue'\n")

        let noAction = try self.simulate(["--resource", "arn:aws:s3:::b/k"])
        #expect(noAction.status == 64)
        #expect(noAction.stderr.contains("--action is required"))

        let mixed = try self.run(["policy", "simulate", "--cases", "cases.json", "--policy", bad])
        #expect(mixed.status == 64)
        #expect(mixed.stderr.contains("--policy cannot be combined with --cases"))
    }
}
