import Foundation
import Testing
@testable import WIFCredentials

/// The refresh rules on the bare state machine: no actor, no source, no clock but the dates passed in.
@Suite struct CredentialRefreshStateMachineTests {
    typealias Machine = CredentialRefreshStateMachine<Int>

    /// A comparable summary of a `GetAction`.
    enum Act: Equatable {
        case cached(String, rateLimited: Bool)
        case cachedError(String)
        case start(Int, Machine.RefreshReason)
        case background(Int, serving: String)
        case wait(Int)

        init(_ action: Machine.GetAction) {
            switch action {
            case .useCached(let credentials, let rateLimited): self = .cached(credentials.accessKeyId, rateLimited: rateLimited)
            case .throwCachedError(let error): self = .cachedError(Machine.safeDescription(of: error))
            case .startRefresh(let refresh, let reason): self = .start(refresh, reason)
            case .startBackgroundRefresh(let refresh, let credentials): self = .background(refresh, serving: credentials.accessKeyId)
            case .waitForRefresh(let refresh): self = .wait(refresh)
            }
        }
    }

    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static let accessDenied = WIFCredentialsError.service(AWSServiceError(code: "AccessDenied", httpStatus: 403))

    static func settings(
        advisoryWindowOverride: TimeInterval? = nil,
        nonRecoverableErrorTTL: TimeInterval = 5,
        background: Bool = false
    ) -> CredentialRefreshSettings {
        CredentialRefreshSettings(
            advisoryWindowOverride: advisoryWindowOverride,
            mandatoryWindow: 60,
            refreshBackoff: 420,
            nonRecoverableErrorTTL: nonRecoverableErrorTTL,
            backgroundAdvisoryRefresh: background
        )
    }

    static func credentials(_ accessKeyId: String, expiresAt expiration: Date?) -> AWSCredentials {
        AWSCredentials(accessKeyId: accessKeyId, secretAccessKey: "secret", sessionToken: "token", expiration: expiration)
    }

    /// A counter standing in for the owner's refresh handles, recording how many were made.
    final class Handles {
        var made = 0
        func make() -> Int {
            self.made += 1
            return self.made
        }
    }

    /// A machine that received `accessKeyId` with `lifetime` seconds to live at `start`.
    static func seeded(
        _ accessKeyId: String = "ASIAFIRST",
        lifetime: TimeInterval? = 3_600,
        settings: CredentialRefreshSettings = settings()
    ) -> Machine {
        var machine = Machine(settings: settings)
        #expect(Act(machine.getCredentials(now: start, makeRefresh: { 0 })) == .start(0, .initial))
        let completion = machine.refreshSucceeded(credentials(accessKeyId, expiresAt: lifetime.map(start.addingTimeInterval)), now: start)
        #expect((try? completion.result.get())?.accessKeyId == accessKeyId)
        return machine
    }

    static func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    // MARK: Windows

    @Test(arguments: [
        (600.0, 300.0), (1_200, 300), (1_200.5, 900), (1_230, 900), (3_600, 900), (5_399, 900), (5_400, 3_600), (21_600, 3_600),
    ])
    func advisoryWindowFollowsTheLifetimeTable(lifetime: TimeInterval, window: TimeInterval) {
        let machine = Self.seeded(lifetime: lifetime)
        #expect(machine.advisoryWindow == window)
        #expect(machine.advisoryWindow(forLifetime: lifetime) == window)
    }

    @Test func configuredAdvisoryWindowReplacesTheTable() {
        let machine = Self.seeded(lifetime: 600, settings: Self.settings(advisoryWindowOverride: 120))
        #expect(machine.advisoryWindow == 120)
        #expect(machine.advisoryWindow(forLifetime: nil) == 120)
    }

    @Test func windowEdgesAreExclusive() {
        // 1-hour credentials: 15-minute advisory window, 1-minute mandatory window.
        let machine = Self.seeded()
        #expect(machine.urgency(now: Self.at(2_700)) == .fresh)
        #expect(machine.urgency(now: Self.at(2_700.5)) == .advisory)
        #expect(machine.urgency(now: Self.at(3_540)) == .advisory)
        #expect(machine.urgency(now: Self.at(3_540.5)) == .mandatory)
        #expect(machine.urgency(now: Self.at(3_600)) == .mandatory)
        #expect(machine.urgency(now: Self.at(99_999)) == .mandatory)
    }

