import AccessRules
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes
import Logging
import Testing
import WIFAPIServer
import WIFCredentials
import WIFTestSupport
@testable import WIFLocal

/// The runner of a local Lambda authorizer on its own: the event it sends, the answers it takes and
/// refuses, and how a command that misbehaves ends.
@Suite struct LambdaAuthorizerRunnerTests {
    /// A Python authorizer whose behaviour the token picks; it echoes the event's `x-trace` header and
    /// path into its context.
    static let script = #"""
        import json, os, sys, time
        event = json.load(sys.stdin)
        token = event["authorizationToken"]
        with open(sys.argv[1], "a") as log:
            log.write(token + "\n")
        if token == "flood":
            sys.stdout.write("x" * (2 << 20))
            sys.exit(0)
        if token == "killed":
            os.kill(os.getpid(), 9)
        if token == "bymethod":
            time.sleep(0.3)  # long enough for a second request to arrive during the run
            print(json.dumps({"isAuthorized": event["requestContext"]["httpMethod"] == "GET", "ttlOverride": 0}))
            sys.exit(0)
        if token == "lingering":
            import subprocess
            subprocess.Popen(["sleep", "120"])  # keeps standard output open after this is killed
            time.sleep(120)
        answers = {
            "badttl": {"isAuthorized": True, "ttlOverride": "soon"},
            "badcontext": {"isAuthorized": True, "resolverContext": {"level": 3}},
            "nobool": {"isAuthorized": "yes"},
        }
        if token in answers:
            print(json.dumps(answers[token]))
        else:
            inherited = []
            for fd in os.listdir("/proc/self/fd"):
                try:
                    inherited.append(os.readlink("/proc/self/fd/" + fd))
                except OSError:
                    pass
            context = {"sub": token, "trace": event["requestHeaders"].get("x-trace", ""), "path": event["requestContext"]["path"],
                       "api": event["requestContext"]["apiId"]}
            if token == "descriptors":
                context = {"sockets": ",".join(name for name in inherited if name.startswith("socket:"))}
            print(json.dumps({"isAuthorized": True, "resolverContext": context}))
        """#

    static func withRunner(timeout: Int = 60, ttl: Int = 0, _ body: (LambdaAuthorizerRunner, TestLogRecorder, String) async throws -> Void) async throws {
        let folder = TemporaryFolder.url("wif-lambda-runner")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = folder.appendingPathComponent("authorizer.py").path
        try Data(Self.script.utf8).write(to: URL(fileURLWithPath: script))
        let log = folder.appendingPathComponent("runs.log").path
        let recorder = TestLogRecorder()
        let runner = LambdaAuthorizerRunner(
            authorizer: LocalLambdaAuthorizer(command: ["python3", script, log], resultTTLSeconds: ttl, timeoutSeconds: timeout),
            apiId: "jobs", accountId: "000000000000", stage: "local", timeSource: .system, logger: recorder.logger(level: .warning))
        try await body(runner, recorder, log)
    }

    static func request(_ token: String, method: String = "GET") -> APILambdaRequest {
        var headers = HTTPFields()
        headers[HTTPField.Name("x-trace")!] = "trace-42"
        headers[.authorization] = token
        return APILambdaRequest(token: token, method: method, path: "/Job/7", headers: headers)
    }

    @Test func theResolverContextBecomesTheCallersClaims() async throws {
        try await Self.withRunner { runner, _, _ in
            let decision = await runner.decide(Self.request("robot-1"))
            #expect(decision.isAuthorized)
            #expect(decision.resolvedContext == ["sub": "robot-1", "trace": "trace-42", "path": "/Job/7", "api": "jobs"])
            #expect(!"\(Self.request("robot-1"))".contains("robot-1"))
        }
    }

    /// The command gets its standard input, output and error and nothing else: not a socket the stack
    /// has open (an accepted connection it would keep open after the stack closed it).
    @Test func theCommandInheritsNoOtherDescriptor() async throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socket >= 0)
        defer { close(socket) }
        try await Self.withRunner { runner, _, _ in
            let decision = await runner.decide(Self.request("descriptors"))
            #expect(decision.isAuthorized)
            #expect(decision.resolvedContext["sockets"] == "", "\(decision.resolvedContext)")
        }
    }

    @Test func badAnswersAndBadEndingsRefuseAndSayWhy() async throws {
        // Only the run that is meant to time out has a short limit: a busy test run can take seconds to
        // start Python, which would turn the others into time-outs too.
        for (timeout, cases) in [
            (60, [
                ("flood", "wrote more than 1048576 bytes"),
                ("killed", "was ended by signal 9"),
                ("badttl", "ttlOverride must be a whole number of seconds"),
                ("badcontext", "resolverContext.level must be a string, not a number"),
                ("nobool", "isAuthorized must be true or false"),
            ]),
            (10, [("lingering", "did not answer within 10 s")]),
        ] {
            try await Self.withRunner(timeout: timeout) { runner, recorder, _ in
                for (token, reason) in cases {
                    let started = ContinuousClock.now
                    let decision = await runner.decide(Self.request(token))
                    #expect(!decision.isAuthorized, "\(token)")
                    #expect(recorder.records.contains { $0.message.contains(reason) }, "\(token): \(recorder.records.map(\.message))")
                    // A process left holding the output (for two minutes) does not hold the run: it ends at
                    // its time limit, well before (the bound allows for a busy machine).
                    #expect(ContinuousClock.now - started < .seconds(90), "\(token)")
                }
            }
        }
    }

    @Test func oneRunServesEveryRequestWithTheSameToken() async throws {
        try await Self.withRunner(ttl: 300) { runner, _, log in
            let decisions = await withTaskGroup(of: APILambdaDecision.self) { group -> [APILambdaDecision] in
                for _ in 0..<8 { group.addTask { await runner.decide(Self.request("shared")) } }
                return await group.reduce(into: [APILambdaDecision]()) { $0.append($1) }
            }
            #expect(decisions.count == 8 && decisions.allSatisfy(\.isAuthorized))
            // Eight requests at once, while a run takes tens of milliseconds: they joined, not eight runs.
            let runs = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
            #expect(runs.count < 8, "\(runs.count) runs")
        }
    }

    @Test func anAnswerNotToBeKeptDecidesOnlyTheRequestItWasAskedAbout() async throws {
        try await Self.withRunner { runner, _, log in
            // The function allows GET only and says its answer is not to be kept. A DELETE with the same
            // token arrives while the GET's run is under way: it must be decided on its own, not given the
            // GET's answer.
            async let get = runner.decide(Self.request("bymethod", method: "GET"))
            try await Task.sleep(for: .milliseconds(50))
            async let delete = runner.decide(Self.request("bymethod", method: "DELETE"))
            let (allowed, refused) = await (get, delete)
            #expect(allowed.isAuthorized)
            #expect(!refused.isAuthorized)
            let runs = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
            #expect(runs.count == 2, "\(runs.count) runs")
        }
    }
}
