import AccessRules
import Dispatch
import Foundation
import HTTPTypes
import Logging
import Synchronization
import WIFAPIServer
import WIFCredentials
import WIFFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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

    /// The decision about a token, from the cache while it lasts, else from the command.
    func decide(_ request: APILambdaRequest) async -> APILambdaDecision {
        let key = ExactText(request.token)
        if let kept = self.decisions[key], self.timeSource.now() < kept.until { return kept.decision }
        let event = self.event(request)
        guard event.count <= Self.largestEvent else {
            self.logger.warning("api lambda authorizer not run: the request's event is larger than \(Self.largestEvent) bytes")
            return APILambdaDecision(isAuthorized: false)
        }
        let answer: Answer
        switch await Self.run(self.authorizer.command, input: event, timeout: self.authorizer.timeoutSeconds) {
        case .success(let output):
            do {
                answer = try Answer(output)
            } catch {
                self.logger.warning("api lambda authorizer answered badly: \(error.message)")
                return APILambdaDecision(isAuthorized: false)
            }
        case .failure(let failure):
            self.logger.warning("api lambda authorizer failed: \(failure.message)")
            return APILambdaDecision(isAuthorized: false)
        }
        let ttl = min(answer.ttlOverride ?? self.authorizer.resultTTLSeconds, LocalLambdaAuthorizer.longestTTLSeconds)
        if ttl > 0 { self.decisions.store((answer.decision, self.timeSource.now().addingTimeInterval(Double(ttl))), for: key) }
        return answer.decision
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

    /// What a command answered.
    struct Answer {
        var decision: APILambdaDecision
        var ttlOverride: Int?

        struct Problem: Error {
            var message: String
        }

        init(_ output: [UInt8]) throws(Problem) {
            let root: JSONNode
            do {
                root = try JSONParser.parse(output)
            } catch {
                let (line, column) = JSONParser.location(of: error.offset, in: output)
                throw Problem(message: "its output is not JSON (line \(line), column \(column)): \(error.message)")
            }
            guard case .object = root.kind else { throw Problem(message: "its output is \(root.typeName), not an object") }
            guard case .bool(let authorized)? = root.member("isAuthorized")?.kind else {
                throw Problem(message: "isAuthorized must be true or false")
            }
            var claims: [String: ClaimValue] = [:]
            if let context = root.member("resolverContext") {
                guard case .object(let members) = context.kind else { throw Problem(message: "resolverContext must be an object") }
                for member in members {
                    guard let value = member.value.stringValue else {
                        throw Problem(message: "resolverContext.\(member.key) must be a string, not \(member.value.typeName)")
                    }
                    claims[member.key] = .string(value)
                }
            }
            var denied: [String] = []
            if let fields = root.member("deniedFields") {
                guard let elements = fields.arrayValue else { throw Problem(message: "deniedFields must be an array of strings") }
                for (index, element) in elements.enumerated() {
                    guard let name = element.stringValue else { throw Problem(message: "deniedFields[\(index)] must be a string") }
                    denied.append(name)
                }
            }
            if let ttl = root.member("ttlOverride") {
                guard case .number(let text) = ttl.kind, let seconds = Int(text), seconds >= 0 else {
                    throw Problem(message: "ttlOverride must be a whole number of seconds")
                }
                self.ttlOverride = seconds
            }
            self.decision = APILambdaDecision(isAuthorized: authorized, resolvedContext: claims, deniedFields: denied)
        }
    }

    struct RunFailure: Error {
        var message: String
    }

    /// Runs a command with `input` on its standard input and returns what it wrote on standard output.
    static func run(_ command: [String], input: [UInt8], timeout seconds: Int) async -> Result<[UInt8], RunFailure> {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Self.runBlocking(command, input: input, timeout: seconds))
            }
        }
    }

    private static func runBlocking(_ command: [String], input: [UInt8], timeout seconds: Int) -> Result<[UInt8], RunFailure> {
        guard let program = command.first, let executable = Self.executable(program) else {
            return .failure(RunFailure(message: "no program '\(command.first ?? "")' was found"))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = Array(command.dropFirst())
        let standardInput = Pipe()
        let standardOutput = Pipe()
        process.standardInput = standardInput
        process.standardOutput = standardOutput
        // The whole event is in the pipe before the command starts, so writing never waits for it and
        // a command that exits without reading cannot break the write.
        do {
            try standardInput.fileHandleForWriting.write(contentsOf: input)
            try standardInput.fileHandleForWriting.close()
            try process.run()
        } catch {
            return .failure(RunFailure(message: "'\(program)' could not be started: \(error.localizedDescription)"))
        }
        let timedOut = Mutex(false)
        let timer = DispatchWorkItem {
            guard process.isRunning else { return }
            timedOut.withLock { $0 = true }
            process.terminate()
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) {
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds), execute: timer)
        let output = (try? standardOutput.fileHandleForReading.read(upToCount: Self.largestAnswer + 1)) ?? Data()
        try? standardOutput.fileHandleForReading.close()
        process.waitUntilExit()
        timer.cancel()
        if timedOut.withLock({ $0 }) { return .failure(RunFailure(message: "'\(program)' did not answer within \(seconds) s")) }
        if process.terminationReason == .uncaughtSignal {
            return .failure(RunFailure(message: "'\(program)' was ended by signal \(process.terminationStatus)"))
        }
        guard process.terminationStatus == 0 else {
            return .failure(RunFailure(message: "'\(program)' exited with status \(process.terminationStatus)"))
        }
        guard output.count <= Self.largestAnswer else {
            return .failure(RunFailure(message: "'\(program)' wrote more than \(Self.largestAnswer) bytes"))
        }
        return .success(Array(output))
    }

    /// A program's path: as given when it names a folder, else the first match on `PATH`.
    static func executable(_ program: String) -> String? {
        if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) ? program : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