    @Test func freshCredentialsAreServedWithoutARefresh() {
        var machine = Self.seeded()
        let handles = Handles()
        #expect(Act(machine.getCredentials(now: Self.at(2_700), makeRefresh: handles.make)) == .cached("ASIAFIRST", rateLimited: false))
        #expect(handles.made == 0)
    }

    @Test func credentialsWithoutExpiryAreNeverRefreshedUnlessRejected() {
        var machine = Self.seeded(lifetime: nil)
        #expect(machine.advisoryWindow == 3_600)
        #expect(Act(machine.getCredentials(now: .distantFuture, makeRefresh: { 1 })) == .cached("ASIAFIRST", rateLimited: false))
        let marked = machine.invalidate(accessKeyId: "ASIAFIRST")
        #expect(marked)
        #expect(Act(machine.getCredentials(now: .distantFuture, makeRefresh: { 1 })) == .start(1, .invalidated))
    }

    // MARK: One refresh in flight

    @Test func callersDuringARefreshWaitForIt() {
        var machine = Machine(settings: Self.settings())
        let handles = Handles()
        #expect(Act(machine.getCredentials(now: Self.start, makeRefresh: handles.make)) == .start(1, .initial))
        for _ in 0..<3 {
            #expect(Act(machine.getCredentials(now: Self.start, makeRefresh: handles.make)) == .wait(1))
        }
        #expect(handles.made == 1)
        #expect(machine.refreshInFlight == 1)
        _ = machine.refreshSucceeded(Self.credentials("ASIANEW", expiresAt: Self.at(3_600)), now: Self.start)
        #expect(machine.refreshInFlight == nil)
        #expect(Act(machine.getCredentials(now: Self.start, makeRefresh: handles.make)) == .cached("ASIANEW", rateLimited: false))
    }

    @Test(arguments: [(3_000.0, Machine.RefreshReason.advisory), (3_570, .mandatory), (3_700, .mandatory)])
    func blockingModeWaitsInEveryWindow(elapsed: TimeInterval, reason: Machine.RefreshReason) {
        var machine = Self.seeded()
        #expect(Act(machine.getCredentials(now: Self.at(elapsed), makeRefresh: { 7 })) == .start(7, reason))
        #expect(Act(machine.getCredentials(now: Self.at(elapsed), makeRefresh: { 8 })) == .wait(7))
    }

    @Test func backgroundModeServesAdvisoryCallersAndMakesMandatoryOnesWait() {
        var machine = Self.seeded(settings: Self.settings(background: true))
        let handles = Handles()
        #expect(Act(machine.getCredentials(now: Self.at(3_000), makeRefresh: handles.make)) == .background(1, serving: "ASIAFIRST"))
        #expect(Act(machine.getCredentials(now: Self.at(3_000), makeRefresh: handles.make)) == .cached("ASIAFIRST", rateLimited: false))
        #expect(Act(machine.getCredentials(now: Self.at(3_570), makeRefresh: handles.make)) == .wait(1))
        #expect(handles.made == 1)
    }

    @Test func backgroundModeRefreshesInTheForegroundInTheMandatoryWindowAndWhenEmpty() {
        var machine = Self.seeded(settings: Self.settings(background: true))
        #expect(Act(machine.getCredentials(now: Self.at(3_570), makeRefresh: { 1 })) == .start(1, .mandatory))

        var empty = Machine(settings: Self.settings(background: true))
        #expect(Act(empty.getCredentials(now: Self.start, makeRefresh: { 1 })) == .start(1, .initial))
    }

    // MARK: Recoverable failures

    @Test func recoverableFailureServesCachedCredentialsAndBacksOff() throws {
        var machine = Self.seeded()
        let failedAt = Self.at(3_700) // already expired
        #expect(Act(machine.getCredentials(now: failedAt, makeRefresh: { 1 })) == .start(1, .mandatory))
        let completion = machine.refreshFailed(WIFCredentialsError.network("reset"), recoverable: true, now: failedAt)
        guard case .failedServingCached(let served, _, let retryAfter) = completion else {
            Issue.record("expected cached credentials, got \(completion)")
            return
        }
        #expect(served.accessKeyId == "ASIAFIRST")
        #expect(retryAfter == failedAt.addingTimeInterval(420))
        #expect(machine.refreshInFlight == nil)

        let handles = Handles()
        #expect(Act(machine.getCredentials(now: failedAt.addingTimeInterval(419.5), makeRefresh: handles.make)) == .cached("ASIAFIRST", rateLimited: true))
        #expect(handles.made == 0)
        #expect(Act(machine.getCredentials(now: failedAt.addingTimeInterval(420), makeRefresh: handles.make)) == .start(1, .mandatory))
    }

