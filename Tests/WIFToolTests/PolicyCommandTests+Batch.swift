import Foundation
import Testing

extension PolicyCommandTests {
    // MARK: batch

    @Test func batchRunsCasesAndCountsThem() throws {
        try self.write("policies/personal-store.json", Self.perUserPolicy)
        let cases = try self.write("cases/cases.json", """
            {"cases": [
              {"name": "own file", "policies": ["../policies/personal-store.json"],
               "request": {"action": "s3:GetObject", "resource": "arn:aws:s3:::wif-personal/1001/a.txt",
                           "context": {"graph.facebook.com:id": "1001"}}, "expected": "Allow"},
              {"name": "another user's file", "policies": ["../policies/personal-store.json"],
               "request": {"action": "s3:GetObject", "resource": "arn:aws:s3:::wif-personal/1002/a.txt",
                           "context": {"graph.facebook.com:id": "1001"}}, "expected": "ImplicitDeny"},
              {"name": "deny wins", "policies": [\(Self.perUserPolicy), \(Self.denyDeletes)],
               "request": {"action": "s3:DeleteObject", "resource": "arn:aws:s3:::wif-personal/1001/a.txt",
                           "context": {"graph.facebook.com:id": "1001"}}, "expected": "ExplicitDeny"},
              {"name": "no expectation", "policies": [\(Self.tagKeysPolicy)],
               "request": {"action": "s3:PutObject", "resource": "arn:aws:s3:::b/k", "context": {"aws:TagKeys": ["project", "owner"]}}},
              {"name": "absent key", "policies": [\(Self.ifExistsPolicy)],
               "request": {"action": "s3:GetObject", "resource": "arn:aws:s3:::b/k"}, "expected": "Allow"},
              {"name": "empty set", "policies": [\(Self.ifExistsPolicy)],
               "request": {"action": "s3:GetObject", "resource": "arn:aws:s3:::b/k", "context": {"aws:TagKeys": []}},
               "expected": "ImplicitDeny"},
              {"name": "trust", "trustPolicy": \(Self.facebookTrust),
               "request": {"principal": "graph.facebook.com", "action": "sts:AssumeRoleWithWebIdentity",
                           "resource": "arn:aws:iam::111122223333:role/personal-store",
                           "context": {"graph.facebook.com:app_id": "app-1"}}, "expected": "Allow"}
            ]}
            """)
        let result = try self.run(["policy", "simulate", "--cases", cases])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let lines = self.lines(result.stdout)
        #expect(lines.count == 8)
        #expect(lines.first == #"{"name":"own file","decision":"Allow","expected":"Allow","ok":true}"#)
        #expect(lines[3] == #"{"name":"no expectation","decision":"Allow"}"#)
        for line in lines.dropLast() {
            let object = try self.json(line)
            #expect(object["ok"] as? Bool ?? true, "\(line)")
        }
        #expect(lines.last == "6 passed, 0 failed")
    }

