import Foundation
import Testing

extension PolicyCommandTests {
    // MARK: a bad case does not stop the batch

    /// A case after the bad one, which must still run.
    static let goodCase = """
        {"name": "good", "policies": [\(denyDeletes)], "request": {"action": "s3:DeleteObject", "resource": "*"}, "expected": "ExplicitDeny"}
        """
    static let request = #""request": {"action": "s3:GetObject", "resource": "arn:aws:s3:::b/k"}"#

    @Test(arguments: [
        ("unknown key", #"{"name": "a", "expect": "Allow", "#,
         "a", "cases[0].expect: unknown key (did you mean 'expected'?); expected one of name, policies, sessionPolicy,"),
        ("misspelt policies", #"{"name": "typo", "polices": [], "#,
         "typo", "cases[0].polices: unknown key (did you mean 'policies'?); expected one of"),
        ("no action", #"{"request": {"resource": "*"}}"#, "cases[0]", "cases[0].request.action: missing; it is required"),
        ("missing policy file", #"{"name": "m", "resourcePolicy": "x.json", "#, "m", "cases[0].resourcePolicy: cannot read '"),
        ("bad context", #"{"name": "c", "request": {"action": "a:b", "resource": "*", "context": {"k": [1, {}]}}}"#,
         "c", "cases[0].request.context.k[1]: a context value must be a string, not an object"),
        ("invalid policy file", #"{"name": "f", "policies": ["bad.json"], "#,
         "f", "cases[0].policies[0]: invalid identity policy bad.json:3:16: Statement[0].Effect: "),
        ("invalid principal", #"{"name": "p", "policies": [], "request": {"principal": "arn:aws:iam::111122223333:role/app", "action": "a:b", "resource": "*"}}"#,
         "p", "cases[0].request.principal: a role does not make requests, its sessions do: use arn:aws:sts::111122223333:assumed-role/app/SESSION"),
        ("unrecognised principal", #"{"name": "q", "request": {"principal": "bob", "action": "a:b", "resource": "*"}}"#,
         "q", "cases[0].request.principal: principal 'bob' is not recognised;"),
        ("policy not an object", #"{"name": "n", "policies": [42], "#,
         "n", "cases[0].policies[0]: expected a policy object or a file path, found a number"),
        ("case not an object", "42", "cases[0]", "cases[0]: expected an object, found a number"),
        ("bad expectation", #"{"name": "e", "expected": "Yes", "#, "e", "cases[0].expected: 'Yes' is not Allow, ExplicitDeny or ImplicitDeny"),
        ("documentation not text", #"{"name": "d", "note": ["x"], "#, "d", "cases[0].note: expected a string, found an array"),
    ])
    func batchReportsABadCaseOnItsOwnLineAndRunsTheRest(label: String, head: String, name: String, error: String) throws {
        try self.write("bad.json", Self.badPolicy)
        let bad = head.hasSuffix(", ") ? head + Self.request + "}" : head
        let cases = try self.write("cases.json", "{\"cases\": [\(bad),\n\(Self.goodCase)]}")
        let result = try self.run(["policy", "simulate", "--cases", cases])
        #expect(result.status == 1, "\(label): \(result.stderr)")
        #expect(result.stderr.isEmpty, "\(label): \(result.stderr)")
        let lines = self.lines(result.stdout)
        try #require(lines.count == 3, "\(label): \(result.stdout)")
        let first = try self.json(lines[0])
        #expect(first["name"] as? String == name, "\(label)")
        let message = try #require(first["error"] as? String, "\(label): \(lines[0])")
        #expect(message.hasPrefix(error), "\(label): \(message)")
        #expect(first["ok"] as? Bool == false, "\(label)")
        #expect(first["decision"] == nil, "\(label)")
        #expect(lines[1] == #"{"name":"good","decision":"ExplicitDeny","expected":"ExplicitDeny","ok":true}"#, "\(label)")
        #expect(lines[2] == "1 passed, 1 failed", "\(label)")
    }

    @Test func batchPointsIntoTheCaseFileForAnInlinePolicy() throws {
        let cases = try self.write("cases.json", """
            {"cases": [
              {"name": "inline", "policies": [
                {"Version": "2012-10-17", "Statement": {"Effect": "Maybe", "Action": "s3:*", "Resource": "*"}}],
               "request": {"action": "s3:GetObject", "resource": "*"}}
            ]}
            """)
        let result = try self.run(["policy", "simulate", "--cases", cases])
        #expect(result.status == 1)
        let line = try self.json(try #require(self.lines(result.stdout).first))
        let message = try #require(line["error"] as? String)
        // Line 3 of the case file, where the policy starts in column 5 and its Effect value in column 55.
        #expect(message.hasPrefix("cases[0].policies[0]: invalid identity policy \(cases):3:55: Statement.Effect: "), "\(message)")
    }

    @Test func batchReportsEveryDuplicateNameAfterTheFirst() throws {
        let cases = try self.write("cases.json", """
            {"cases": [
              {"name": "x", \(Self.request), "expected": "ImplicitDeny"},
              {"name": "x", \(Self.request)},
              {"name": "y", \(Self.request), "expected": "ImplicitDeny"}
            ]}
            """)
        let result = try self.run(["policy", "simulate", "--cases", cases])
        #expect(result.status == 1)
        #expect(self.lines(result.stdout) == [
            #"{"name":"x","decision":"ImplicitDeny","expected":"ImplicitDeny","ok":true}"#,
            #"{"name":"x","error":"cases[1].name: duplicate case name 'x'","ok":false}"#,
            #"{"name":"y","decision":"ImplicitDeny","expected":"ImplicitDeny","ok":true}"#,
            "2 passed, 1 failed",
        ])
    }

    // MARK: no policy at all

    @Test func batchAnswersImplicitDenyWithoutPolicies() throws {
        let allowAll = #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "*", "Resource": "*"}}"#
        let cases = try self.write("cases.json", """
            {"cases": [
              {"name": "empty list", "policies": [], \(Self.request), "expected": "ImplicitDeny"},
              {"name": "no policies key", \(Self.request), "expected": "ImplicitDeny"},
              {"name": "session policy only", "policies": [], "sessionPolicy": \(allowAll), \(Self.request), "expected": "ImplicitDeny"},
              {"name": "boundary only", "permissionsBoundary": \(allowAll), \(Self.request), "expected": "ImplicitDeny"},
              {"name": "both limits", "sessionPolicy": \(allowAll), "permissionsBoundary": \(allowAll), \(Self.request),
               "expected": "ImplicitDeny"}
            ]}
            """)
        let result = try self.run(["policy", "simulate", "--cases", cases])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let lines = self.lines(result.stdout)
        #expect(lines.first == #"{"name":"empty list","decision":"ImplicitDeny","expected":"ImplicitDeny","ok":true}"#)
        #expect(lines.last == "5 passed, 0 failed")

        let explained = try self.run(["policy", "simulate", "--cases", cases, "--explain"])
        let object = try self.json(self.lines(explained.stdout)[0])
        let explanation = try #require(object["explanation"] as? [String: Any])
        #expect(explanation["summary"] as? String == "Implicitly denied: no statement allows s3:GetObject on arn:aws:s3:::b/k.")
        #expect((explanation["policies"] as? [Any])?.isEmpty == true)
    }

    // MARK: documentation keys

    @Test func batchEchoesEachCasesDocumentation() throws {
        let cases = try self.write("cases.json", """
            {"description": "Checks the bucket policy", "source": "issue tracker", "category": "s3", "note": "kept short",
             "cases": [
              {"name": "documented", "description": "nobody may delete", "note": "see the deny", "source": "AWS docs",
               "category": "deny", "policies": [\(Self.denyDeletes)],
               "request": {"action": "s3:DeleteObject", "resource": "*"}, "expected": "ExplicitDeny"},
              {"name": "category only", "category": "implicit", \(Self.request)},
              {"name": "broken", "note": "kept on the error line", "polices": [], \(Self.request)}
            ]}
            """)
        let result = try self.run(["policy", "simulate", "--cases", cases])
        #expect(result.status == 1)
        let lines = self.lines(result.stdout)
        #expect(lines[0] == """
            {"name":"documented","description":"nobody may delete","note":"see the deny","source":"AWS docs",\
            "category":"deny","decision":"ExplicitDeny","expected":"ExplicitDeny","ok":true}
            """)
        #expect(lines[1] == #"{"name":"category only","category":"implicit","decision":"ImplicitDeny"}"#)
        let broken = try self.json(lines[2])
        #expect(broken["note"] as? String == "kept on the error line")
        #expect((broken["error"] as? String)?.hasPrefix("cases[2].polices: unknown key (did you mean 'policies'?)") == true)
        #expect(lines[3] == "1 passed, 1 failed")

        let explained = try self.run(["policy", "simulate", "--cases", cases, "--explain", "--json"])
        let first = try self.json(self.lines(explained.stdout)[0])
        #expect(first["description"] as? String == "nobody may delete")
        #expect(first["category"] as? String == "deny")
        #expect(first["explanation"] != nil)
    }
}
