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
        ("not json", "{\"cases\": [", "error: CASES:1:12: not valid JSON: unexpected end of input"),
        ("not json, later line", "{\"cases\": [\n  {\"name\": \"a\",}\n]}", "error: CASES:2:16: not valid JSON: trailing comma before '}'"),
        ("top level not an object", "[]", "error: CASES: expected an object, found an array"),
        ("no cases", "{}", "error: CASES: cases: missing; it is required"),
        ("cases not an array", #"{"cases": {}}"#, "error: CASES: cases: expected an array, found an object"),
        ("empty", #"{"cases": []}"#, "error: CASES: cases: is empty; add at least one case"),
        ("misspelt top-level key", #"{"case": []}"#,
         "error: CASES: case: unknown key (did you mean 'cases'?); expected one of cases, description, note, source, category"),
        ("unknown top-level key", #"{"cases": [], "owner": "me"}"#, "error: CASES: owner: unknown key; expected one of cases,"),
        ("documentation not text", #"{"description": 3, "cases": [{"request": {"action": "a:b", "resource": "*"}}]}"#,
         "error: CASES: description: expected a string, found a number"),
        ("key given twice", #"{"cases": [], "cases": []}"#, "error: CASES: cases: is given twice; give each key once"),
    ])
    func batchRejectsAFileWhoseTopLevelIsWrongAsAWhole(label: String, text: String, expected: String) throws {
        let cases = try self.write("cases.json", text)
        let result = try self.run(["policy", "simulate", "--cases", cases])
        let message = expected.replacingOccurrences(of: "CASES", with: cases)
        #expect(result.stderr.hasPrefix(message), "\(label): \(result.stderr)")
        #expect(self.lines(result.stderr).count == 1, "\(label)")
        #expect(result.status == 64, "\(label)")
        #expect(result.stdout.isEmpty, "\(label): nothing runs when the file is invalid")
    }

    @Test func batchNamesAnUnreadableCaseFile() throws {
        let missing = self.folder.appendingPathComponent("none.json").path
        let result = try self.run(["policy", "simulate", "--cases", missing])
        #expect(result.status == 6)
        #expect(result.stderr == "error: cannot read '\(missing)': no such file\n")
        #expect(result.stdout.isEmpty)
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
