import AccessRules
import Foundation
import HTTPTypes
import Logging
import Synchronization
import WIFAPIServer
import WIFCredentials
import WIFFoundation

/// Runs an API's ``LocalLambdaAuthorizer`` for the tokens of `AWS_LAMBDA` requests and keeps its
/// decisions for their time to live.
final class LambdaAuthorizerRunner: Sendable {
    let authorizer: LocalLambdaAuthorizer
    /// The members of every event's `requestContext` that do not change: the API, account and stage.
    let fixedContext: [String]
    let timeSource: TimeSource
    /// Logs with the API's name.
    let logger: Logger
    private let decisions = BoundedCache<ExactText, (decision: APILambdaDecision, until: Date)>(capacity: 4096)
    /// The runs under way: shared by token, and those for one request alone.
    private let runs = Mutex(Runs())

    private struct Runs {
        var shared: [ExactText: Task<Outcome, Never>] = [:]
        var alone = 0
        var count: Int { self.shared.count + self.alone }
    }

    /// A run's decision, and whether the requests that joined the run may take it: not when the
    /// command said its answer is not to be kept (a time to live of 0), since it decided about the
    /// request it was sent, whose method, path and headers may differ from theirs.
    private struct Outcome {
        var decision: APILambdaDecision
        var shareable: Bool
    }

    /// The most runs of the command at once.
    static let mostRunsAtOnce = 16

    /// The largest event the command is sent: the event is written to its standard input before it
    /// starts, so it must fit in a pipe.
    static let largestEvent = 60 * 1024
    /// The largest answer read from the command.
    static let largestAnswer = 1 << 20

    init(authorizer: LocalLambdaAuthorizer, apiId: String, accountId: String, stage: String, timeSource: TimeSource, logger: Logger) {
        self.authorizer = authorizer
        let quoted = JSONWriter.quoted
        self.fixedContext = ["\"apiId\":\(quoted(apiId))", "\"accountId\":\(quoted(accountId))", "\"stage\":\(quoted(stage))"]
        self.timeSource = timeSource
        var logger = logger
        logger[metadataKey: "wif.api"] = "\(apiId)"
        self.logger = logger
    }

    /// The decision about a token, from the cache while it lasts, else from the command: one run for
    /// all the requests that bring the same token at once (unless its answer is not to be kept, when
    /// each of them is asked about on its own), and at most ``mostRunsAtOnce`` runs in all (a request
    /// beyond them is refused, and logged).
    func decide(_ request: APILambdaRequest) async -> APILambdaDecision {
        let key = ExactText(request.token)
        if let kept = self.decisions[key], self.timeSource.now() < kept.until { return kept.decision }
        enum Start {
            case join(Task<Outcome, Never>)
            case run(Task<Outcome, Never>)
            case refuse
        }
        let start = self.runs.withLock { runs -> Start in
            if let task = runs.shared[key] { return .join(task) }
            guard runs.count < Self.mostRunsAtOnce else { return .refuse }
            // The task leaves the table itself, before its outcome is seen, so that a request that
            // must be asked about again never finds the finished run.
            let task = Task {
                let outcome = await self.ask(request, key: key)
                _ = self.runs.withLock { $0.shared.removeValue(forKey: key) }
                return outcome
            }
            runs.shared[key] = task
            return .run(task)
        }
        switch start {
        case .join(let task):
            let outcome = await task.value
            if outcome.shareable { return outcome.decision }
            let admitted = self.runs.withLock { runs in
                guard runs.count < Self.mostRunsAtOnce else { return false }
                runs.alone += 1
                return true
            }
            guard admitted else { return self.refused() }
            defer { self.runs.withLock { $0.alone -= 1 } }
            return await self.ask(request, key: key).decision
        case .refuse:
            return self.refused()
        case .run(let task):
            return await task.value.decision
        }
    }

    /// The decision for a request beyond ``mostRunsAtOnce``, logged.
    private func refused() -> APILambdaDecision {
        self.logger.warning("api lambda authorizer not run: \(Self.mostRunsAtOnce) runs are under way")
        return APILambdaDecision(isAuthorized: false)
    }

    /// Runs the command for one token and keeps its answer for the answer's time to live.
    /// A failure is shared with the requests that joined the run, and kept for none.
    private func ask(_ request: APILambdaRequest, key: ExactText) async -> Outcome {
        let failed = Outcome(decision: APILambdaDecision(isAuthorized: false), shareable: true)
        let event = self.event(request)
        guard event.count <= Self.largestEvent else {
            self.logger.warning("api lambda authorizer not run: the request's event is larger than \(Self.largestEvent) bytes")
            return failed
        }
        let answer: Answer
        switch await Self.run(self.authorizer.command, input: event, timeout: self.authorizer.timeoutSeconds) {
        case .success(let output):
            do {
                answer = try Answer(output)
            } catch {
                self.logger.warning("api lambda authorizer answered badly: \(error.message)")
                return failed
            }
        case .failure(let failure):
            self.logger.warning("api lambda authorizer failed: \(failure.message)")
            return failed
        }
        let ttl = min(answer.ttlOverride ?? self.authorizer.resultTTLSeconds, LocalLambdaAuthorizer.longestTTLSeconds)
        if ttl > 0 { self.decisions.store((answer.decision, self.timeSource.now().addingTimeInterval(Double(ttl))), for: key) }
        return Outcome(decision: answer.decision, shareable: ttl > 0)
    }

