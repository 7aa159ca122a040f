import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
import WIFTestSupport
#endif

/// `wif-tool local serve` and `wif-tool local token`, run as a user would.
@Suite(.oneToolRunAtATime) struct LocalCommandTests {
    @Test func helpListsTheSubcommandsAndTheDataDirectory() throws {
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try ToolRunner.run(["local", "--help"], environment: ToolRunner.cleanEnvironment(home: home))
        #expect(result.status == 0)
        for text in ["serve", "token", "$WIF_HOME/local", "~/.wif/local", "wif-personal"] {
            #expect(result.stdout.contains(text), "missing \(text)")
        }
        let serve = try ToolRunner.run(["local", "serve", "--help"], environment: ToolRunner.cleanEnvironment(home: home))
        for text in ["--port", "--host", "--data-dir", "--config", "--json", "SIGTERM", "AWS_ENDPOINT_URL"] {
            #expect(serve.stdout.contains(text), "missing \(text)")
        }
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func serveAnnouncesItsEndpointAnswersAndStopsOnASignal(signal: Int32) async throws {
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let data = home.appendingPathComponent("data").path
        let server = try ServeProcess(["local", "serve", "--port", "0", "--data-dir", data], home: home)
        let line = try await server.firstLine()
        #expect(line.hasPrefix("http://127.0.0.1:"), "got: \(line)")
        let port = try #require(Int(line.dropFirst("http://127.0.0.1:".count)))
        #expect(port > 0)

        let discovery = try await Self.get("\(line)/.well-known/openid-configuration")
        #expect(discovery.status == 200)
        let object = try #require(try JSONSerialization.jsonObject(with: discovery.body) as? [String: Any])
        #expect(object["issuer"] as? String == "https://wif.localhost")
        #expect(object["jwks_uri"] as? String == "\(line)/.well-known/jwks.json")

        let result = try await server.stop(signal: signal)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == line + "\n", "serve printed more than its endpoint line")
        await #expect(throws: (any Error).self) { _ = try await Self.get("\(line)/.well-known/jwks.json") }
    }

