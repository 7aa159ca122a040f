import AccessRules
import ArgumentParser
import Foundation
import NIOHTTP1
import WIFAPIClient
import WIFFileStore
import WIFFoundation
import WIFTerminal

extension WIFTool.Request {
    /// The options of `request --api`.
    func validateAPI() throws {
        guard (1...2).contains(self.target.count) else { throw ValidationError("with --api give [METHOD] PATH, such as 'GET /Todo'") }
        if self.target.count == 2, self.method != nil { throw ValidationError("give the method once: as -X or before the path") }
        if self.service != nil { throw ValidationError("--service does not go with --api: the API's configuration names its signing service") }
        if self.dryRun || self.presign != nil || self.date != nil { throw ValidationError("--dry-run, --presign and --date do not go with --api") }
        for line in self.header where Self.splitHeader(line) == nil {
            throw ValidationError(Self.headerMistake(line))
        }
    }

    /// `request --api`.
    func runAPI() async throws {
        try await reportingStoreErrors {
            let logger = self.options.makeLogger()
            let body = try self.readBody() ?? []
            let path = self.target.last ?? "/"
            let method = (self.target.count == 2 ? self.target[0] : self.method ?? (body.isEmpty ? "GET" : "POST")).uppercased()
            var document: [UInt8]?
            if let config = self.call.config {
                do throws(FileContents.Failure) {
                    document = try FileContents.read(config, limit: PolicyInputs.maximumInputSize)
                } catch {
                    throw CommandFailure(status: .io, message: "cannot read --config file '\(config)': \(error.reason)")
                }
            }
            let modes: SignedInAPI.Call.Modes
            if self.call.multiAuth, let model = self.call.model, let operation = self.call.operation.flatMap(ModelOperation.init(rawValue:)) {
                modes = .multiAuth(model: model, operation: operation)
            } else if let mode = self.call.authMode.flatMap(APIAuthorizationMode.init(name:)) {
                modes = .one(mode)
            } else {
                modes = .apiDefault
            }
            let configuration = try ToolConfiguration.resolve(store: self.store, region: self.options.region, environment: self.options.environment)
            let call = SignedInAPI.Call(
                api: self.api ?? "", configuration: document, method: method, path: path, body: body,
                headers: self.header.compactMap(Self.splitHeader).map { (name: $0.0, value: $0.1) }, modes: modes,
                lambdaToken: try self.call.lambdaToken.map { token throws(CommandFailure) in try SignIn.readToken(token, option: "--lambda-token") },
                configurationName: self.call.config)
            let result: APIResult
            do {
                result = try await SignedInAPI.send(call, configuration: configuration, environment: self.options.environment, logger: logger)
            } catch let error as APIClientError {
                let unreachable = error.message.contains("could not be reached")
                let lambdaUntried = error.attempts.contains { attempt in
                    guard attempt.mode == .lambda, case .noCredentials = attempt.outcome else { return false }
                    return true
                }
                let hint = lambdaUntried && self.call.lambdaToken == nil ? "; give AWS_LAMBDA's token with --lambda-token" : ""
                throw CommandFailure(status: unreachable ? .network : .auth, message: error.message + hint)
            }
            try self.report(result)
        }
    }

