import Foundation
import Logging

/// One HTTP request with its whole body, as the package's clients of small-document APIs (STS,
/// OAuth 2.0 issuers, engine administration) build it.
package struct TransportRequest: Sendable {
    /// Where to send it.
    package var url: URL
    /// The HTTP method.
    package var method: String
    /// Header fields in sending order. May hold secrets (a client secret, a signature): never log them.
    package var headers: [(name: String, value: String)]
    /// The body; empty for none. May hold tokens: never log it.
    package var body: [UInt8]

    package init(url: URL, method: String = "POST", headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }

    /// The first value of a header field, compared case-insensitively.
    package func header(_ name: String) -> String? {
        self.headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The host and port, for messages that name where a request went.
    package var hostDescription: String {
        self.url.host.map { $0 + (self.url.port.map { ":\($0)" } ?? "") } ?? self.url.absoluteString
    }
}

/// A whole answer: status, headers and body.
package struct TransportResponse: Sendable {
    /// The HTTP status code.
    package var status: Int
    /// Header fields as received.
    package var headers: [(name: String, value: String)]
    /// The body, no longer than the limit the request was sent with.
    package var body: [UInt8]

    package init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header field, compared case-insensitively.
    package func header(_ name: String) -> String? {
        self.headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// Why a transport gave up on an answer it did receive.
package enum HTTPTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body was longer than the caller allows.
    case bodyTooLong(status: Int, limit: Int)
    /// No whole answer came within the exchange's time-out.
    case timedOut(after: Duration)

    package var description: String {
        switch self {
        case .bodyTooLong(let status, let limit):
            return "answered HTTP \(status) with a body longer than \(limit) bytes"
        case .timedOut(let after):
            return "did not answer within \(Self.describe(after))"
        }
    }

    /// A duration for a person: `15 s`, `1.5 s`, `250 ms`.
    package static func describe(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        if milliseconds < 1000 { return "\(milliseconds) ms" }
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
        return "\(Double(milliseconds) / 1000) s"
    }
}

/// Sends one request and returns its whole answer: the seam between a client and the network, so
/// that tests answer with a scripted server and exercise retries, backoff and clock-skew handling
/// without one.
package protocol HTTPTransport: Sendable {
    /// Sends `request` and reads the whole answer.
    /// - Parameters:
    ///   - request: The request.
    ///   - timeout: How long the exchange, body included, may take.
    ///   - maximumBodyBytes: Longer bodies are refused.
    ///   - logger: Where to log.
    /// - Returns: The answer, whatever its status.
    /// - Throws: ``HTTPTransportError/bodyTooLong(status:limit:)`` for an oversized body,
    ///   ``HTTPTransportError/timedOut(after:)`` when no whole answer came within `timeout`; any other
    ///   error means the exchange failed.
    func send(_ request: TransportRequest, timeout: Duration, maximumBodyBytes: Int, logger: Logger) async throws -> TransportResponse
}

extension Duration {
    /// Whole nanoseconds, saturating at `Int64.max` instead of overflowing.
    package var saturatingNanoseconds: Int64 {
        let components = self.components
        let (seconds, overflow) = components.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return components.seconds < 0 ? Int64.min : Int64.max }
        let (total, overflowAdding) = seconds.addingReportingOverflow(components.attoseconds / 1_000_000_000)
        return overflowAdding ? Int64.max : total
    }
}

extension Logger {
    /// A logger that discards everything: the default of every library call that takes a logger.
    @usableFromInline
    package static let noop = Logger(label: "wif.noop", factory: { _ in SwiftLogNoOpLogHandler() })
}