    /// The event, in the shape AppSync sends.
    func event(_ request: APILambdaRequest) -> [UInt8] {
        let headers = request.headers
        let quoted = JSONWriter.quoted
        var seen: Set<String> = []
        var headerMembers: [String] = []
        for field in headers where seen.insert(field.name.canonicalName).inserted {
            headerMembers.append("\(quoted(field.name.canonicalName)):\(quoted(headers[values: field.name].joined(separator: ",")))")
        }
        let context = self.fixedContext + [
            "\"requestId\":\(quoted(UUID().uuidString.lowercased()))",
            "\"httpMethod\":\(quoted(request.method))", "\"path\":\(quoted(request.path))",
        ]
        let text = "{\"authorizationToken\":\(quoted(request.token)),\"requestContext\":{\(context.joined(separator: ","))},"
            + "\"requestHeaders\":{\(headerMembers.joined(separator: ","))}}\n"
        return Array(text.utf8)
    }

    /// Why a command's run or answer is not taken, for the log.
    struct Failure: Error {
        var message: String
    }

    /// What a command answered.
    struct Answer {
        var decision: APILambdaDecision
        var ttlOverride: Int?

        init(_ output: [UInt8]) throws(Failure) {
            let root: JSONNode
            do {
                root = try JSONParser.parse(output)
            } catch {
                let (line, column) = JSONParser.location(of: error.offset, in: output)
                throw Failure(message: "its output is not JSON (line \(line), column \(column)): \(error.message)")
            }
            guard case .object = root.kind else { throw Failure(message: "its output is \(root.typeName), not an object") }
            guard case .bool(let authorized)? = root.member("isAuthorized")?.kind else {
                throw Failure(message: "isAuthorized must be true or false")
            }
            var claims: [String: ClaimValue] = [:]
            if let context = root.member("resolverContext") {
                guard case .object(let members) = context.kind else { throw Failure(message: "resolverContext must be an object") }
                for member in members {
                    guard let value = member.value.stringValue else {
                        throw Failure(message: "resolverContext.\(member.key) must be a string, not \(member.value.typeName)")
                    }
                    claims[member.key] = .string(value)
                }
            }
            var denied: [String] = []
            if let fields = root.member("deniedFields") {
                guard let elements = fields.arrayValue else { throw Failure(message: "deniedFields must be an array of strings") }
                for (index, element) in elements.enumerated() {
                    guard let name = element.stringValue else { throw Failure(message: "deniedFields[\(index)] must be a string") }
                    denied.append(name)
                }
            }
            if let ttl = root.member("ttlOverride") {
                guard let seconds = ttl.intValue, seconds >= 0 else {
                    throw Failure(message: "ttlOverride must be a whole number of seconds")
                }
                self.ttlOverride = seconds
            }
            self.decision = APILambdaDecision(isAuthorized: authorized, resolvedContext: claims, deniedFields: denied)
        }
    }

    /// Runs a command with `input` on its standard input and returns what it wrote on standard output,
    /// on a thread of its own: the run blocks for up to its time limit, which must not hold a thread of
    /// the shared pools.
    static func run(_ command: [String], input: [UInt8], timeout seconds: Int) async -> Result<[UInt8], Failure> {
        guard let program = command.first, let executable = ChildProcess.executable(program) else {
            return .failure(Failure(message: "no program '\(command.first ?? "")' was found"))
        }
        let run = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    returning: ChildProcess.run(executable, arguments: command, input: input, outputLimit: Self.largestAnswer, timeout: .seconds(seconds)))
            }
        }
        switch run {
        case .finished(let output, .exited(0)): return .success(output)
        case .finished(_, .exited(let status)): return .failure(Failure(message: "'\(program)' exited with status \(status)"))
        case .finished(_, .signaled(let signal)): return .failure(Failure(message: "'\(program)' was ended by signal \(signal)"))
        case .timedOut: return .failure(Failure(message: "'\(program)' did not answer within \(seconds) s"))
        case .outputTooLarge: return .failure(Failure(message: "'\(program)' wrote more than \(Self.largestAnswer) bytes"))
        case .failed(let reason): return .failure(Failure(message: "'\(program)': \(reason)"))
        }
    }
}
