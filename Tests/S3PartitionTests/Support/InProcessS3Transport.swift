import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import WIFHTTP

/// A ``MemoryS3`` (or any ``FaultServer`` handler) answering through the S3 client's transport seam,
/// in process: no socket and no server, so client logic runs against S3's answers alone.
///
/// AsyncHTTPClient alone can read a request body, so this transport takes requests without one
/// (reads, heads, deletes, listings); an upload is a test failure. A truncated answer streams the
/// bytes it was given and then fails as a dropped connection would.
struct InProcessS3Transport: StreamingHTTPTransport {
    let handler: @Sendable (FaultServer.Request) -> FaultServer.Reply

    func execute(_ request: HTTPClientRequest, deadline: NIODeadline, logger: Logger?) async throws -> HTTPClientResponse {
        guard request.body == nil else { throw TestFailure("the in-process S3 takes requests without a body") }
        guard let url = URL(string: request.url) else { throw TestFailure("'\(request.url)' is not a URL") }
        let query = url.query(percentEncoded: true).map { "?" + $0 } ?? ""
        let received = FaultServer.Request(
            method: request.method.rawValue, uri: url.path(percentEncoded: true) + query,
            headers: request.headers.map { (name: $0.name, value: $0.value) }, body: [])
        switch self.handler(received) {
        case .response(let status, let headers, let body):
            return HTTPClientResponse(
                status: HTTPResponseStatus(statusCode: status), headers: Self.head(headers, length: body.count),
                body: .bytes(ByteBuffer(bytes: body)))
        case .truncated(let status, let headers, let body, let sending):
            let stream = AsyncThrowingStream<ByteBuffer, any Error> { continuation in
                continuation.yield(ByteBuffer(bytes: body.prefix(sending)))
                continuation.finish(throwing: HTTPClientError.remoteConnectionClosed)
            }
            return HTTPClientResponse(
                status: HTTPResponseStatus(statusCode: status), headers: Self.head(headers, length: body.count), body: .stream(stream))
        case .closeConnection:
            throw HTTPClientError.remoteConnectionClosed
        }
    }

    /// The headers with the `Content-Length` of the whole body, as the server frames its answers.
    private static func head(_ headers: [(String, String)], length: Int) -> HTTPHeaders {
        var fields = HTTPHeaders(headers)
        if !fields.contains(name: "Content-Length") { fields.add(name: "Content-Length", value: String(length)) }
        return fields
    }
}