    @Test func backoffAlsoAppliesInTheAdvisoryWindowAndInBackgroundMode() {
        for background in [false, true] {
            var machine = Self.seeded(settings: Self.settings(background: background))
            _ = machine.getCredentials(now: Self.at(3_000), makeRefresh: { 1 })
            _ = machine.refreshFailed(WIFCredentialsError.network("reset"), recoverable: true, now: Self.at(3_000))
            #expect(Act(machine.getCredentials(now: Self.at(3_100), makeRefresh: { 2 })) == .cached("ASIAFIRST", rateLimited: true))
        }
    }

    @Test func recoverableFailureWithNothingCachedRaisesNoCredentialsAndDoesNotBackOff() throws {
        var machine = Machine(settings: Self.settings())
        _ = machine.getCredentials(now: Self.start, makeRefresh: { 1 })
        let completion = machine.refreshFailed(WIFCredentialsError.network("connection refused"), recoverable: true, now: Self.start)
        let error = #expect(throws: WIFCredentialsError.self) { try completion.result.get() }
        #expect(error?.code == .noCredentials)
        #expect(error?.reason.contains("connection refused") == true)
        #expect(Act(machine.getCredentials(now: Self.start, makeRefresh: { 2 })) == .start(2, .initial))
    }

    @Test func staleCredentialsFromTheSourceAreARecoverableFailure() {
        var machine = Self.seeded()
        let now = Self.at(3_000)
        _ = machine.getCredentials(now: now, makeRefresh: { 1 })
        let completion = machine.refreshSucceeded(Self.credentials("ASIASTALE", expiresAt: now), now: now)
        guard case .failedServingCached(let served, let cause, let retryAfter) = completion else {
            Issue.record("expected cached credentials, got \(completion)")
            return
        }
        #expect(served.accessKeyId == "ASIAFIRST")
        #expect(retryAfter == now.addingTimeInterval(420))
        #expect(Machine.safeDescription(of: cause).contains("ASIASTALE"))
        #expect(machine.cachedCredentials?.accessKeyId == "ASIAFIRST")

        var empty = Machine(settings: Self.settings())
        _ = empty.getCredentials(now: now, makeRefresh: { 1 })
        let emptyCompletion = empty.refreshSucceeded(Self.credentials("ASIASTALE", expiresAt: now.addingTimeInterval(-1)), now: now)
        #expect(throws: WIFCredentialsError.noCredentials("")) { try emptyCompletion.result.get() }
        #expect(empty.cachedCredentials == nil)
    }

    @Test func successClearsTheBackoff() {
        var machine = Self.seeded()
        _ = machine.getCredentials(now: Self.at(3_000), makeRefresh: { 1 })
        _ = machine.refreshFailed(WIFCredentialsError.network("reset"), recoverable: true, now: Self.at(3_000))
        #expect(Act(machine.getCredentials(now: Self.at(3_420), makeRefresh: { 2 })) == .start(2, .advisory))
        _ = machine.refreshSucceeded(Self.credentials("ASIASECOND", expiresAt: Self.at(7_000)), now: Self.at(3_420))
        let marked = machine.invalidate(accessKeyId: "ASIASECOND")
        #expect(marked)
        #expect(Act(machine.getCredentials(now: Self.at(3_421), makeRefresh: { 3 })) == .start(3, .invalidated))
    }

    // MARK: Non-recoverable failures

    @Test func nonRecoverableErrorIsCachedForItsTTLOnly() {
        var machine = Self.seeded()
        let failedAt = Self.at(3_570)
        _ = machine.getCredentials(now: failedAt, makeRefresh: { 1 })
        let completion = machine.refreshFailed(Self.accessDenied, recoverable: false, now: failedAt)
        #expect(throws: Self.accessDenied) { try completion.result.get() }
        guard case .failedNonRecoverable(_, let cachedUntil) = completion else {
            Issue.record("expected a non-recoverable failure, got \(completion)")
            return
        }
        #expect(cachedUntil == failedAt.addingTimeInterval(5))

        let handles = Handles()
        #expect(Act(machine.getCredentials(now: failedAt.addingTimeInterval(4.5), makeRefresh: handles.make)) == .cachedError(Self.accessDenied.description))
        #expect(handles.made == 0)
        #expect(Act(machine.getCredentials(now: failedAt.addingTimeInterval(5), makeRefresh: handles.make)) == .start(1, .mandatory))
    }

