import AsyncHTTPClient
import Foundation
import Logging
import NIOCore

/// One HTTP request from the OAuth 2.0 client to an issuer.
package struct OAuth2HTTPRequest: Sendable {
    /// Where to send it.
    package var url: URL
    /// `GET` or `POST`.
    package var method: String
    /// Header fields in sending order. May hold the client secret: never log them.
    package var headers: [(name: String, value: String)]
    /// The form-encoded body. Holds codes and tokens: never log it.
    package var body: [UInt8]

    package init(url: URL, method: String, headers: [(name: String, value: String)], body: [UInt8] = []) {
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

/// An issuer's answer: status, headers and the whole body.
package struct OAuth2HTTPResponse: Sendable {
    /// The HTTP status code.
    package var status: Int
    /// Header fields as received.
    package var headers: [(name: String, value: String)]
    /// The body, at most ``OAuth2Client/maximumResponseBytes`` long.
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

/// Sends one request to an issuer and returns its answer: the seam between ``OAuth2Client`` and the
/// network, so tests can answer with a scripted issuer.
package protocol OAuth2Transport: Sendable {
    /// Sends `request` and reads the whole answer.
    /// - Parameters:
    ///   - request: The request.
    ///   - timeout: How long the exchange, body included, may take.
    ///   - maximumBodyBytes: Longer bodies are refused.
    ///   - logger: Where to log.
    /// - Returns: The answer, whatever its status.
    /// - Throws: ``WIFCredentialsError`` `malformedResponse` for an oversized body; any other error
    ///   means the exchange failed (the client reports it as `network`).
    func send(_ request: OAuth2HTTPRequest, timeout: Duration, maximumBodyBytes: Int, logger: Logger) async throws -> OAuth2HTTPResponse
}

/// The OAuth 2.0 transport over AsyncHTTPClient.
package struct AsyncHTTPClientOAuth2Transport: OAuth2Transport {
    let httpClient: HTTPClient

    package init(httpClient: HTTPClient = .shared) {
        self.httpClient = httpClient
    }

    package func send(_ request: OAuth2HTTPRequest, timeout: Duration, maximumBodyBytes: Int, logger: Logger) async throws -> OAuth2HTTPResponse {
        var httpRequest = HTTPClientRequest(url: request.url.absoluteString)
        httpRequest.method = .init(rawValue: request.method)
        for (name, value) in request.headers { httpRequest.headers.add(name: name, value: value) }
        if request.method != "GET" { httpRequest.body = .bytes(ByteBuffer(bytes: request.body)) }
        let components = timeout.components
        let nanoseconds = components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
        let response = try await self.httpClient.execute(httpRequest, timeout: .nanoseconds(nanoseconds), logger: logger)
        var body: [UInt8] = []
        for try await buffer in response.body {
            if body.count + buffer.readableBytes > maximumBodyBytes {
                throw WIFCredentialsError.malformedResponse(
                    "\(request.url.host ?? "the issuer") answered HTTP \(response.status.code) with a body longer than \(maximumBodyBytes) bytes")
            }
            body.append(contentsOf: buffer.readableBytesView)
        }
        return OAuth2HTTPResponse(
            status: Int(response.status.code), headers: response.headers.map { (name: $0.name, value: $0.value) }, body: body)
    }
}
