import Foundation
import Testing
import WIFTestSupport

/// `wif-tool request`, run as a separate process.
@Suite(.oneToolRunAtATime) struct RequestCommandTests {
    static let keys = [
        "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    ]

    // The expected signature is the AWS SigV4 test suite's `get-vanilla` case.
    @Test func dryRunMatchesTheSigV4TestSuite() throws {
        let home = try ToolRunner.temporaryDirectory()
        let result = try ToolRunner.run(
            ["request", "--dry-run", "--service", "service", "--region", "us-east-1", "--date", "20150830T123600Z",
             "https://example.amazonaws.com/"],
            environment: ToolRunner.cleanEnvironment(home: home, extra: Self.keys)
        )
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "GET https://example.amazonaws.com/")
        #expect(lines.contains("X-Amz-Date: 20150830T123600Z"))
        #expect(lines.contains("Host: example.amazonaws.com"))
        #expect(lines.contains(
            "Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        ))
    }

    // The AWS SigV4 test suite's `get-vanilla-with-session-token` case.
    @Test func dryRunWithSessionTokenAsJSON() throws {
        let home = try ToolRunner.temporaryDirectory()
        var keys = Self.keys
        keys["AWS_SESSION_TOKEN"] = "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267"
        let result = try ToolRunner.run(
            ["request", "--dry-run", "--json", "--service", "service", "--region", "us-east-1", "--date", "20150830T123600Z",
             "https://example.amazonaws.com/"],
            environment: ToolRunner.cleanEnvironment(home: home, extra: keys)
        )
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["method"] as? String == "GET")
        #expect(object["url"] as? String == "https://example.amazonaws.com/")
        let headers = try #require(object["headers"] as? [String: String])
        #expect(headers["X-Amz-Security-Token"] == keys["AWS_SESSION_TOKEN"])
        #expect(headers["Authorization"]?.hasSuffix(
            "SignedHeaders=host;x-amz-date;x-amz-security-token, Signature=07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8") == true,
            "\(headers)")
    }

    @Test func s3DryRunSignsThePayloadHash() throws {
        let home = try ToolRunner.temporaryDirectory()
        let result = try ToolRunner.run(
            ["request", "--dry-run", "--service", "s3", "--region", "eu-west-1", "--date", "20240101T000000Z",
             "--data", "hello", "-X", "PUT", "https://bucket.s3.eu-west-1.amazonaws.com/alice/a%20b.txt"],
            environment: ToolRunner.cleanEnvironment(home: home, extra: Self.keys)
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("PUT https://bucket.s3.eu-west-1.amazonaws.com/alice/a%20b.txt\n"))
        // SHA-256 of "hello".
        #expect(result.stdout.contains("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"))
        #expect(result.stdout.contains("SignedHeaders=host;x-amz-content-sha256;x-amz-date"))
    }

    @Test func presignPrintsAQueryAuthenticatedURL() throws {
        let home = try ToolRunner.temporaryDirectory()
        let result = try ToolRunner.run(
            ["request", "--presign", "3600", "--service", "s3", "--region", "us-east-1", "--date", "20150830T123600Z",
             "https://examplebucket.s3.amazonaws.com/test.txt"],
            environment: ToolRunner.cleanEnvironment(home: home, extra: Self.keys)
        )
        #expect(result.status == 0, "\(result.stderr)")
        let url = try #require(URLComponents(string: result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let items = Dictionary(uniqueKeysWithValues: (url.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        #expect(items["X-Amz-Algorithm"] == "AWS4-HMAC-SHA256")
        #expect(items["X-Amz-Expires"] == "3600")
        #expect(items["X-Amz-Date"] == "20150830T123600Z")
        #expect(items["X-Amz-Signature"]?.count == 64)
    }

    @Test(arguments: [
        (["--date", "yesterday"], "--date must look like 20150830T123600Z"),
        (["--header", "NoColonHere"], "--header must look like 'Name: value'"),
        (["--date", "20150830T123600Z"], "--date is only allowed with --dry-run or --presign"),
        (["--presign", "0"], "--presign must be between 1 and 604800 seconds"),
    ])
    func badInputIsAUsageError(extra: [String], message: String) throws {
        let home = try ToolRunner.temporaryDirectory()
        let result = try ToolRunner.run(
            ["request", "--service", "s3"] + extra + ["https://example.com/"],
            environment: ToolRunner.cleanEnvironment(home: home, extra: Self.keys)
        )
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func aMistypedHeaderIsRefusedWithoutShowingItsValue() throws {
        let home = try ToolRunner.temporaryDirectory()
        let secret = "da2-neverprintthisapikey000"
        for header in ["Authorization Bearer \(secret)", "x-api-key=\(secret)", secret, "x-api-key;\(secret)", ":\(secret)"] {
            let result = try ToolRunner.run(
                ["request", "--service", "s3", "--header", header, "https://example.com/"],
                environment: ToolRunner.cleanEnvironment(home: home, extra: Self.keys))
            #expect(result.status == 64)
            #expect(result.stderr.contains("--header must look like 'Name: value'"), "\(result.stderr)")
            #expect(!result.stderr.contains(secret), "\(result.stderr)")
        }
    }

    @Test func notAURLIsAUsageError() throws {
        let home = try ToolRunner.temporaryDirectory()
        let result = try ToolRunner.run(
            ["request", "--service", "s3", "ftp://example.com/x"],
            environment: ToolRunner.cleanEnvironment(home: home, extra: Self.keys)
        )
        #expect(result.status == 64)
        #expect(result.stderr.contains("is not an http or https URL"))
    }

    @Test func missingCredentialsIsAnAuthError() throws {
        let home = try ToolRunner.temporaryDirectory()
        let result = try ToolRunner.run(
            ["request", "--dry-run", "--service", "s3", "https://example.com/"],
            environment: ToolRunner.cleanEnvironment(home: home)
        )
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("error: "))
    }

    @Test func aNetworkFailureDoesNotPrintTheQuerysSecrets() throws {
        let home = try ToolRunner.temporaryDirectory()
        let port = try Loopback.freePort()
        let url = "http://127.0.0.1:\(port)/bucket/key?X-Amz-Security-Token=SESSIONTOKENSECRET&X-Amz-Signature=feedface&part=1"
        let result = try ToolRunner.run(
            ["request", "--service", "s3", url],
            environment: ToolRunner.cleanEnvironment(home: home, extra: Self.keys)
        )
        #expect(result.status == 7, "\(result.stderr)")
        #expect(result.stderr.contains("GET http://127.0.0.1:\(port)/bucket/key?"), "\(result.stderr)")
        #expect(result.stderr.contains("part=1 failed: connection refused"), "\(result.stderr)")
        #expect(!result.stderr.contains("SESSIONTOKENSECRET"))
        #expect(!result.stderr.contains("feedface"))
    }

    @Test func anAPIThatCannotBeReachedIsANetworkFailure() throws {
        let home = try ToolRunner.temporaryDirectory()
        let port = try Loopback.freePort()
        let config = home.appendingPathComponent("amplifyconfiguration.json")
        try Data(
            """
            {"api": {"plugins": {"awsAPIPlugin": {"todo": {"endpointType": "REST", "endpoint": "http://127.0.0.1:\(port)/dev",
             "region": "us-east-1", "authorizationType": "API_KEY", "apiKey": "da2-key"}}}}}
            """.utf8
        ).write(to: config)
        let result = try ToolRunner.run(
            ["request", "--api", "todo", "--config", config.path, "GET", "/items"],
            environment: ToolRunner.cleanEnvironment(home: home)
        )
        #expect(result.status == 7, "\(result.stderr)")
        #expect(result.stderr == "error: 127.0.0.1:\(port) could not be reached: connection refused\n", "\(result.stderr)")
    }

    @Test func aBadOrMissingAPIConfigurationIsNamedOnce() throws {
        let home = try ToolRunner.temporaryDirectory()
        let empty = home.appendingPathComponent("empty.json")
        try Data().write(to: empty)
        let environment = ToolRunner.cleanEnvironment(home: home)
        let bad = try ToolRunner.run(["request", "--api", "todo", "--config", empty.path, "GET", "/items"], environment: environment)
        #expect(bad.status == 64)
        #expect(bad.stderr == "error: the API configuration \(empty.path) (line 1, column 1): not valid JSON: the document is empty\n", "\(bad.stderr)")
        // A file with no API at all says so, rather than listing nothing.
        let noData = home.appendingPathComponent("auth-only.json")
        try Data(#"{"version": "1", "auth": {"aws_region": "us-east-1", "user_pool_id": "us-east-1_abc123"}}"#.utf8).write(to: noData)
        let none = try ToolRunner.run(["request", "--api", "todo", "--config", noData.path, "GET", "/items"], environment: environment)
        #expect(none.status == 64)
        #expect(none.stderr.contains("the API configuration \(noData.path): has no API named 'todo'; it has none (no api.plugins.awsAPIPlugin, data or custom.API)"), "\(none.stderr)")
        let missing = home.appendingPathComponent("missing.json").path
        let absent = try ToolRunner.run(["request", "--api", "todo", "--config", missing, "GET", "/items"], environment: environment)
        #expect(absent.status == 6)
        #expect(absent.stderr == "error: cannot read --config file '\(missing)': there is no such file\n", "\(absent.stderr)")
    }

    @Test func unreadableDataFileIsAnIOError() throws {
        let home = try ToolRunner.temporaryDirectory()
        let result = try ToolRunner.run(
            ["request", "--dry-run", "--service", "s3", "--data", "@/nonexistent/body", "https://example.com/"],
            environment: ToolRunner.cleanEnvironment(home: home, extra: Self.keys)
        )
        #expect(result.status == 6)
        #expect(result.stderr.contains("cannot read --data file '/nonexistent/body'"))
    }
}
