import Foundation
import Logging
import Synchronization
import Testing
@testable import WIFCredentials
import WIFTestSupport

/// Runs the 24 cross-SDK credential refresh scenarios (Fixtures/credential-refresh) against the state
/// machine alone and against the actor-driven cache, both with the default configuration.
// The limit catches a scenario that hangs; it is wide because on a loaded two-core CI machine a test may
// wait minutes for a thread before it starts.
@Suite(.timeLimit(.minutes(4))) struct CredentialRefreshVectorTests {
    @Test func fileHoldsTwentyFourScenarios() throws {
        let scenarios = try CredentialRefreshScenario.loadAll()
        #expect(scenarios.count == 24)
    }

    @Test func everyKeyInTheFileIsUnderstood() throws {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: CredentialRefreshScenario.fileURL()))
        let cases = try #require(json as? [[String: Any]])
        let known: [String: Set<String>] = [
            "case": ["documentation", "given", "steps"],
            "given": ["cachedCredentials", "accessKeyId", "refreshBackoffSeconds", "configuredAdvisoryWindowSeconds"],
            "step": ["type", "response", "lifetimeSeconds", "seconds", "rejectedAccessKeyId", "documentation", "expected"],
            "expected": ["result", "sourceContacted", "rateLimited", "advisoryWindowSeconds"],
        ]
        for (index, testCase) in cases.enumerated() {
            #expect(Set(testCase.keys).isSubset(of: known["case", default: []]), "case \(index)")
            let given = try #require(testCase["given"] as? [String: Any])
            #expect(Set(given.keys).isSubset(of: known["given", default: []]), "case \(index) given")
            let steps = try #require(testCase["steps"] as? [[String: Any]])
            for step in steps {
                #expect(Set(step.keys).isSubset(of: known["step", default: []]), "case \(index) step")
                if let expected = step["expected"] as? [String: Any] {
                    #expect(Set(expected.keys).isSubset(of: known["expected", default: []]), "case \(index) expected")
                    // Every getCredentials step pins all three observations.
                    #expect(expected["sourceContacted"] is Bool && expected["rateLimited"] is Bool, "case \(index)")
                }
            }
        }
    }

    @Test func defaultConfigurationIsTheOneTheScenariosAssume() throws {
        let defaults = RefreshingCredentialProvider.Configuration()
        let backoffs = Set(try CredentialRefreshScenario.loadAll().compactMap(\.given.refreshBackoffSeconds))
        #expect(backoffs == [420])
        for backoff in backoffs {
            #expect(defaults.refreshBackoff == .seconds(backoff))
        }
    }

    @Test(arguments: try CredentialRefreshScenario.loadAll())
    func stateMachine(_ scenario: CredentialRefreshScenario) async throws {
        let harness = StateMachineHarness(scenario: scenario)
        try await scenario.run(on: harness)
    }

    @Test(arguments: try CredentialRefreshScenario.loadAll())
    func provider(_ scenario: CredentialRefreshScenario) async throws {
        let harness = CacheHarness(scenario: scenario)
        try await scenario.run(on: harness)
    }
}

// MARK: - Scenario model

/// One scenario of `credential-refresh-tests.json`.
struct CredentialRefreshScenario: Decodable, Sendable, CustomTestStringConvertible {
    enum CachedState: String, Decodable, Sendable {
        case none, valid, advisory, mandatory, expired

        /// Seconds of validity left when the scenario starts (see the fixture README).
        var secondsLeft: Double? {
            switch self {
            case .none: return nil
            case .valid: return 1_800
            case .advisory: return 300
            case .mandatory: return 30
            case .expired: return -10
            }
        }
    }

    struct Given: Decodable, Sendable {
        var cachedCredentials: CachedState
        var accessKeyId: String?
        var refreshBackoffSeconds: Int?
        var configuredAdvisoryWindowSeconds: Int?
    }

    enum StepType: String, Decodable, Sendable {
        case getCredentials, advanceTime, invalidate
    }

    enum Response: String, Decodable, Sendable {
        case freshCredentials, staleCredentials, error, nonRecoverableError
    }

    enum ResultKind: String, Decodable, Sendable {
        case newCredentials, cachedCredentials, noCredentialsError, nonRecoverableError
    }

    struct Expected: Decodable, Sendable {
        var result: ResultKind
        var sourceContacted: Bool
        var rateLimited: Bool
        var advisoryWindowSeconds: Int?
    }

    struct Step: Decodable, Sendable {
        var type: StepType
        var response: Response?
        var lifetimeSeconds: Int?
        var seconds: Int?
        var rejectedAccessKeyId: String?
        var documentation: String?
        var expected: Expected?
    }

    var number = 0
    var documentation: String
    var given: Given
    var steps: [Step]

    private enum CodingKeys: String, CodingKey {
        case documentation, given, steps
    }

    var testDescription: String { "#\(self.number) \(self.documentation.prefix(90))" }

