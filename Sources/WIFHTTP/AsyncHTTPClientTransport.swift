import AsyncHTTPClient
import Logging
import NIOCore

/// The transport over AsyncHTTPClient.
package struct AsyncHTTPClientTransport: HTTPTransport {
    let httpClient: HTTPClient

    package init(httpClient: HTTPClient = .wifShared) {
        self.httpClient = httpClient
    }

    package func send(_ request: TransportRequest, timeout: Duration, maximumBodyBytes: Int, logger: Logger) async throws -> TransportResponse {
        var httpRequest = HTTPClientRequest(url: request.url.absoluteString)
        httpRequest.method = .init(rawValue: request.method)
        for (name, value) in request.headers { httpRequest.headers.add(name: name, value: value) }
        if request.method != "GET" && request.method != "HEAD" { httpRequest.body = .bytes(ByteBuffer(bytes: request.body)) }
        do {
            let response = try await self.httpClient.execute(
                httpRequest, timeout: .nanoseconds(timeout.saturatingNanoseconds), logger: logger)
            var body: [UInt8] = []
            for try await buffer in response.body {
                if body.count + buffer.readableBytes > maximumBodyBytes {
                    throw HTTPTransportError.bodyTooLong(status: Int(response.status.code), limit: maximumBodyBytes)
                }
                body.append(contentsOf: buffer.readableBytesView)
            }
            return TransportResponse(
                status: Int(response.status.code), headers: response.headers.map { (name: $0.name, value: $0.value) }, body: body)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw HTTPTransportError.timedOut(after: timeout)
        }
    }
}
