import AsyncHTTPClient
import Foundation
import Logging

/// One HTTP request to STS, as the client builds it.
package struct STSHTTPRequest: Sendable {
    /// Where to send it.
    package var url: URL
    /// The HTTP method; STS's query API takes `POST`.
    package var method: String
    /// Header fields in sending order.
    package var headers: [(name: String, value: String)]
    /// The form-encoded body. Contains the web-identity token: never log it.
    package var body: [UInt8]

    package init(url: URL, method: String = "POST", headers: [(name: String, value: String)], body: [UInt8]) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }

    /// The first value of a header field, compared case-insensitively.
    package func header(_ name: String) -> String? {
        self.headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// STS's answer: status, headers and the whole body.
package struct STSHTTPResponse: Sendable {
    /// The HTTP status code.
    package var status: Int
    /// Header fields as received.
    package var headers: [(name: String, value: String)]
    /// The body, at most ``STSClient/maximumResponseBytes`` long.
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

/// Sends one request to STS and returns its answer.
///
/// The seam between ``STSClient`` and the network: the client's default is
/// ``AsyncHTTPClientSTSTransport``; tests substitute a transport that records requests and returns
/// canned answers, so retry, backoff and clock-skew handling run without a network.
package protocol STSTransport: Sendable {
    /// Sends `request` and reads the whole answer.
    /// - Parameters:
    ///   - request: The request to send.
    ///   - timeout: How long the exchange, including reading the body, may take.
    ///   - maximumBodyBytes: Bodies longer than this are refused.
    ///   - logger: Where to log.
    /// - Returns: The answer, whatever its status.
    /// - Throws: ``WIFCredentialsError`` with code `malformedResponse` for an oversized body; any
    ///   other error means the exchange failed (the client reports it as `network`).
    func send(
        _ request: STSHTTPRequest,
        timeout: Duration,
        maximumBodyBytes: Int,
        logger: Logger
    ) async throws -> STSHTTPResponse
}

/// The STS transport over AsyncHTTPClient.
package struct AsyncHTTPClientSTSTransport: STSTransport {
    let httpClient: HTTPClient

    package init(httpClient: HTTPClient = .shared) {
        self.httpClient = httpClient
    }

    package func send(
        _ request: STSHTTPRequest,
        timeout: Duration,
        maximumBodyBytes: Int,
        logger: Logger
    ) async throws -> STSHTTPResponse {
        var httpRequest = HTTPClientRequest(url: request.url.absoluteString)
        httpRequest.method = .init(rawValue: request.method)
        for (name, value) in request.headers {
            httpRequest.headers.add(name: name, value: value)
        }
        httpRequest.body = .bytes(request.body)

        let components = timeout.components
        let nanoseconds = components.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let timeoutNanoseconds =
            nanoseconds.overflow ? Int64.max : nanoseconds.partialValue + components.attoseconds / 1_000_000_000
        let response = try await self.httpClient.execute(
            httpRequest,
            timeout: .nanoseconds(timeoutNanoseconds),
            logger: logger
        )

        var body: [UInt8] = []
        for try await buffer in response.body {
            if body.count + buffer.readableBytes > maximumBodyBytes {
                throw WIFCredentialsError.malformedResponse(
                    "STS answered HTTP \(response.status.code) with a body longer than \(maximumBodyBytes) bytes"
                )
            }
            body.append(contentsOf: buffer.readableBytesView)
        }
        return STSHTTPResponse(
            status: Int(response.status.code),
            headers: response.headers.map { (name: $0.name, value: $0.value) },
            body: body
        )
    }
}