    @Test func batchFailsWhenACaseDoesNotMatch() throws {
        let cases = try self.write("cases.json", """
            {"cases": [
              {"name": "passes", "policies": [\(Self.perUserPolicy)],
               "request": {"action": "s3:GetObject", "resource": "arn:aws:s3:::wif-personal/1001/a", "context": {"graph.facebook.com:id": "1001"}},
               "expected": "Allow"},
              {"name": "wrong on purpose", "policies": [\(Self.perUserPolicy)],
               "request": {"action": "s3:ListBucket", "resource": "arn:aws:s3:::wif-personal",
                           "context": {"graph.facebook.com:id": "1001", "s3:prefix": ""}},
               "expected": "Allow"}
            ]}
            """)
        let result = try self.run(["policy", "simulate", "--cases", cases])
        #expect(result.status == 1)
        #expect(self.lines(result.stdout) == [
            #"{"name":"passes","decision":"Allow","expected":"Allow","ok":true}"#,
            #"{"name":"wrong on purpose","decision":"ImplicitDeny","expected":"Allow","ok":false}"#,
            "1 passed, 1 failed",
        ])

        let explained = try self.run(["policy", "simulate", "--cases", cases, "--explain"])
        let failing = try self.json(self.lines(explained.stdout)[1])
        let explanation = try #require(failing["explanation"] as? [String: Any])
        #expect(explanation["outcome"] as? String == "implicitDeny")
    }

    @Test(arguments: [
        ("not json", "{\"cases\": [", "error: CASES: not valid JSON: "),
        ("no cases", "{}", "error: CASES: cases: missing; it is required"),
        ("empty", #"{"cases": []}"#, "error: CASES: cases: is empty; add at least one case"),
        ("unknown key", #"{"cases": [{"name": "a", "expect": "Allow"}]}"#,
         "error: CASES: cases[0].expect: unknown key (did you mean 'expected'?); expected one of"),
        ("no action", #"{"cases": [{"policies": ["p.json"], "request": {"resource": "*"}}]}"#,
         "error: CASES: cases[0].request.action: missing; it is required"),
        ("missing policy file", #"{"cases": [{"policies": [], "resourcePolicy": "x.json", "request": {"action": "a:b", "resource": "*"}}]}"#,
         "error: CASES: cases[0].resourcePolicy: cannot read '"),
        ("bad context", #"{"cases": [{"policies": ["p.json"], "request": {"action": "a:b", "resource": "*", "context": {"k": [1, {}]}}}]}"#,
         "error: CASES: cases[0].request.context.k[1]: a context value must be a string, not an object"),
        ("invalid policy", #"{"cases": [{"policies": [{"Version": "2012-10-17", "Statement": {"Effect": "Maybe", "Action": "s3:*", "Resource": "*"}}], "request": {"action": "a:b", "resource": "*"}}]}"#,
         "error: CASES: invalid identity policy cases[0].policies[0]: Statement.Effect: "),
        ("no policies", #"{"cases": [{"request": {"action": "a:b", "resource": "*"}}]}"#,
         "error: CASES: cases[0]: needs at least one policy"),
        ("policy not object", #"{"cases": [{"policies": [42], "request": {"action": "a:b", "resource": "*"}}]}"#,
         "error: CASES: cases[0].policies[0]: expected a policy object or a file path, found a number"),
        ("duplicate names", #"{"cases": [{"name": "x", "policies": ["p.json"], "request": {"action": "a:b", "resource": "*"}}, {"name": "x", "policies": ["p.json"], "request": {"action": "a:b", "resource": "*"}}]}"#,
         "error: CASES: cases[1].name: duplicate case name 'x'"),
    ])
    func batchRejectsMalformedCaseFilesWithTheJSONPath(label: String, text: String, expected: String) throws {
        try self.write("p.json", Self.denyDeletes)
        let cases = try self.write("cases.json", text)
        let result = try self.run(["policy", "simulate", "--cases", cases])
        let message = expected.replacingOccurrences(of: "CASES", with: cases)
        #expect(result.stderr.hasPrefix(message), "\(label): \(result.stderr)")
        #expect(self.lines(result.stderr).count == 1, "\(label)")
        #expect(result.status == (label == "missing policy file" ? 6 : 64), "\(label)")
        #expect(result.stdout.isEmpty, "\(label): nothing runs when the file is invalid")
    }

    @Test func batchRejectsABadExpectation() throws {
        let cases = try self.write("cases.json", """
            {"cases": [{"policies": [\(Self.denyDeletes)], "request": {"action": "a:b", "resource": "*"}, "expected": "Yes"}]}
            """)
        let result = try self.run(["policy", "simulate", "--cases", cases])
        #expect(result.status == 64)
        #expect(result.stderr == "error: \(cases): cases[0].expected: 'Yes' is not Allow, ExplicitDeny or ImplicitDeny\n")
    }

    // MARK: help

    @Test func helpDocumentsFormatsAndExitCodes() throws {
        // Help is wrapped to the terminal width; compare with whitespace collapsed.
        func flat(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let root = try self.run(["--help"])
        #expect(root.stdout.contains("policy"))
        let simulate = try self.run(["policy", "simulate", "--help"])
        #expect(simulate.status == 0)
        for text in ["--cases", "--expect", "--context", "'N passed, N failed'", "Exit status: 0 whatever the decision", "ImplicitDeny"] {
            #expect(flat(simulate.stdout).contains(text), "missing \(text)")
        }
        let validate = try self.run(["policy", "validate", "--help"])
        #expect(validate.status == 0)
        for text in ["'FILE:LINE:COLUMN: error: PATH: message'", "--kind", "Exit status: 0 when no file has errors"] {
            #expect(flat(validate.stdout).contains(text), "missing \(text)")
        }
    }
}
