import Foundation
import Logging
import Testing
import WIFHTTP
import WIFTestSupport

@Suite struct AsyncHTTPClientTransportTests {
    /// The default client reports a refused connection at once, for the caller's retry policy to handle;
    /// `HTTPClient.shared` would reconnect until the request's two minutes were over.
    @Test(.timeLimit(.minutes(1)))
    func aRefusedConnectionFailsTheAttemptAtOnce() async throws {
        let port = try Loopback.freePort()
        let request = TransportRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/")), method: "GET")
        await #expect(throws: (any Error).self) {
            _ = try await AsyncHTTPClientTransport().send(request, timeout: .seconds(120), maximumBodyBytes: 1024, logger: Logger(label: "test"))
        }
    }
}
