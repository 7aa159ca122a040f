import Foundation
import Logging
import Synchronization
import Testing

@testable import WIFCredentials
import WIFHTTP
import WIFTestSupport

/// An STS that accepts every request and never answers: each attempt uses up its whole time-out on
/// the test clock, then fails as the real transport does.
final class SilentTransport: HTTPTransport {
    private let clock: TestClock
    private let recorded = Mutex<[Duration]>([])

    init(clock: TestClock) { self.clock = clock }

    /// The time-out each attempt was given.
    var timeouts: [Duration] { self.recorded.withLock { $0 } }

    func send(_ request: TransportRequest, timeout: Duration, maximumBodyBytes: Int, logger: Logger) async throws -> TransportResponse {
        self.recorded.withLock { $0.append(timeout) }
        let components = timeout.components
        self.clock.advance(by: Double(components.seconds) + Double(components.attoseconds) / 1e18)
        throw HTTPTransportError.timedOut(after: timeout)
    }
}

@Suite struct STSClientDeadlineTests {
    static let token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln+bmF0/dXJl="
    static let request = AssumeRoleWithWebIdentityRequest(
        roleArn: "arn:aws:iam::123456789012:role/FederatedWebIdentityRole", roleSessionName: "app1")

    func call(_ configuration: STSClient.Configuration, clock: TestClock, transport: SilentTransport) async throws -> WIFCredentialsError? {
        let client = try STSClient(
            configuration: configuration, environment: [:], transport: transport, timeSource: clock.timeSource, jitter: { 1 })
        do {
            _ = try await client.assumeRoleWithWebIdentity(Self.request, webIdentityToken: Self.token)
            return nil
        } catch let error as WIFCredentialsError {
            return error
        }
    }

    @Test func aSilentSTSFailsTheCallWithinTheDefaultDeadlineNamingTheEndpoint() async throws {
        let clock = TestClock(sleepsMoveClock: true)
        let transport = SilentTransport(clock: clock)
        let configuration = STSClient.Configuration(region: "eu-west-1", endpoint: "http://127.0.0.1:9/")
        #expect(configuration.deadline == nil)
        let start = clock.now
        let error = try #require(try await self.call(configuration, clock: clock, transport: transport))
        // One attempt of 15 s instead of three of 30 s: the call's deadline bounds the attempt.
        #expect(transport.timeouts == [.seconds(15)])
        #expect(clock.now.timeIntervalSince(start) <= 15)
        #expect(error.code == .network)
        #expect(error.reason == "STS at http://127.0.0.1:9/ did not answer within 15 s")
    }

    @Test func retriesShareTheDeadlineAndTheLastAttemptGetsWhatIsLeft() async throws {
        let clock = TestClock(sleepsMoveClock: true)
        let transport = SilentTransport(clock: clock)
        let configuration = STSClient.Configuration(
            region: "eu-west-1", endpoint: "http://127.0.0.1:9/",
            retry: .init(maxAttempts: 5, baseDelay: .milliseconds(500), maxDelay: .seconds(1)),
            timeout: .seconds(4), deadline: .seconds(10))
        let start = clock.now
        let error = try #require(try await self.call(configuration, clock: clock, transport: transport))
        // 4 s, a 0.5 s wait, 4 s, a 1 s wait, then the 0.5 s that is left.
        #expect(transport.timeouts == [.seconds(4), .seconds(4), .milliseconds(500)])
        #expect(clock.sleeps == [.milliseconds(500), .seconds(1)])
        #expect(clock.now.timeIntervalSince(start) <= 10)
        #expect(error.reason == "STS at http://127.0.0.1:9/ did not answer within 500 ms")
    }

    @Test func aDeadlineThatIsNotPositiveIsRefused() {
        #expect {
            try STSClient(
                configuration: .init(region: "eu-west-1", deadline: .zero), environment: [:],
                transport: SilentTransport(clock: TestClock()), timeSource: TestClock().timeSource)
        } throws: { error in
            (error as? WIFCredentialsError)?.reason == "STS deadline is 0.0 seconds; it must be positive"
        }
    }

    @Test func theEnvironmentSetsTheDeadlineWhenTheConfigurationDoesNot() throws {
        let transport = SilentTransport(clock: TestClock())
        func client(_ deadline: Duration?, _ environment: [String: String]) throws -> STSClient {
            try STSClient(
                configuration: .init(region: "eu-west-1", deadline: deadline), environment: environment, transport: transport,
                timeSource: TestClock().timeSource)
        }
        #expect(try client(nil, [:]).deadline == .seconds(15))
        #expect(try client(nil, ["WIF_STS_DEADLINE": "2.5"]).deadline == .milliseconds(2500))
        #expect(try client(.seconds(4), ["WIF_STS_DEADLINE": "2.5"]).deadline == .seconds(4))
        for bad in ["0", "-1", "soon", "nan", "100000"] {
            #expect {
                try client(nil, ["WIF_STS_DEADLINE": bad])
            } throws: { error in
                (error as? WIFCredentialsError)?.reason == "WIF_STS_DEADLINE '\(bad)' is not a number of seconds more than 0 and at most 86400"
            }
        }
    }

    @Test func aListenerThatNeverAnswersFailsWithinTheDeadlineOverTheNetwork() async throws {
        let listener = try SilentListener()
        let port = listener.port
        let client = try STSClient(
            configuration: .init(region: "eu-west-1", endpoint: "http://127.0.0.1:\(port)", deadline: .seconds(1)),
            environment: [:])
        await #expect {
            _ = try await client.assumeRoleWithWebIdentity(Self.request, webIdentityToken: Self.token)
        } throws: { error in
            guard let error = error as? WIFCredentialsError else { return false }
            return error.code == .network && error.reason == "STS at http://127.0.0.1:\(port) did not answer within 1 s"
        }
    }
}