    @Test func nonRecoverableErrorWithNothingCachedIsCachedToo() {
        var machine = Machine(settings: Self.settings())
        _ = machine.getCredentials(now: Self.start, makeRefresh: { 1 })
        _ = machine.refreshFailed(Self.accessDenied, recoverable: false, now: Self.start)
        #expect(Act(machine.getCredentials(now: Self.at(1), makeRefresh: { 2 })) == .cachedError(Self.accessDenied.description))
        #expect(Act(machine.getCredentials(now: Self.at(5), makeRefresh: { 2 })) == .start(2, .initial))
    }

    @Test func zeroErrorTTLCachesNothing() {
        var machine = Machine(settings: Self.settings(nonRecoverableErrorTTL: 0))
        _ = machine.getCredentials(now: Self.start, makeRefresh: { 1 })
        _ = machine.refreshFailed(Self.accessDenied, recoverable: false, now: Self.start)
        #expect(Act(machine.getCredentials(now: Self.start, makeRefresh: { 2 })) == .start(2, .initial))
    }

    @Test func backgroundModeServesStillValidCredentialsWhileAnErrorIsCached() {
        var machine = Self.seeded(settings: Self.settings(background: true))
        _ = machine.getCredentials(now: Self.at(3_000), makeRefresh: { 1 })
        _ = machine.refreshFailed(Self.accessDenied, recoverable: false, now: Self.at(3_000))
        #expect(Act(machine.getCredentials(now: Self.at(3_001), makeRefresh: { 2 })) == .cached("ASIAFIRST", rateLimited: false))
        let marked = machine.invalidate(accessKeyId: "ASIAFIRST")
        #expect(marked)
        #expect(Act(machine.getCredentials(now: Self.at(3_001), makeRefresh: { 2 })) == .cachedError(Self.accessDenied.description))
    }

    // MARK: Invalidation

    @Test func invalidateMatchesOnlyTheCachedAccessKeyId() {
        var empty = Machine(settings: Self.settings())
        let markedWhenEmpty = empty.invalidate(accessKeyId: "ASIAFIRST")
        #expect(!markedWhenEmpty)

        var machine = Self.seeded()
        let markedOther = machine.invalidate(accessKeyId: "ASIAOTHER")
        #expect(!markedOther)
        #expect(Act(machine.getCredentials(now: Self.start, makeRefresh: { 1 })) == .cached("ASIAFIRST", rateLimited: false))
        let markedCached = machine.invalidate(accessKeyId: "ASIAFIRST")
        #expect(markedCached)
        #expect(machine.urgency(now: Self.start) == .mandatory)
    }

    @Test func invalidatedCredentialsTakeTheMandatoryPathEvenInBackgroundMode() {
        var machine = Self.seeded(settings: Self.settings(background: true))
        machine.invalidate(accessKeyId: "ASIAFIRST")
        #expect(Act(machine.getCredentials(now: Self.start, makeRefresh: { 1 })) == .start(1, .invalidated))
        #expect(Act(machine.getCredentials(now: Self.start, makeRefresh: { 2 })) == .wait(1))
    }

    @Test func rejectedCredentialsStayInUseWhileTheRefreshFailsAndAreRetriedAfterTheBackoff() {
        var machine = Self.seeded()
        machine.invalidate(accessKeyId: "ASIAFIRST")
        _ = machine.getCredentials(now: Self.start, makeRefresh: { 1 })
        let completion = machine.refreshFailed(WIFCredentialsError.network("reset"), recoverable: true, now: Self.start)
        #expect((try? completion.result.get())?.accessKeyId == "ASIAFIRST")
        #expect(Act(machine.getCredentials(now: Self.at(60), makeRefresh: { 2 })) == .cached("ASIAFIRST", rateLimited: true))
        #expect(Act(machine.getCredentials(now: Self.at(420), makeRefresh: { 2 })) == .start(2, .invalidated))
    }

    // MARK: Descriptions

    @Test func safeDescriptionNamesForeignErrorsByTypeOnly() {
        struct LeakyError: Error, CustomStringConvertible {
            var description: String { "token=super-secret-value" }
        }
        let text = Machine.safeDescription(of: LeakyError())
        #expect(text.contains("LeakyError"))
        #expect(!text.contains("super-secret-value"))
        #expect(Machine.safeDescription(of: Self.accessDenied) == Self.accessDenied.description)
    }
}