    private func report(_ result: APIResult) throws {
        let status = result.response.status
        if self.options.json {
            struct Attempt: Encodable {
                var mode: String
                var outcome: String
                var status: Int?
            }
            struct Output: Encodable {
                var mode: String
                var status: Int
                var attempts: [Attempt]
                /// With `-i`: the answer's headers, in order.
                var headers: [[String]]?
                var body: String
            }
            let attempts = result.attempts.map { attempt -> Attempt in
                switch attempt.outcome {
                case .answered(let status): return Attempt(mode: attempt.mode.rawValue, outcome: "answered", status: status)
                case .unauthorized(let status): return Attempt(mode: attempt.mode.rawValue, outcome: "unauthorized", status: status)
                case .noCredentials(let reason): return Attempt(mode: attempt.mode.rawValue, outcome: "no credentials: \(reason)", status: nil)
                }
            }
            try printJSON(Output(
                mode: result.mode.rawValue, status: status, attempts: attempts,
                headers: self.include ? result.response.headers.map { [$0.name, $0.value] } : nil,
                body: String(decoding: result.response.body, as: UTF8.self)))
        } else {
            let tried = result.attempts.dropLast().map { attempt -> String in
                if case .noCredentials(let reason) = attempt.outcome { return "\(attempt.mode.rawValue): \(reason)" }
                return "\(attempt.mode.rawValue): refused"
            }
            printError("answered by \(result.mode.rawValue) (HTTP \(status))\(tried.isEmpty ? "" : " after \(tried.joined(separator: "; "))")\n")
            if self.include {
                var head = "HTTP/1.1 \(status) \(HTTPResponseStatus(statusCode: status).reasonPhrase)\n"
                for (name, value) in result.response.headers { head += "\(name): \(value)\n" }
                printRaw(head + "\n")
            }
            do {
                try FileHandle.standardOutput.write(contentsOf: result.response.body)
                if result.response.body.last != UInt8(ascii: "\n") { try FileHandle.standardOutput.write(contentsOf: Array("\n".utf8)) }
            } catch {
                throw CommandFailure(status: .io, message: "cannot write the answer to standard output; was it closed?")
            }
        }
        switch status {
        case 200..<300: return
        case 401, 403: throw ExitStatus.denied.exitCode
        case 404: throw ExitStatus.notFound.exitCode
        default: throw ExitStatus.failure.exitCode
        }
    }
}

/// The options of `request --api` that say how the API is called: its configuration, the mode or
/// multi-auth, and the Lambda token.
struct APICallOptions: ParsableArguments {
    @Option(name: .long, help: "The amplifyconfiguration.json or amplify_outputs.json describing --api (default: what the local stack publishes).")
    var config: String?

    @Option(name: .long, help: "The authorization mode for --api: AWS_IAM, API_KEY, AMAZON_COGNITO_USER_POOLS, OPENID_CONNECT, AWS_LAMBDA or NONE.")
    var authMode: String?

    @Option(name: .long, help: "The custom token for AWS_LAMBDA, or '-' to read it from standard input.")
    var lambdaToken: String?

    @Flag(name: .long, help: "Try the modes of --model's rules for --operation in Amplify's order.")
    var multiAuth = false

    @Option(name: .long, help: "The model whose rules --multi-auth reads.")
    var model: String?

    @Option(name: .long, help: "The operation --multi-auth is for: create, update, delete, get, list.")
    var operation: String?

    /// The flags given, each of which goes with `--api` only.
    var givenFlags: [String] {
        [
            ("--config", self.config != nil), ("--auth-mode", self.authMode != nil), ("--lambda-token", self.lambdaToken != nil),
            ("--multi-auth", self.multiAuth), ("--model", self.model != nil), ("--operation", self.operation != nil),
        ].filter(\.1).map(\.0)
    }

    func validate() throws {
        if let mode = self.authMode, APIAuthorizationMode(name: mode) == nil {
            throw ValidationError("--auth-mode must be one of \(APIAuthorizationMode.names.joined(separator: ", ")), not '\(mode)'")
        }
        if self.multiAuth {
            if self.authMode != nil { throw ValidationError("--multi-auth chooses the modes itself; drop --auth-mode") }
            guard self.model != nil, let operation = self.operation else { throw ValidationError("--multi-auth needs --model and --operation") }
            guard ModelOperation(rawValue: operation) != nil else {
                throw ValidationError("--operation must be one of \(ModelOperation.allCases.map(\.rawValue).joined(separator: ", ")), not '\(operation)'")
            }
        } else if self.model != nil || self.operation != nil {
            throw ValidationError("--model and --operation go with --multi-auth")
        }
    }
}