    static func fileURL() throws -> URL {
        let fixtures = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return fixtures.appending(path: "credential-refresh").appending(path: "credential-refresh-tests.json")
    }

    static func loadAll() throws -> [CredentialRefreshScenario] {
        let data = try Data(contentsOf: try Self.fileURL())
        var scenarios = try JSONDecoder().decode([CredentialRefreshScenario].self, from: data)
        for index in scenarios.indices { scenarios[index].number = index + 1 }
        return scenarios
    }

    /// The configuration a scenario runs with: the default, plus a customer advisory window if given.
    var configuration: RefreshingCredentialProvider.Configuration {
        var configuration = RefreshingCredentialProvider.Configuration()
        if let seconds = self.given.configuredAdvisoryWindowSeconds {
            configuration.advisoryWindow = .seconds(seconds)
        }
        return configuration
    }

    /// Seeds the harness as `given` says, then plays and checks every step.
    func run(on harness: some CredentialRefreshHarness) async throws {
        var seeded: AWSCredentials?
        if let secondsLeft = self.given.cachedCredentials.secondsLeft {
            let accessKeyId = self.given.accessKeyId ?? "ASIACACHEDEXAMPLE"
            harness.source.script(.seed(accessKeyId: accessKeyId, lifetime: 3_600))
            let seed = await harness.getCredentials()
            let credentials = try #require(try? seed.outcome.get(), "seeding \(self.testDescription)")
            #expect(credentials.accessKeyId == accessKeyId)
            #expect(await harness.advisoryWindow == 900)
            seeded = credentials
            harness.clock.advance(seconds: 3_600 - secondsLeft)
        }

        for (index, step) in self.steps.enumerated() {
            let label = Comment(rawValue: "\(self.testDescription) — step \(index + 1) (\(step.type.rawValue))")
            switch step.type {
            case .advanceTime:
                harness.clock.advance(seconds: Double(try #require(step.seconds, label)))
            case .invalidate:
                await harness.invalidate(accessKeyId: try #require(step.rejectedAccessKeyId, label))
            case .getCredentials:
                let expected = try #require(step.expected, label)
                harness.source.script(step.response.map { .respond($0, lifetime: Double($0 == .freshCredentials ? step.lifetimeSeconds ?? 3_600 : 0)) })
                let callsBefore = harness.source.calls
                let observation = await harness.getCredentials()
                let produced = harness.source.lastProduced

                #expect((harness.source.calls > callsBefore) == expected.sourceContacted, label)
                #expect(harness.source.calls - callsBefore <= 1, label)
                #expect(observation.rateLimited == expected.rateLimited, label)
                switch expected.result {
                case .newCredentials:
                    let credentials = try #require(try? observation.outcome.get(), label)
                    #expect(produced != nil && credentials == produced, label)
                    #expect(credentials.accessKeyId.hasPrefix("ASIAFRESH"), label)
                case .cachedCredentials:
                    let credentials = try #require(try? observation.outcome.get(), label)
                    #expect(seeded != nil && credentials == seeded, label)
                case .noCredentialsError:
                    #expect(throws: WIFCredentialsError.noCredentials(""), label) { try observation.outcome.get() }
                case .nonRecoverableError:
                    let error = #expect(throws: WIFCredentialsError.self, label) { try observation.outcome.get() }
                    #expect(error?.code == .service, label)
                    #expect(error?.serviceError?.code == "AccessDenied", label)
                }
                if let window = expected.advisoryWindowSeconds {
                    #expect(await harness.advisoryWindow == TimeInterval(window), label)
                }
            }
        }
    }
}

// MARK: - Harnesses

/// What one `getCredentials` call did.
struct CredentialRefreshObservation: Sendable {
    var outcome: Result<AWSCredentials, any Error>
    var rateLimited: Bool
}

/// A refreshing cache under test, its clock and its source.
protocol CredentialRefreshHarness: Sendable {
    var clock: ManualTimeSource { get }
    var source: ScriptedCredentialSource { get }
    func getCredentials() async -> CredentialRefreshObservation
    func invalidate(accessKeyId: String) async
    var advisoryWindow: TimeInterval? { get async }
}

/// Drives `CredentialRefreshStateMachine` directly, performing its actions synchronously.
final class StateMachineHarness: CredentialRefreshHarness {
    let clock = ManualTimeSource()
    let source: ScriptedCredentialSource
    private let machine: Mutex<CredentialRefreshStateMachine<Int>>

    init(scenario: CredentialRefreshScenario) {
        self.source = ScriptedCredentialSource(clock: self.clock)
        self.machine = Mutex(CredentialRefreshStateMachine(settings: scenario.configuration.settings))
    }

    func getCredentials() async -> CredentialRefreshObservation {
        let now = self.clock.now
        let action = self.machine.withLock { $0.getCredentials(now: now, makeRefresh: { 1 }) }
        switch action {
        case .useCached(let credentials, let rateLimited):
            return .init(outcome: .success(credentials), rateLimited: rateLimited)
        case .throwCachedError(let error):
            return .init(outcome: .failure(error), rateLimited: false)
        case .startRefresh:
            let completion: CredentialRefreshStateMachine<Int>.Completion
            do {
                let credentials = try self.source.fetch()
                completion = self.machine.withLock { $0.refreshSucceeded(credentials, now: now) }
            } catch {
                let recoverable = CredentialRefreshCache.isRecoverable(error)
                completion = self.machine.withLock { $0.refreshFailed(error, recoverable: recoverable, now: now) }
            }
            return .init(outcome: completion.result, rateLimited: false)
        case .startBackgroundRefresh, .waitForRefresh:
            Issue.record("sequential calls with the default configuration never background or wait: \(action)")
            return .init(outcome: .failure(CancellationError()), rateLimited: false)
        }
    }

    func invalidate(accessKeyId: String) async {
        self.machine.withLock { _ = $0.invalidate(accessKeyId: accessKeyId) }
    }

    var advisoryWindow: TimeInterval? { self.machine.withLock { $0.advisoryWindow } }
}

/// Drives the actor behind `RefreshingCredentialProvider` on a manual clock.
final class CacheHarness: CredentialRefreshHarness {
    let clock = ManualTimeSource()
    let source: ScriptedCredentialSource
    let cache: CredentialRefreshCache

    init(scenario: CredentialRefreshScenario) {
        let source = ScriptedCredentialSource(clock: self.clock)
        self.source = source
        self.cache = CredentialRefreshCache(
            configuration: scenario.configuration,
            timeSource: self.clock.timeSource,
            fetch: { _ in try source.fetch() }
        )
    }

    func getCredentials() async -> CredentialRefreshObservation {
        let observation: CredentialRefreshObservation
        do {
            let resolution = try await self.cache.resolve(logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            observation = .init(outcome: .success(resolution.credentials), rateLimited: resolution.rateLimited)
        } catch {
            observation = .init(outcome: .failure(error), rateLimited: false)
        }
        #expect(await self.cache.isRefreshing == false, "a finished call leaves no refresh in flight")
        return observation
    }

    func invalidate(accessKeyId: String) async {
        await self.cache.invalidate(accessKeyId: accessKeyId, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    var advisoryWindow: TimeInterval? { get async { await self.cache.advisoryWindow } }
}

/// A credential source that answers what the scenario step says, once.
final class ScriptedCredentialSource: Sendable {
    enum Script: Sendable {
        case seed(accessKeyId: String, lifetime: TimeInterval)
        case respond(CredentialRefreshScenario.Response, lifetime: TimeInterval)
    }

    /// Raised when the source is called with nothing scripted.
    struct UnexpectedCall: Error {}

    private struct State {
        var script: Script?
        var calls = 0
        var lastProduced: AWSCredentials?
    }

    private let clock: ManualTimeSource
    private let state = Mutex(State())

    init(clock: ManualTimeSource) {
        self.clock = clock
    }

    /// Sets the answer to the next call; `nil` makes any call fail with ``UnexpectedCall``.
    func script(_ script: Script?) {
        self.state.withLock {
            $0.script = script
            $0.lastProduced = nil
        }
    }

    var calls: Int { self.state.withLock { $0.calls } }

    /// The credentials the source returned since the last `script`, if any.
    var lastProduced: AWSCredentials? { self.state.withLock { $0.lastProduced } }

    func fetch() throws -> AWSCredentials {
        let now = self.clock.now
        return try self.state.withLock { state in
            state.calls += 1
            let number = state.calls
            let script = state.script
            state.script = nil
            let credentials: AWSCredentials
            switch script {
            case nil:
                throw UnexpectedCall()
            case .seed(let accessKeyId, let lifetime):
                credentials = Self.credentials(accessKeyId: accessKeyId, number: number, expiration: now.addingTimeInterval(lifetime))
            case .respond(.freshCredentials, let lifetime):
                credentials = Self.credentials(accessKeyId: "ASIAFRESH\(number)", number: number, expiration: now.addingTimeInterval(lifetime))
            case .respond(.staleCredentials, _):
                credentials = Self.credentials(accessKeyId: "ASIASTALE\(number)", number: number, expiration: now)
            case .respond(.error, _):
                throw WIFCredentialsError.network("connection reset while calling STS")
            case .respond(.nonRecoverableError, _):
                throw WIFCredentialsError.service(
                    AWSServiceError(code: "AccessDenied", message: "Not authorized to perform sts:AssumeRoleWithWebIdentity", httpStatus: 403)
                )
            }
            state.lastProduced = credentials
            return credentials
        }
    }

    private static func credentials(accessKeyId: String, number: Int, expiration: Date) -> AWSCredentials {
        AWSCredentials(
            accessKeyId: accessKeyId,
            secretAccessKey: "secret-\(number)",
            sessionToken: "token-value-\(number)",
            expiration: expiration
        )
    }
}
