import AsyncHTTPClient
import Logging
import NIOCore

/// Sends a request whose body may stream and returns the answer as soon as its head arrives, its body
/// still streaming: the seam between the S3 client and the network.
///
/// `HTTPClient` is the transport in use; tests substitute one that answers in process, so retries,
/// clock correction and error documents are exercised without a server.
package protocol StreamingHTTPTransport: Sendable {
    /// Sends `request` and returns the answer's head with its body to read.
    /// - Parameters:
    ///   - request: The request, its body a sequence of buffers or bytes.
    ///   - deadline: When the exchange, body included, must be over.
    ///   - logger: Where to log.
    func execute(_ request: HTTPClientRequest, deadline: NIODeadline, logger: Logger?) async throws -> HTTPClientResponse
}

extension HTTPClient: StreamingHTTPTransport {}
