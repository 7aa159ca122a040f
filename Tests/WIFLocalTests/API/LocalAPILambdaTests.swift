import AccessRules
import Foundation
import Logging
import Testing
import WIFAPIServer
import WIFTestSupport
@testable import WIFLocal

/// `AWS_LAMBDA` on the local stack: a real program decides each token, as an API's function does.
///
/// Serialized: each test starts a stack and runs the authorizer as a process.
@Suite(.serialized) struct LocalAPILambdaTests {
    /// An authorizer in Python: `custom-<user>` is that user (the field `secret` denied to it),
    /// `nocache-<user>` likewise but not to be kept, `slow` never answers in time, `crash` exits with 3,
    /// `garbage` answers with text; anything else is refused. Each run appends the call's method, path
    /// and token to the file named by its first argument.
    static let script = #"""
        import json, sys, time
        event = json.load(sys.stdin)
        context = event["requestContext"]
        token = event["authorizationToken"]
        with open(sys.argv[1], "a") as log:
            log.write("%s %s %s %s\n" % (context["apiId"], context["httpMethod"], context["path"], token))
        if token == "slow":
            time.sleep(120)
        if token == "crash":
            sys.exit(3)
        if token == "garbage":
            print("this is not json")
            sys.exit(0)
        for prefix, ttl in (("custom-", 300), ("nocache-", 0)):
            if token.startswith(prefix):
                user = token[len(prefix):]
                print(json.dumps({"isAuthorized": True, "resolverContext": {"sub": user, "username": user},
                                  "deniedFields": ["Todo.secret"], "ttlOverride": ttl}))
                sys.exit(0)
        print(json.dumps({"isAuthorized": False}))
        """#

    static let schema = """
        type Todo @model @auth(rules: [{ allow: custom }, { allow: public, provider: apiKey }]) {
          id: ID!
          content: String!
          secret: String
        }
        """

    static let key = "da2-lambdatestapikey0000000000"

    /// Runs `body` with a stack serving API `custom` (AWS_LAMBDA and an API key) and the path of the
    /// authorizer's log. The function's time limit includes starting Python, which a busy test run can
    /// slow by seconds, so only a test of the time limit itself sets a short one.
    static func withStack(
        timeoutSeconds: Int = 60, logger: Logger = LocalStack.silentLogger, _ body: (LocalEndpoint, String) async throws -> Void) async throws {
        try await StackTestSupport.withDataDirectory { path in
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let script = "\(path)/authorizer.py"
            let log = "\(path)/authorizer.log"
            try Data(Self.script.utf8).write(to: URL(fileURLWithPath: script))
            var configuration = LocalConfiguration.default(dataDirectory: path)
            var api = APIDefinition(
                name: "custom", schema: Self.schema, authorizationModes: [.lambda, .apiKey], defaultMode: .lambda,
                apiKeys: [APIKey(name: "test", value: Self.key)])
            api.lambdaAuthorizer = LocalLambdaAuthorizer(command: ["python3", script, log], timeoutSeconds: timeoutSeconds)
            configuration.apis.append(api)
            try await LocalStack.run(configuration, logger: logger) { stack in try await body(stack, log) }
        }
    }

    static func calls(_ log: String) -> [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test func theFunctionDecidesEachTokenAndItsContextIsTheCaller() async throws {
        try await Self.withStack { stack, log in
            let url = "\(stack.url)/apis/custom/Todo"
            let json = [("Content-Type", "application/json")]
            let created = try await StackTestSupport.send(
                "POST", url, headers: json + [("x-api-key", Self.key)], body: .init(string: #"{"id":"t1","content":"hi","secret":"s3"}"#))
            #expect(created.status == 201, "\(created.body)")

            let read = try await StackTestSupport.send("GET", "\(url)/t1", headers: [("Authorization", "custom-alice")])
            #expect(read.status == 200, "\(read.body)")
            #expect(read.body.contains("hi"))
            // The field the function denies is not read …
            #expect(!read.body.contains("secret"))
            // … nor written.
            let write = try await StackTestSupport.send(
                "PUT", "\(url)/t1", headers: json + [("Authorization", "custom-alice")], body: .init(string: #"{"secret":"mine"}"#))
            #expect(write.status == 403, "\(write.body)")
            #expect(write.body.contains("Todo.secret"))
            // A field it does not deny is written.
            let edit = try await StackTestSupport.send(
                "PUT", "\(url)/t1", headers: json + [("Authorization", "Bearer custom-alice")], body: .init(string: #"{"content":"edited"}"#))
            #expect(edit.status == 200, "\(edit.body)")
            #expect(!edit.body.contains("s3"))

            // Nor listed, nor given back by a delete.
            let listed = try await StackTestSupport.send("GET", url, headers: [("Authorization", "custom-alice")])
            #expect(listed.status == 200 && listed.body.contains("edited") && !listed.body.contains("secret"), "\(listed.body)")
            let deleted = try await StackTestSupport.send("DELETE", "\(url)/t1", headers: [("Authorization", "custom-alice")])
            #expect(deleted.status == 200 && !deleted.body.contains("secret"), "\(deleted.body)")

            // Its answer was kept for the token: one run for five requests, with the method and path.
            let runs = Self.calls(log)
            #expect(runs == ["custom GET /Todo/t1 custom-alice"], "\(runs)")

            // Refused, unknown and missing tokens are 401, the token never echoed.
            let refused = try await StackTestSupport.send("GET", url, headers: [("Authorization", "who-knows")])
            #expect(refused.status == 401)
            #expect(refused.body.contains("UnauthorizedException"))
            #expect(!refused.body.contains("who-knows"))
            let none = try await StackTestSupport.send("GET", url)
            #expect(none.status == 401)

            // A decision the function says not to keep is asked for again.
            for _ in 0..<2 {
                #expect(try await StackTestSupport.send("GET", url, headers: [("Authorization", "nocache-bob")]).status == 200)
            }
            #expect(Self.calls(log).filter { $0.hasSuffix("nocache-bob") }.count == 2)
        }
    }

    @Test func aFunctionThatFailsRefusesTheToken() async throws {
        let recorder = TestLogRecorder()
        try await Self.withStack(timeoutSeconds: 10, logger: recorder.logger(level: .warning)) { stack, log in
            let url = "\(stack.url)/apis/custom/Todo"
            for token in ["crash", "garbage", "slow"] {
                let answer = try await StackTestSupport.send("GET", url, headers: [("Authorization", token)])
                #expect(answer.status == 401, "\(token): \(answer.body)")
                #expect(answer.body.contains("UnauthorizedException"), "\(token)")
            }
            // A failure is not kept: the function is asked again.
            #expect(try await StackTestSupport.send("GET", url, headers: [("Authorization", "crash")]).status == 401)
            #expect(Self.calls(log).filter { $0.hasSuffix(" crash") }.count == 2)
        }
        // The stack says why, for the API, and never with the token.
        let warnings = recorder.records.filter { $0.metadata["wif.api"] == "custom" }.map(\.message)
        #expect(warnings.contains { $0.contains("exited with status 3") }, "\(warnings)")
        #expect(warnings.contains { $0.contains("not JSON (line 1, column 1)") }, "\(warnings)")
        #expect(warnings.contains { $0.contains("did not answer within 10 s") }, "\(warnings)")
        for token in ["crash", "garbage", "slow"] { #expect(!recorder.text.contains(token)) }
    }

    @Test func aMissingProgramRefusesAndTheConfigurationNamesProblems() async throws {
        let recorder = TestLogRecorder()
        try await StackTestSupport.withDataDirectory { path in
            var configuration = LocalConfiguration.default(dataDirectory: path)
            var api = APIDefinition(name: "custom", schema: Self.schema, authorizationModes: [.lambda])
            configuration.apis.append(api)
            func problems() -> String {
                do {
                    try configuration.validate()
                    return ""
                } catch {
                    return error.message
                }
            }
            // AWS_LAMBDA without a function.
            #expect(problems().contains("lambdaAuthorizer"))
            api.lambdaAuthorizer = LocalLambdaAuthorizer(command: [], resultTTLSeconds: 7200, timeoutSeconds: 0)
            configuration.apis[configuration.apis.count - 1] = api
            let found = problems()
            #expect(found.contains("lambdaAuthorizer.command"), "\(found)")
            #expect(found.contains("lambdaAuthorizer.resultTTLSeconds"), "\(found)")
            #expect(found.contains("lambdaAuthorizer.timeoutSeconds"), "\(found)")

            api.lambdaAuthorizer = LocalLambdaAuthorizer(command: ["\(path)/no-such-program"])
            configuration.apis[configuration.apis.count - 1] = api
            try await LocalStack.run(configuration, logger: recorder.logger(level: .warning)) { stack in
                let answer = try await StackTestSupport.send("GET", "\(stack.url)/apis/custom/Todo", headers: [("Authorization", "custom-alice")])
                #expect(answer.status == 401)
            }
            #expect(recorder.records.contains { $0.message.contains("no program '\(path)/no-such-program' was found") })
        }
    }
}