    @Test func aServerNoTestStopsEndsWithItsHandle() async throws {
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        var server: ServeProcess? = try ServeProcess(["local", "serve", "--data-dir", home.appendingPathComponent("data").path], home: home)
        let endpoint = try #require(try await server?.firstLine())
        #expect(try await Self.get(endpoint + "/.well-known/jwks.json").status == 200)
        server = nil
        var answered = true
        // Up to a minute of clock time: a busy test run can take seconds to end the process.
        let deadline = ContinuousClock.now + .seconds(60)
        while answered, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            answered = (try? await Self.get(endpoint + "/.well-known/jwks.json")) != nil
        }
        #expect(!answered, "the server kept running after its handle was released")
    }

    @Test func serveWithJSONPrintsOneObject() async throws {
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let server = try ServeProcess(["local", "serve", "--json"], home: home, extra: ["WIF_HOME": home.appendingPathComponent("wif").path])
        let line = try await server.firstLine()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let endpoint = try #require(object["endpoint"] as? String)
        #expect(endpoint.hasPrefix("http://127.0.0.1:"))
        #expect(object["issuer"] as? String == "https://wif.localhost")
        #expect(object["dataDirectory"] as? String == home.appendingPathComponent("wif/local").path)
        #expect(try await Self.get(endpoint + "/.well-known/jwks.json").status == 200)
        let pools = try #require(object["identityPools"] as? [[String: Any]])
        #expect(pools.map { $0["id"] as? String } == ["us-east-1:00000000-0000-4000-8000-000000000001"])
        #expect(pools.first?["authenticatedRole"] as? String == "arn:aws:iam::000000000000:role/identity-pool-authenticated")
        #expect(pools.first?["unauthenticatedRole"] as? String == "arn:aws:iam::000000000000:role/identity-pool-unauthenticated")
        #expect(pools.first?["ruleRoles"] as? [String] == ["arn:aws:iam::000000000000:role/identity-pool-admin"])
        #expect((pools.first?["roles"] as? [String])?.count == 3)
        let apis = try #require(object["apis"] as? [[String: Any]])
        #expect(apis.map { $0["name"] as? String } == ["todo"])
        #expect(apis.first?["url"] as? String == endpoint + "/apis/todo")
        #expect(apis.first?["modes"] as? [String] == ["AMAZON_COGNITO_USER_POOLS", "API_KEY", "AWS_IAM"])
        #expect(apis.first?["apiKeys"] as? [String] == ["da2-wiflocaldevelopmentapikey00"])
        let result = try await server.stop(signal: SIGTERM)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("wif/local/keys").path))
    }

    /// A served stack's API that takes AWS_LAMBDA tokens, decided by a program named relative to the
    /// configuration file, called with `request --api --endpoint --lambda-token`.
    @Test func aServedStacksLambdaAPIIsCalledWithACustomToken() async throws {
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let script = home.appendingPathComponent("authorizer.py")
        try Data(#"""
            #!/usr/bin/env python3
            import json, sys
            event = json.load(sys.stdin)
            if event["authorizationToken"] == "crash-5e1d":
                sys.exit(3)
            ok = event["authorizationToken"] == "let-me-in"
            print(json.dumps({"isAuthorized": ok, "resolverContext": {"sub": "robot"} if ok else {}}))
            """#.utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let config = home.appendingPathComponent("stack.json")
        try Data(#"""
            {"apis": [{"name": "robots", "schema": "type Job @model @auth(rules: [{ allow: custom }]) { id: ID! task: String }",
                       "authorizationModes": ["AWS_LAMBDA"], "lambdaAuthorizer": {"command": ["./authorizer.py"], "timeoutSeconds": 60}}]}
            """#.utf8).write(to: config)
        let server = try ServeProcess(
            ["local", "serve", "--json", "--config", config.path, "--data-dir", home.appendingPathComponent("data").path], home: home)
        let line = try await server.firstLine()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let endpoint = try #require(object["endpoint"] as? String)
        let apis = try #require(object["apis"] as? [[String: Any]])
        #expect(apis.first { $0["name"] as? String == "robots" }?["modes"] as? [String] == ["AWS_LAMBDA"])

        let environment = ToolRunner.cleanEnvironment(home: home)
        let created = try ToolRunner.run(
            ["request", "--api", "robots", "--endpoint", endpoint, "--lambda-token", "-", "--json", "-d", #"{"task":"sweep"}"#, "POST", "/Job"],
            environment: environment, stdin: Data("let-me-in\n".utf8))
        #expect(created.status == 0, "\(created.stderr)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])
        #expect(answer["mode"] as? String == "AWS_LAMBDA")
        #expect(answer["status"] as? Int == 201)
        let refused = try ToolRunner.run(
            ["request", "--api", "robots", "--endpoint", endpoint, "--lambda-token", "not-the-token-7f3a", "GET", "/Job"], environment: environment)
        #expect(refused.status == 4, "\(refused.stderr)")
        #expect(refused.stdout.contains("UnauthorizedException"))
        #expect(!refused.stderr.contains("7f3a") && !refused.stdout.contains("7f3a"))
        // An authorizer that fails refuses the token, and the server says why on standard error without
        // --verbose, never with the token.
        let crashed = try ToolRunner.run(
            ["request", "--api", "robots", "--endpoint", endpoint, "--lambda-token", "crash-5e1d", "GET", "/Job"], environment: environment)
        #expect(crashed.status == 4, "\(crashed.stderr)")
        // Without a token, the error says which option gives one.
        let tokenless = try ToolRunner.run(["request", "--api", "robots", "--endpoint", endpoint, "GET", "/Job"], environment: environment)
        #expect(tokenless.status == 3, "\(tokenless.stderr)")
        #expect(tokenless.stderr.contains("AWS_LAMBDA: no token for the Lambda authorizer); give AWS_LAMBDA's token with --lambda-token"), "\(tokenless.stderr)")
        let stopped = try await server.stop(signal: SIGTERM)
        #expect(stopped.status == 0)
        let log = stopped.stderr  // The failure's line carries the logger's metadata: which API.
        #expect(log.contains("api lambda authorizer failed") && log.contains("exited with status 3") && log.contains("wif.api=robots"), "\(log)")
        #expect(!stopped.stderr.contains("5e1d"))
    }

    @Test func aTakenPortIsANetworkFailure() async throws {
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let server = try ServeProcess(["local", "serve", "--data-dir", home.appendingPathComponent("a").path], home: home)
        let line = try await server.firstLine()
        let port = String(line.dropFirst("http://127.0.0.1:".count))
        let second = try ToolRunner.run(
            ["local", "serve", "--port", port, "--data-dir", home.appendingPathComponent("b").path],
            environment: ToolRunner.cleanEnvironment(home: home))
        #expect(second.status == 7)
        #expect(second.stderr.hasPrefix("error: cannot listen on 127.0.0.1:\(port): "), "got: \(second.stderr)")
        #expect(second.stdout.isEmpty)
        #expect(try await server.stop(signal: SIGTERM).status == 0)
    }

    @Test func tokenPrintsWhatTheUserFederatesInto() throws {
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ToolRunner.cleanEnvironment(home: home)
        let google = try ToolRunner.run(["local", "token", "--provider", "google", "--user", "alice", "--json"], environment: environment)
        #expect(google.status == 0, "\(google.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(google.stdout.utf8)) as? [String: Any])
        #expect((object["token"] as? String)?.split(separator: ".").count == 3)
        #expect(object["provider"] as? String == "google")
        #expect(object["user"] as? String == "alice")
        #expect(object["providerId"] == nil)
        #expect(object["roleArn"] as? String == "arn:aws:iam::000000000000:role/personal-store-google")
        #expect(object["bucket"] as? String == "wif-personal")
        #expect(object["prefix"] as? String == "google/alice/")
        let expiration = try #require(object["expiration"] as? String)
        #expect(try Date(expiration, strategy: .iso8601) > Date())
        // The default data directory is ~/.wif/local.
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent(".wif/local/keys").path))

        let facebook = try ToolRunner.run(
            ["local", "token", "--provider", "facebook", "--user", "1001", "--ttl", "600", "--json"], environment: environment)
        #expect(facebook.status == 0, "\(facebook.stderr)")
        let fb = try #require(try JSONSerialization.jsonObject(with: Data(facebook.stdout.utf8)) as? [String: Any])
        #expect(fb["providerId"] as? String == "graph.facebook.com")
        #expect(fb["prefix"] as? String == "facebook/1001/")

        // A user pool's ID token carries Cognito's claims and the groups given.
        let carol = try ToolRunner.run(
            ["local", "token", "--provider", "cognito-idp", "--user", "carol", "--group", "admin", "--group", "staff"], environment: environment)
        #expect(carol.status == 0, "\(carol.stderr)")
        let payload = try #require(carol.stdout.split(separator: ".").dropFirst().first)
        var base64 = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let payloadData = try #require(Data(base64Encoded: base64))
        let claims = try #require(try JSONSerialization.jsonObject(with: payloadData) as? [String: Any])
        #expect(claims["iss"] as? String == "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_wiflocal")
        #expect(claims["cognito:groups"] as? [String] == ["admin", "staff"])
        #expect(claims["cognito:username"] as? String == "carol")
        #expect(claims["token_use"] as? String == "id")

        let plain = try ToolRunner.run(["local", "token", "--provider", "oidc", "--user", "bob"], environment: environment)
        #expect(plain.status == 0)
        let lines = plain.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.split(separator: ".").count == 3)
    }

    @Test func countPrintsDistinctTokensForNumberedUsers() throws {
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ToolRunner.cleanEnvironment(home: home)
        let plain = try ToolRunner.run(["local", "token", "--provider", "oidc", "--user", "load", "--count", "3"], environment: environment)
        #expect(plain.status == 0, "\(plain.stderr)")
        let tokens = plain.stdout.split(separator: "\n")
        #expect(tokens.count == 3)
        #expect(Set(tokens).count == 3)
        let json = try ToolRunner.run(
            ["local", "token", "--provider", "google", "--user", "load", "--count", "2", "--json"], environment: environment)
        #expect(json.status == 0, "\(json.stderr)")
        let users = try json.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["user"] as? String
        }
        #expect(users == ["load-1", "load-2"])
        let refused = try ToolRunner.run(["local", "token", "--provider", "oidc", "--user", "load", "--count", "0"], environment: environment)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--count must be 1 to"))
    }

    @Test func aTokenIsSignedWithTheKeyTheServerPublishes() async throws {
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let data = home.appendingPathComponent("data").path
        let token = try ToolRunner.run(
            ["local", "token", "--provider", "cognito", "--user", "carol", "--data-dir", data], environment: ToolRunner.cleanEnvironment(home: home))
        #expect(token.status == 0, "\(token.stderr)")
        let header = try #require(token.stdout.split(separator: ".").first)
        var base64 = header.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let decoded = try #require(Data(base64Encoded: base64))
        let kid = try #require((try JSONSerialization.jsonObject(with: decoded) as? [String: Any])?["kid"] as? String)

        let server = try ServeProcess(["local", "serve", "--data-dir", data], home: home)
        let endpoint = try await server.firstLine()
        let jwks = try await Self.get(endpoint + "/.well-known/jwks.json")
        let keys = try #require((try JSONSerialization.jsonObject(with: jwks.body) as? [String: Any])?["keys"] as? [[String: Any]])
        #expect(keys.contains { $0["kid"] as? String == kid })
        #expect(try await server.stop(signal: SIGTERM).status == 0)
    }

    struct Refusal: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var status: Int32
        var message: String
        var testDescription: String { self.arguments.joined(separator: " ") }
    }

    static let refusals: [Refusal] = [
        Refusal(arguments: ["token", "--provider", "nope", "--user", "a"], status: 64,
                message: "error: unknown provider 'nope'; the configuration has facebook, amazon, google, cognito, oidc, cognito-idp"),
        Refusal(arguments: ["token", "--provider", "google", "--user", "a", "--group", "admin"], status: 64,
                message: "error: --group needs a Cognito user pool profile such as cognito-idp, not google"),
        Refusal(arguments: ["token", "--provider", "cognito-idp", "--user", "a", "--group", ""], status: 64,
                message: "--group must be 1 to 128 characters"),
        Refusal(arguments: ["token", "--provider", "google", "--user", "a", "--ttl", "0"], status: 64, message: "--ttl must be 1 to 86400 seconds, not 0"),
        Refusal(arguments: ["token", "--provider", "google", "--user", "a/b"], status: 64, message: "--user must not contain '/' or control characters"),
        Refusal(arguments: ["token", "--provider", "google"], status: 64, message: "--user"),
        Refusal(arguments: ["serve", "--port", "70000"], status: 64, message: "--port must be 0 to 65535, not 70000"),
        Refusal(arguments: ["serve", "--config", "{home}/absent.json"], status: 6, message: "error: cannot read the configuration file {home}/absent.json: no such file"),
        Refusal(arguments: ["token", "--provider", "google", "--user", "a", "--config", "{home}/bad.json"], status: 64,
                message: "error: {home}/bad.json: roles[0].maxSessionDuration: must be 3600 to 43200 seconds, not 5"),
        Refusal(arguments: ["serve", "--config", "{home}/bad.json"], status: 64,
                message: "error: {home}/bad.json: roles[0].maxSessionDuration: must be 3600 to 43200 seconds, not 5"),
    ]

    @Test(arguments: Self.refusals)
    func badInputIsRefused(_ refusal: Refusal) throws {
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        try Data(#"{"roles": [{"name": "personal-store-google", "maxSessionDuration": 5}]}"#.utf8)
            .write(to: home.appendingPathComponent("bad.json"))
        let arguments = refusal.arguments.map { $0.replacingOccurrences(of: "{home}", with: home.path) }
        let result = try ToolRunner.run(["local"] + arguments, environment: ToolRunner.cleanEnvironment(home: home))
        #expect(result.status == refusal.status, "stderr: \(result.stderr)")
        let message = refusal.message.replacingOccurrences(of: "{home}", with: home.path)
        #expect(result.stderr.contains(message), "got: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func aConfigurationFileChangesWhatTokensFederateInto() throws {
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        try Data("""
            {"accountId": "123456789012",
             "roles": [{"name": "personal-store-google", "partitionTemplate": "people/{id}/"}]}
            """.utf8).write(to: home.appendingPathComponent("wif.json"))
        let result = try ToolRunner.run(
            ["local", "token", "--provider", "google", "--user", "dana", "--config", home.appendingPathComponent("wif.json").path, "--json"],
            environment: ToolRunner.cleanEnvironment(home: home, extra: ["WIF_HOME": home.appendingPathComponent("wif").path]))
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["roleArn"] as? String == "arn:aws:iam::123456789012:role/personal-store-google")
        #expect(object["prefix"] as? String == "people/dana/")
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("wif/local/keys").path))
    }

    static func get(_ url: String) async throws -> (status: Int, body: Data) {
        guard let url = URL(string: url) else { throw ToolError("bad URL \(url)") }
        var request = URLRequest(url: url)
        request.timeoutInterval = 30
        let (body, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, body)
    }
}

/// `wif-tool local serve` running in the background: its first line of output, then a signal to stop it.
final class ServeProcess: @unchecked Sendable {
    private let process = Process()
    private let stdout = OutputBuffer()
    private let stderr = OutputBuffer()
    private let finished = DispatchGroup()

    init(_ arguments: [String], home: URL, extra: [String: String] = [:]) throws {
        guard let executable = ToolRunner.executable else {
            throw ToolError("wif-tool is not built next to the tests; run `swift build` first")
        }
        self.process.executableURL = executable
        self.process.arguments = arguments
        self.process.environment = ToolRunner.cleanEnvironment(home: home, extra: extra)
        let out = Pipe()
        let err = Pipe()
        self.process.standardOutput = out
        self.process.standardError = err
        self.process.standardInput = FileHandle.nullDevice
        try self.process.run()
        // The readers hold the buffers and the group, not `self`: they run until the server exits,
        // and a reader holding `self` would keep `deinit` from ever stopping it.
        let finished = self.finished
        for (pipe, sink) in [(out, self.stdout), (err, self.stderr)] {
            finished.enter()
            DispatchQueue.global().async {
                while true {
                    let chunk = pipe.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    sink.append(chunk)
                }
                finished.leave()
            }
        }
    }

    /// A server a test did not stop (it failed early, or needed no exit status) is stopped here.
    deinit {
        if self.process.isRunning { self.process.terminate() }
    }

    /// The first line the server prints, without its newline; fails if it exits or stays silent first.
    func firstLine() async throws -> String {
        for _ in 0..<1200 {
            let text = String(decoding: self.stdout.get(), as: UTF8.self)
            if let newline = text.firstIndex(of: "\n") { return String(text[..<newline]) }
            if !self.process.isRunning {
                throw ToolError("serve exited with \(self.process.terminationStatus): \(String(decoding: self.stderr.get(), as: UTF8.self))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        self.process.terminate()
        throw ToolError("serve printed no endpoint line")
    }

    /// Sends a signal and waits for the process to end.
    func stop(signal: Int32) async throws -> ToolRunner.Result {
        kill(self.process.processIdentifier, signal)
        for _ in 0..<600 where self.process.isRunning {
            try await Task.sleep(for: .milliseconds(50))
        }
        if self.process.isRunning {
            self.process.terminate()
            throw ToolError("serve did not stop after the signal")
        }
        self.finished.wait()
        return ToolRunner.Result(
            status: self.process.terminationStatus,
            stdout: String(decoding: self.stdout.get(), as: UTF8.self),
            stderr: String(decoding: self.stderr.get(), as: UTF8.self)
        )
    }
}

/// Output collected from a running process while the test reads it.
final class OutputBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    func append(_ chunk: Data) { self.lock.withLock { self.data.append(chunk) } }
    func get() -> Data { self.lock.withLock { self.data } }
}
