import Foundation
import Logging
import Synchronization
import Testing

@testable import WIFCredentials
import WIFHTTP
import WIFFoundation
import WIFTestSupport

/// A transport that records requests and answers from a script, one entry per attempt.
final class STSTestTransport: HTTPTransport {
    enum Answer: Sendable {
        case response(TransportResponse)
        case failure(any Error & Sendable)
    }

    private struct State {
        var answers: [Answer]
        var requests: [TransportRequest] = []
        var timeouts: [Duration] = []
    }

    private let state: Mutex<State>

    init(_ answers: [Answer]) {
        self.state = Mutex(State(answers: answers))
    }

    var requests: [TransportRequest] { self.state.withLock { $0.requests } }
    var timeouts: [Duration] { self.state.withLock { $0.timeouts } }

    /// The decoded form parameters of each request.
    var forms: [[String: String]] { self.requests.map { STSTestTransport.decodeForm($0.body) } }

    func send(
        _ request: TransportRequest,
        timeout: Duration,
        maximumBodyBytes: Int,
        logger: Logger
    ) async throws -> TransportResponse {
        let answer = self.state.withLock { state -> Answer? in
            state.requests.append(request)
            state.timeouts.append(timeout)
            return state.answers.isEmpty ? nil : state.answers.removeFirst()
        }
        switch answer {
        case .response(let response): return response
        case .failure(let error): throw error
        case nil: throw STSTestFailure(description: "the test transport ran out of answers")
        }
    }

    static func decodeForm(_ body: [UInt8]) -> [String: String] {
        var form: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? ""
            let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? "") : ""
            form[name] = value
        }
        return form
    }
}

struct STSTestFailure: Error, Sendable, CustomStringConvertible {
    var description: String
}

extension TestClock {
    /// The STS tests' clock: 2026-11-21T12:00:00Z, and each sleep moves it by its duration.
    static func sts() -> TestClock {
        TestClock(now: Date(timeIntervalSince1970: 1_795_262_400), sleepsMoveClock: true)
    }
}

/// A token source that hands out tokens from a list and records each `forceRefresh`.
final class STSTestTokenSource: WebIdentityTokenSource {
    private struct State {
        var tokens: [WebIdentityToken]
        var calls: [Bool] = []
    }

    private let state: Mutex<State>

    init(_ tokens: [WebIdentityToken]) {
        self.state = Mutex(State(tokens: tokens))
    }

    convenience init(_ values: String...) {
        self.init(values.map { WebIdentityToken(value: $0) })
    }

    /// The `forceRefresh` argument of each call.
    var calls: [Bool] { self.state.withLock { $0.calls } }

    func token(forceRefresh: Bool, logger: Logger) async throws -> WebIdentityToken {
        try self.state.withLock { state in
            state.calls.append(forceRefresh)
            guard !state.tokens.isEmpty else {
                throw WIFCredentialsError.tokenUnavailable("the test token source ran out of tokens")
            }
            // The last token stays once the list is used up, like a file that did not change.
            return state.tokens.count == 1 ? state.tokens[0] : state.tokens.removeFirst()
        }
    }
}


enum STSFixtures {
    static func data(_ name: String) throws -> [UInt8] {
        let base = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return Array(try Data(contentsOf: base.appendingPathComponent("sts").appendingPathComponent(name)))
    }

    static func response(
        _ name: String,
        status: Int = 200,
        headers: [(name: String, value: String)] = [("Content-Type", "text/xml")]
    ) throws -> TransportResponse {
        TransportResponse(status: status, headers: headers, body: try Self.data(name))
    }

    static func errorResponse(code: String, status: Int = 400, message: String = "refused") -> TransportResponse {
        let xml = """
            <ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type>\
            <Code>\(code)</Code><Message>\(message)</Message></Error><RequestId>req-\(code)</RequestId></ErrorResponse>
            """
        return TransportResponse(status: status, headers: [("Content-Type", "text/xml")], body: Array(xml.utf8))
    }
}

extension AssumeRoleWithWebIdentityRequest {
    static let sample = AssumeRoleWithWebIdentityRequest(
        roleArn: "arn:aws:iam::123456789012:role/FederatedWebIdentityRole",
        roleSessionName: "app1"
    )
}
