import Foundation
import Testing
@testable import WIFLocal

/// The `connections` settings: read from files, checked, and written back.
@Suite struct LocalConfigurationConnectionsTests {
    @Test func aFileSetsTheIdleTimeoutAndTheMaximum() throws {
        let loaded = try ConfigurationTestSupport.load(#"{"connections": {"idleTimeout": 5, "maximum": 32}}"#)
        #expect(loaded.connections == LocalConfiguration.Connections(idleTimeout: .seconds(5), maximum: 32))
        let partial = try ConfigurationTestSupport.load(#"{"connections": {"maximum": 8}}"#)
        #expect(partial.connections == LocalConfiguration.Connections(idleTimeout: .seconds(60), maximum: 8))
    }

    @Test(
        "out-of-range limits are refused with their path",
        arguments: [
            (#"{"connections": {"idleTimeout": 0}}"#, "connections.idleTimeout: must be more than 0 and at most 3600 seconds"),
            (#"{"connections": {"idleTimeout": 7200}}"#, "connections.idleTimeout: must be more than 0 and at most 3600 seconds"),
            (#"{"connections": {"maximum": 0}}"#, "connections.maximum: must be 1 to 65536, not 0"),
            (#"{"connections": {"idle": 5}}"#, "connections"),
        ])
    func badLimitsAreRefused(json: String, message: String) throws {
        let error = try #require(try ConfigurationTestSupport.loadError(json))
        #expect(error.contains(message), "\(error)")
    }

    @Test func theLimitsSurviveTheFileRepresentation() throws {
        var configuration = LocalConfiguration.default(dataDirectory: "/unused")
        configuration.connections = .init(idleTimeout: .seconds(15), maximum: 64)
        let text = configuration.fileRepresentation()
        #expect(text.contains(#""connections": {"idleTimeout": 15, "maximum": 64}"#))
        #expect(try ConfigurationTestSupport.load(text).connections == configuration.connections)
    }

    @Test func aConfigurationBuiltInCodeIsCheckedToo() {
        var configuration = LocalConfiguration.default(dataDirectory: "/unused")
        configuration.connections.idleTimeout = .zero
        #expect(throws: LocalStackError.self) { try configuration.validate() }
    }
}
