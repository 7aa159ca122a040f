import Foundation
import Testing

/// `request --api` against the embedded stack's `todo` API: the signed-in user's token and identity
/// pool credentials, the API key when signed out, multi-auth, configuration files, and the errors.
///
/// In the identity pool suite, which runs one test at a time: each test waits on many command runs,
/// and two such suites at once hold both threads of a two-core machine while in-process stacks of other
/// suites wait for them.
extension IdentityPoolCommandTests {
    static func signInToTheUserPool(_ fixture: StoreFixture, _ user: String, account: String) throws {
        let login = try fixture.run(["login", "--identity-pool", Self.pool, "--dev", user, "--provider", "cognito-idp", "--account", account])
        #expect(login.status == 0, "\(login.stderr)")
    }

    @Test func aSignedInUserCreatesAndOthersReadOnlyWhatTheRulesAllow() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try Self.signInToTheUserPool(fixture, "alice", account: "alice")
        try Self.signInToTheUserPool(fixture, "bob", account: "bob")

        let created = try fixture.run(["request", "--api", "todo", "--account", "alice", "-d", #"{"content":"buy milk"}"#, "POST", "/Todo"])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stderr.contains("answered by AMAZON_COGNITO_USER_POOLS (HTTP 201)"))
        let record = try #require(try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])
        #expect(record["owner"] as? String == "alice")
        let id = try #require(record["id"] as? String)

        // -i prints the status line and the headers before the body, as it does without --api; with
        // --json they are in the object.
        let included = try fixture.run(["request", "--api", "todo", "--account", "alice", "-i", "GET", "/Todo/\(id)"])
        #expect(included.status == 0, "\(included.stderr)")
        #expect(included.stdout.hasPrefix("HTTP/1.1 200 OK\n"), "\(included.stdout)")
        #expect(included.stdout.lowercased().contains("content-type: application/json"), "\(included.stdout)")
        #expect(included.stdout.contains("\n\n{"), "\(included.stdout)")
        let includedJSON = try fixture.run(["request", "--api", "todo", "--account", "alice", "-i", "--json", "GET", "/Todo/\(id)"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(includedJSON.stdout.utf8)) as? [String: Any])
        #expect((object["headers"] as? [[String]])?.contains { $0.first?.lowercased() == "content-type" } == true, "\(includedJSON.stdout)")

        // Bob's token is not the owner's: refused, exit 4.
        let refused = try fixture.run(["request", "--api", "todo", "--account", "bob", "GET", "/Todo/\(id)"])
        #expect(refused.status == 4, "\(refused.stdout) \(refused.stderr)")
        #expect(refused.stdout.contains("ForbiddenException"))
        // Bob's identity pool credentials read through the private IAM rule.
        let iam = try fixture.run(["request", "--api", "todo", "--account", "bob", "--auth-mode", "AWS_IAM", "GET", "/Todo/\(id)"])
        #expect(iam.status == 0, "\(iam.stderr)")
        #expect(iam.stdout.contains("buy milk"))
        // The IAM policy allows GET only.
        let post = try fixture.run(["request", "--api", "todo", "--account", "bob", "--auth-mode", "AWS_IAM", "-d", "{}", "POST", "/Todo"])
        #expect(post.status == 4)
        #expect(post.stdout.contains("execute-api:Invoke"))

        // Multi-auth for a signed-in list: user pools answers first; --json names the attempts.
        let multi = try fixture.run(["request", "--api", "todo", "--account", "bob", "--multi-auth", "--model", "Todo", "--operation", "list", "--json", "GET", "/Todo"])
        #expect(multi.status == 0, "\(multi.stderr)")
        let answer = try StoreFixture.object(multi)
        #expect(answer["mode"] as? String == "AMAZON_COGNITO_USER_POOLS")
        #expect((answer["attempts"] as? [Any])?.count == 1)

        // Signed out (another account): the default mode has no token (exit 3); multi-auth falls to the API key.
        let signedOut = try fixture.run(["request", "--api", "todo", "--account", "nobody", "GET", "/Todo"])
        #expect(signedOut.status == 3, "\(signedOut.stderr)")
        #expect(signedOut.stderr.contains("not signed in"))
        let keyed = try fixture.run(["request", "--api", "todo", "--account", "nobody", "--multi-auth", "--model", "Todo", "--operation", "get", "GET", "/Todo/\(id)"])
        #expect(keyed.status == 0, "\(keyed.stderr)")
        #expect(keyed.stderr.contains("answered by API_KEY"))
        // A header given with -H comes after the mode's authorization, as Amplify's custom headers do: a
        // wrong key given that way is the key sent, and refused.
        let wrongKey = try fixture.run(["request", "--api", "todo", "--account", "nobody", "--auth-mode", "API_KEY", "-H", "x-api-key: da2-not-the-key", "GET", "/Todo/\(id)"])
        #expect(wrongKey.status == 4, "\(wrongKey.stdout) \(wrongKey.stderr)")
        // An API the stack does not serve: its own answer says so.
        let unknown = try fixture.run(["request", "--api", "nosuch", "--account", "alice", "GET", "/Todo"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("publishes no configuration for API 'nosuch'"), "\(unknown.stderr)")
    }

    @Test func aConfigurationFileNamesTheAPIAndBadOptionsAreRefused() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let config = fixture.path("amplifyconfiguration.json")
        try Data(#"{"api":{"plugins":{"awsAPIPlugin":{"todo":{"endpointType":"REST","endpoint":"http://127.0.0.1:9/apis/todo","region":"us-east-1","authorizationType":"API_KEY","apiKey":"da2-x"}}}}}"#.utf8)
            .write(to: URL(fileURLWithPath: config))
        // Port 9 answers nothing: the configured URL was used, and the failure is a network one.
        let unreachable = try fixture.run(["request", "--api", "todo", "--config", config, "GET", "/Todo"])
        #expect(unreachable.status == 7, "\(unreachable.stderr)")
        let broken = fixture.path("broken.json")
        try Data(#"{"api":{"plugins":{"awsAPIPlugin":{"todo":{"endpointType":"REST","endpoint":"http://127.0.0.1:9/x","region":"us-east-1","authorizationType":"KEY"}}}}}"#.utf8)
            .write(to: URL(fileURLWithPath: broken))
        let bad = try fixture.run(["request", "--api", "todo", "--config", broken, "GET", "/Todo"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("api.plugins.awsAPIPlugin.todo.authorizationType (line 1"), "\(bad.stderr)")

        for (arguments, message) in [
            (["request", "--api", "todo", "--auth-mode", "MAGIC", "GET", "/Todo"], "--auth-mode must be one of"),
            (["request", "--api", "todo", "--multi-auth", "GET", "/Todo"], "--multi-auth needs --model and --operation"),
            (["request", "--api", "todo", "--multi-auth", "--model", "Todo", "--operation", "read", "GET", "/Todo"], "--operation must be one of"),
            (["request", "--api", "todo", "--service", "s3", "GET", "/Todo"], "--service does not go with --api"),
            (["request", "--service", "s3", "--auth-mode", "API_KEY", "http://127.0.0.1:9/"], "--auth-mode goes with --api"),
            (["request", "--api", "todo"], "with --api give [METHOD] PATH"),
        ] {
            let result = try fixture.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let unknown = try fixture.run(["request", "--api", "nope", "GET", "/Todo"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("this stack serves todo"), "\(unknown.stderr)")
    }
}
