import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
import WIFTestSupport
#endif

/// What `wif-tool local serve` writes to standard error.
@Suite(.oneToolRunAtATime) struct LocalServeLogTests {
    @Test func verboseWritesALineForEachRequestWithItsMetadata() async throws {
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let server = try ServeProcess(["local", "serve", "--verbose", "--data-dir", home.appendingPathComponent("data").path], home: home)
        let endpoint = try await server.firstLine()
        let discovery = try await LocalCommandTests.get(endpoint + "/.well-known/openid-configuration")
        #expect(discovery.status == 200)
        // Not the issuer's: it goes on to S3, which refuses an unsigned request for a bucket.
        let refused = try await LocalCommandTests.get(endpoint + "/.well-known/nothing-here")
        #expect(refused.status == 403)
        let stopped = try await server.stop(signal: SIGTERM)
        #expect(stopped.status == 0)

        let lines = stopped.stderr.split(separator: "\n").filter { $0.hasSuffix(" request") }
        let found = lines.first { $0.contains("wif.local.path=/.well-known/openid-configuration") }
        let line = try #require(found, "\(stopped.stderr)")
        for part in [" debug wif-tool: ", "wif.local.method=GET", "wif.local.status=200", "wif.local.duration_us="] {
            #expect(line.contains(part), "\(line)")
        }
        let other = try #require(lines.first { $0.contains("wif.local.path=/.well-known/nothing-here") }, "\(stopped.stderr)")
        #expect(other.contains("wif.local.status=403"))
        #expect(lines.count == 2, "\(stopped.stderr)")
    }

    @Test func withoutVerboseRequestsAreNotLogged() async throws {
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let server = try ServeProcess(["local", "serve", "--data-dir", home.appendingPathComponent("data").path], home: home)
        let endpoint = try await server.firstLine()
        #expect(try await LocalCommandTests.get(endpoint + "/.well-known/openid-configuration").status == 200)
        let stopped = try await server.stop(signal: SIGTERM)
        #expect(stopped.status == 0)
        #expect(!stopped.stderr.contains("wif.local.path="), "\(stopped.stderr)")
    }
}
