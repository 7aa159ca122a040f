import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import Testing
import WIFHTTP
import WIFTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct AsyncHTTPClientTransportTests {
    /// The default client reports a refused connection at once, for the caller's retry policy to handle;
    /// `HTTPClient.shared` would reconnect until the request's two minutes were over.
    @Test(.timeLimit(.minutes(5)))
    func aRefusedConnectionFailsTheAttemptAtOnce() async throws {
        let port = try Loopback.freePort()
        let request = TransportRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/")), method: "GET")
        let error = await #expect(throws: (any Error).self) {
            _ = try await AsyncHTTPClientTransport().send(request, timeout: .seconds(600), maximumBodyBytes: 1024, logger: Logger(label: "test"))
        }
        #expect(error.map(TransportFailure.reason) == "connection refused")
    }

    @Test func failuresAreDescribedInAFewWords() {
        #expect(TransportFailure.reason(IOError(errnoCode: ECONNRESET, reason: "read")) == "connection reset by peer")
        #expect(TransportFailure.reason(HTTPClientError.connectTimeout) == "no connection could be made within the connect time-out")
        #expect(TransportFailure.reason(HTTPClientError.remoteConnectionClosed) == "the server closed the connection before answering")
        struct Long: Error, CustomStringConvertible { var description: String { String(repeating: "x", count: 500) } }
        #expect(TransportFailure.reason(Long()).count == 300)
    }
}
