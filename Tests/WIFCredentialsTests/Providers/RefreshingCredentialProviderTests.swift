import Foundation
import Logging
import Synchronization
import Testing
@testable import WIFCredentials
import WIFTestSupport

/// The provider end to end on a manual clock: sharing one refresh, cancellation, background refresh,
/// failure handling, invalidation, configuration checks and logging.
// The limit only stops a run that would hang: a thousand callers on a machine whose other suites hold the
// cooperative threads can take more than a minute to reach the gate.
@Suite(.timeLimit(.minutes(4))) struct RefreshingCredentialProviderTests {
    typealias Configuration = RefreshingCredentialProvider.Configuration

    static let accessDenied = WIFCredentialsError.service(
        AWSServiceError(code: "AccessDenied", message: "Not authorized", requestId: "req-1", httpStatus: 403)
    )

    /// A provider over a controllable source, seeded with 1-hour credentials (15-minute advisory
    /// window) that were fetched at the clock's start.
    struct Fixture: Sendable {
        let clock = ManualTimeSource()
        let start: Date
        let source: ControlledCredentialSource
        let provider: RefreshingCredentialProvider
        let seeded: AWSCredentials?

        init(configuration: Configuration = .init(), seed: Bool = true) async throws {
            self.start = self.clock.now
            self.source = ControlledCredentialSource(clock: self.clock)
            self.provider = RefreshingCredentialProvider(source: self.source, configuration: configuration, timeSource: self.clock.timeSource)
            if seed {
                let seeded = try await self.provider.getCredentials()
                #expect(self.source.calls == 1)
                self.seeded = seeded
            } else {
                self.seeded = nil
            }
        }

        /// Moves the clock to `secondsLeft` before the seeded credentials expire.
        func moveTo(secondsLeft: Double) {
            self.clock.set(to: self.start.addingTimeInterval(3_600 - secondsLeft))
        }

        /// Waits until `count` callers wait for the refresh in flight.
        /// Polls until `count` callers wait on the refresh. A test past its time limit is cancelled: it then
        /// opens the gate and fails, instead of spinning and holding its callers, and the threads every
        /// other test runs on, forever.
        func waitForWaitingCallers(_ count: Int) async throws {
            while await self.provider.cache.waitingCallerCount < count {
                if Task.isCancelled {
                    self.source.openGate()
                    throw CancellationError()
                }
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
    }

    // MARK: One refresh for everyone

    @Test(arguments: [true, false])
    func thousandConcurrentCallersAtExpiryShareOneSourceCall(seeded: Bool) async throws {
        let fixture = try await Fixture(seed: seeded)
        fixture.moveTo(secondsLeft: 0)
        fixture.source.closeGate()
        let callsBefore = fixture.source.calls

        let results = try await withThrowingTaskGroup(of: AWSCredentials.self) { group in
            for _ in 0..<1_000 {
                group.addTask { try await fixture.provider.getCredentials() }
            }
            try await fixture.source.waitUntilCalled(times: callsBefore + 1)
            try await fixture.waitForWaitingCallers(1_000)
            #expect(fixture.source.calls == callsBefore + 1)
            fixture.source.openGate()
            var results: [AWSCredentials] = []
            for try await credentials in group { results.append(credentials) }
            return results
        }

        #expect(fixture.source.calls == callsBefore + 1)
        #expect(results.count == 1_000)
        let refreshed = try #require(results.first)
        #expect(refreshed != fixture.seeded)
        #expect(results.allSatisfy { $0 == refreshed })
        #expect(try await fixture.provider.getCredentials() == refreshed)
        #expect(fixture.source.calls == callsBefore + 1)
    }

    @Test func advisoryCallersWaitForTheSharedRefreshByDefault() async throws {
        let fixture = try await Fixture()
        fixture.moveTo(secondsLeft: 300)
        fixture.source.closeGate()
        let first = Task { try await fixture.provider.getCredentials() }
        let second = Task { try await fixture.provider.getCredentials() }
        try await fixture.source.waitUntilCalled(times: 2)
        try await fixture.waitForWaitingCallers(2)
        #expect(fixture.source.calls == 2)
        fixture.source.openGate()
        let refreshed = try await first.value
        #expect(try await second.value == refreshed)
        #expect(refreshed != fixture.seeded)
        #expect(fixture.source.calls == 2)
    }

    // MARK: Cancellation

    @Test func cancelledCallerLeavesAtOnceAndTheRefreshStillServesTheOthers() async throws {
        let fixture = try await Fixture()
        fixture.moveTo(secondsLeft: -10)
        fixture.source.closeGate()

        let cancelled = Task { try await fixture.provider.getCredentials() }
        let patient = Task { try await fixture.provider.getCredentials() }
        try await fixture.waitForWaitingCallers(2)

        cancelled.cancel()
        // The gate is still closed: the cancelled caller cannot have waited for the source.
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(await fixture.provider.cache.isRefreshing)
        #expect(await fixture.provider.cache.waitingCallerCount == 1)

        fixture.source.openGate()
        let refreshed = try await patient.value
        #expect(refreshed != fixture.seeded)
        #expect(try await fixture.provider.getCredentials() == refreshed)
        #expect(fixture.source.calls == 2)
    }

    @Test func cancellingTheRefreshEndsItForItsWaitersAndTheNextRequestRefreshesAgain() async throws {
        let calls = Mutex(0)
        let provider = RefreshingCredentialProvider(timeSource: ManualTimeSource().timeSource) { _ in
            let number = calls.withLock { count -> Int in
                count += 1
                return count
            }
            // The first refresh hangs until it is cancelled; a real sleep that cancellation ends at once.
            if number == 1 { try await Task.sleep(for: .seconds(600)) }
            return AWSCredentials(accessKeyId: "ASIAAFTERCANCEL\(number)", secretAccessKey: "s")
        }
        let waiter = Task { try await provider.getCredentials() }
        while await provider.cache.waitingCallerCount < 1 { await Task.yield() }
        await provider.cancelRefresh()
        let error = await #expect(throws: WIFCredentialsError.self) { try await waiter.value }
        #expect(error?.code == .noCredentials)
        #expect(await provider.cache.isRefreshing == false)
        #expect(try await provider.getCredentials().accessKeyId == "ASIAAFTERCANCEL2")
    }

    @Test func refreshCompletesAndIsCachedWhenItsOnlyCallerIsCancelled() async throws {
        let fixture = try await Fixture(seed: false)
        fixture.source.closeGate()
        let caller = Task { try await fixture.provider.getCredentials() }
        try await fixture.waitForWaitingCallers(1)
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }

        fixture.source.openGate()
        await fixture.provider.cache.waitForRefresh()
        let credentials = try await fixture.provider.getCredentials()
        #expect(credentials.accessKeyId == "ASIASOURCE1")
        #expect(fixture.source.calls == 1)
    }

    @Test func alreadyCancelledCallerStillGetsFreshCachedCredentials() async throws {
        let fixture = try await Fixture()
        let caller = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await fixture.provider.getCredentials()
        }
        #expect(try await caller.value == fixture.seeded)
    }

    // MARK: Background advisory refresh

    @Test func backgroundModeServesCachedCredentialsUntilTheMandatoryWindow() async throws {
        let fixture = try await Fixture(configuration: Configuration(refresh: .backgroundAdvisoryRefresh))
        fixture.moveTo(secondsLeft: 300)
        fixture.source.closeGate()

        // The source is blocked, yet advisory callers get the cached credentials straight away.
        #expect(try await fixture.provider.getCredentials() == fixture.seeded)
        try await fixture.source.waitUntilCalled(times: 2)
        #expect(try await fixture.provider.getCredentials() == fixture.seeded)
        #expect(fixture.source.calls == 2)
        #expect(await fixture.provider.cache.waitingCallerCount == 0)

        // In the mandatory window callers wait for the same refresh.
        fixture.moveTo(secondsLeft: 30)
        let mandatory = Task { try await fixture.provider.getCredentials() }
        try await fixture.waitForWaitingCallers(1)
        fixture.source.openGate()
        let refreshed = try await mandatory.value
        #expect(refreshed != fixture.seeded)
        #expect(try await fixture.provider.getCredentials() == refreshed)
        #expect(fixture.source.calls == 2)
    }

    @Test func backgroundRefreshResultReplacesTheCacheWithoutAnyCallerWaiting() async throws {
        let fixture = try await Fixture(configuration: Configuration(refresh: .backgroundAdvisoryRefresh))
        fixture.moveTo(secondsLeft: 300)
        #expect(try await fixture.provider.getCredentials() == fixture.seeded)
        await fixture.provider.cache.waitForRefresh()
        let refreshed = try await fixture.provider.getCredentials()
        #expect(refreshed.accessKeyId == "ASIASOURCE2")
        #expect(fixture.source.calls == 2)
    }

    @Test func backgroundRefreshFailureBacksOff() async throws {
        let fixture = try await Fixture(configuration: Configuration(refresh: .backgroundAdvisoryRefresh))
        fixture.moveTo(secondsLeft: 600)
        fixture.source.failNext(with: WIFCredentialsError.network("connection reset"))
        #expect(try await fixture.provider.getCredentials() == fixture.seeded)
        await fixture.provider.cache.waitForRefresh()
        #expect(fixture.source.calls == 2)

        let limited = try await fixture.provider.cache.resolve(logger: Logger.noop)
        #expect(limited.credentials == fixture.seeded)
        #expect(limited.rateLimited)
        #expect(fixture.source.calls == 2)

        fixture.clock.advance(by: .seconds(420))
        #expect(try await fixture.provider.getCredentials() == fixture.seeded)
        await fixture.provider.cache.waitForRefresh()
        #expect(fixture.source.calls == 3)
        #expect(try await fixture.provider.getCredentials().accessKeyId == "ASIASOURCE3")
    }

    @Test func backgroundNonRecoverableFailureIsRaisedOnlyToCallersThatMustWait() async throws {
        let fixture = try await Fixture(configuration: Configuration(refresh: .backgroundAdvisoryRefresh))
        fixture.moveTo(secondsLeft: 600)
        fixture.source.failNext(with: Self.accessDenied)
        #expect(try await fixture.provider.getCredentials() == fixture.seeded)
        await fixture.provider.cache.waitForRefresh()

        // Still valid: served. Rejected by a service: the cached error is raised without a source call.
        #expect(try await fixture.provider.getCredentials() == fixture.seeded)
        let seeded = try #require(fixture.seeded)
        await fixture.provider.invalidate(accessKeyId: seeded.accessKeyId)
        await #expect(throws: Self.accessDenied) { try await fixture.provider.getCredentials() }
        #expect(fixture.source.calls == 2)

        fixture.clock.advance(by: .seconds(5))
        #expect(try await fixture.provider.getCredentials().accessKeyId == "ASIASOURCE3")
    }

    // MARK: Failures never stick

    @Test func failuresNeverStick() async throws {
        // Nothing cached: every call tries again at once.
        let empty = try await Fixture(seed: false)
        for attempt in 1...3 {
            empty.source.failNext(with: WIFCredentialsError.network("unreachable"))
            await #expect(throws: WIFCredentialsError.noCredentials("")) { try await empty.provider.getCredentials() }
            #expect(empty.source.calls == attempt)
        }
        #expect(try await empty.provider.getCredentials().accessKeyId == "ASIASOURCE4")

        // Cached: after each backoff the source is asked again.
        let cached = try await Fixture()
        cached.moveTo(secondsLeft: -10)
        for attempt in 1...3 {
            cached.source.failNext(with: WIFCredentialsError.network("unreachable"))
            #expect(try await cached.provider.getCredentials() == cached.seeded)
            #expect(try await cached.provider.getCredentials() == cached.seeded)
            #expect(cached.source.calls == 1 + attempt)
            cached.clock.advance(by: .seconds(420))
        }
        #expect(try await cached.provider.getCredentials().accessKeyId == "ASIASOURCE5")

        // Non-recoverable: raised, cached briefly, then retried.
        let rejected = try await Fixture(seed: false)
        for attempt in 1...3 {
            rejected.source.failNext(with: Self.accessDenied)
            await #expect(throws: Self.accessDenied) { try await rejected.provider.getCredentials() }
            await #expect(throws: Self.accessDenied) { try await rejected.provider.getCredentials() }
            #expect(rejected.source.calls == attempt)
            rejected.clock.advance(by: .seconds(5))
        }
        #expect(try await rejected.provider.getCredentials().accessKeyId == "ASIASOURCE4")
    }

    struct ConnectionDropped: Error, CustomStringConvertible {
        var description: String { "dropped while sending token=do-not-leak" }
    }

    /// Errors and whether the cache treats them as recoverable.
    static let classified: [(String, any Error & Sendable, Bool)] = [
        ("network", WIFCredentialsError.network("reset"), true),
        ("malformed response", WIFCredentialsError.malformedResponse("truncated XML"), true),
        ("throttling", WIFCredentialsError.service(AWSServiceError(code: "Throttling", httpStatus: 400)), true),
        ("server error", WIFCredentialsError.service(AWSServiceError(code: "Weird", httpStatus: 503)), true),
        ("rejected token", WIFCredentialsError.service(AWSServiceError(code: "InvalidIdentityToken", httpStatus: 400)), true),
        ("foreign error", ConnectionDropped(), true),
        ("cancellation inside the source", CancellationError(), true),
        ("access denied", accessDenied, false),
        ("invalid parameter", WIFCredentialsError.invalidParameter("role ARN too short"), false),
        ("token unavailable", WIFCredentialsError.tokenUnavailable("no such file"), false),
    ]

    @Test(arguments: 0..<classified.count)
    func recoverableErrorsServeCachedCredentialsAndOthersAreRaised(index: Int) async throws {
        let (_, error, recoverable) = Self.classified[index]
        #expect(CredentialRefreshCache.isRecoverable(error) == recoverable)
        let fixture = try await Fixture()
        fixture.moveTo(secondsLeft: 30)
        fixture.source.failNext(with: error)
        if recoverable {
            #expect(try await fixture.provider.getCredentials() == fixture.seeded)
        } else {
            let thrown = await #expect(throws: WIFCredentialsError.self) { try await fixture.provider.getCredentials() }
            #expect(thrown?.description == (error as? WIFCredentialsError)?.description)
        }
        #expect(fixture.source.calls == 2)
    }

    @Test func foreignErrorWithNothingCachedIsReportedByTypeWithoutItsText() async throws {
        let fixture = try await Fixture(seed: false)
        fixture.source.failNext(with: ConnectionDropped())
        let error = await #expect(throws: WIFCredentialsError.self) { try await fixture.provider.getCredentials() }
        #expect(error?.code == .noCredentials)
        #expect(error?.reason.contains("ConnectionDropped") == true)
        #expect(error?.description.contains("do-not-leak") == false)
    }

    @Test func staleCredentialsWithNothingCachedRaiseNoCredentialsThenRecover() async throws {
        let fixture = try await Fixture(seed: false)
        fixture.source.lifetime = 0
        let error = await #expect(throws: WIFCredentialsError.self) { try await fixture.provider.getCredentials() }
        #expect(error?.code == .noCredentials)
        #expect(error?.reason.contains("expired") == true)
        fixture.source.lifetime = 3_600
        #expect(try await fixture.provider.getCredentials().accessKeyId == "ASIASOURCE2")
    }

    // MARK: Invalidation

    @Test func invalidateRefreshesAndIsPassedToTheSource() async throws {
        let fixture = try await Fixture()
        let seeded = try #require(fixture.seeded)

        await fixture.provider.invalidate(accessKeyId: "ASIASOMETHINGELSE")
        #expect(try await fixture.provider.getCredentials() == seeded)
        #expect(fixture.source.calls == 1)

        await fixture.provider.invalidate(accessKeyId: seeded.accessKeyId)
        #expect(fixture.source.invalidated == ["ASIASOMETHINGELSE", seeded.accessKeyId])
        let refreshed = try await fixture.provider.getCredentials()
        #expect(refreshed.accessKeyId == "ASIASOURCE2")
        #expect(fixture.source.calls == 2)
        #expect(try await fixture.provider.getCredentials() == refreshed)
    }

    @Test func invalidateWithNothingCachedChangesNothing() async throws {
        let fixture = try await Fixture(seed: false)
        await fixture.provider.invalidate(accessKeyId: "ASIASOURCE1")
        #expect(try await fixture.provider.getCredentials().accessKeyId == "ASIASOURCE1")
        #expect(fixture.source.calls == 1)
    }

    // MARK: Closure source

    @Test func closureSourceIsCalledOncePerRefreshWithTheCallersLogger() async throws {
        let clock = ManualTimeSource()
        let calls = Mutex(0)
        let recorder = TestLogRecorder()
        let provider = RefreshingCredentialProvider(timeSource: clock.timeSource) { logger in
            logger.debug("fetching from the closure")
            let number = calls.withLock { count -> Int in
                count += 1
                return count
            }
            return AWSCredentials(accessKeyId: "ASIACLOSURE\(number)", secretAccessKey: "s", expiration: clock.now.addingTimeInterval(600))
        }
        #expect(try await provider.getCredentials(logger: recorder.logger).accessKeyId == "ASIACLOSURE1")
        #expect(try await provider.getCredentials().accessKeyId == "ASIACLOSURE1")
        clock.advance(by: .seconds(301)) // 10-minute credentials: 5-minute advisory window
        #expect(try await provider.getCredentials().accessKeyId == "ASIACLOSURE2")
        #expect(calls.withLock { $0 } == 2)
        #expect(recorder.records.contains { $0.message == "fetching from the closure" })
        #expect(provider.description == "RefreshingCredentialProvider(source: closure)")
    }
}
