import Foundation
import Testing
import WIFTestSupport

@testable import WIFLocal

/// The server's connection limits: an idle connection is closed after the configured time-out, and no
/// more than the configured number are served at once.
///
/// The time limits guard against a server that never closes a connection; they are wide because in a
/// full run the whole suite shares a few threads with tests that wait on other programs.
@Suite struct LocalStackConnectionTests {
    /// Runs a stack with the given limits over a fresh data directory.
    private func withStack(_ connections: LocalConfiguration.Connections, _ body: (LocalEndpoint) async throws -> Void) async throws {
        try await StackTestSupport.withDataDirectory { directory in
            try IdentitySharedKey.seed(directory)
            var configuration = LocalConfiguration.default(dataDirectory: directory)
            configuration.connections = connections
            try await LocalStack.run(configuration) { endpoint in try await body(endpoint) }
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func anIdleConnectionIsClosed() async throws {
        try await self.withStack(.init(idleTimeout: .seconds(1))) { endpoint in
            // One that never sends a request.
            // Timed from before the connection exists, so a pause after it cannot shorten what is measured.
            let start = ContinuousClock.now
            let silent = try LoopbackConnection(port: endpoint.port)
            #expect(await silent.readUntilClosed(timeout: .seconds(60)).closed)
            #expect(ContinuousClock.now - start >= .milliseconds(950))

            // One that sent a request and keeps the connection: it is answered, then closed once idle.
            let kept = try LoopbackConnection(port: endpoint.port)
            try kept.send("GET /.well-known/openid-configuration HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let outcome = await kept.readUntilClosed(timeout: .seconds(60))
            #expect(outcome.received.hasPrefix("HTTP/1.1 200"), "\(outcome.received)")
            #expect(outcome.closed)
        }
    }

    @Test func theDefaultKeepsAnIdleConnectionForAMinuteAtMost() {
        let connections = LocalConfiguration.default(dataDirectory: "/unused").connections
        #expect(connections.idleTimeout == .seconds(60))
        #expect(connections.maximum == 256)
    }

    @Test(.timeLimit(.minutes(5)))
    func connectionsBeyondTheMaximumWaitUntilOneCloses() async throws {
        // The idle time-out is long, so only the client's own close frees a place: a busy test run that
        // stalls for seconds cannot have the first two closed before the third is seen waiting.
        try await self.withStack(.init(idleTimeout: .seconds(120), maximum: 2)) { endpoint in
            let first = try LoopbackConnection(port: endpoint.port)
            let second = try LoopbackConnection(port: endpoint.port)
            // Let the server accept both before the third arrives.
            try await Task.sleep(for: .milliseconds(200))
            let third = try LoopbackConnection(port: endpoint.port)
            try third.send("GET /.well-known/openid-configuration HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            // Not served while the two others are open...
            #expect(await third.next(timeout: .milliseconds(500)) == .silent)
            // ...and served once one of them has gone (the wait allows for a CI machine whose two cores
            // are busy with the rest of the suite).
            first.shutDown()
            let outcome = await third.readUntilClosed(timeout: .seconds(40))
            #expect(outcome.received.hasPrefix("HTTP/1.1 200"), "\(outcome.received)")
            withExtendedLifetime((first, second)) {}
        }
    }
}
