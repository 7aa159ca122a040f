import Foundation
import Testing
import WIFCredentials
import WIFTestSupport

// The limit catches a sleeper that never wakes; it is wide because on a loaded two-core CI machine a
// test may wait minutes for a thread before it starts.
@Suite(.timeLimit(.minutes(4))) struct ManualTimeSourceTests {
    @Test func nowMovesOnlyWhenAdvanced() {
        let clock = ManualTimeSource(now: Date(timeIntervalSince1970: 1_000))
        let timeSource = clock.timeSource
        #expect(timeSource.now() == Date(timeIntervalSince1970: 1_000))
        #expect(timeSource.now() == Date(timeIntervalSince1970: 1_000))
        clock.advance(by: .milliseconds(1_500))
        #expect(timeSource.now() == Date(timeIntervalSince1970: 1_001.5))
        clock.advance(seconds: 10)
        #expect(clock.now == Date(timeIntervalSince1970: 1_011.5))
        clock.set(to: Date(timeIntervalSince1970: 5))
        #expect(clock.now == Date(timeIntervalSince1970: 5))
    }

    @Test func sleepWaitsUntilTheDeadlineIsReached() async throws {
        let clock = ManualTimeSource()
        let sleeper = Task { try await clock.timeSource.sleep(.seconds(10)) }
        try await clock.waitForSleepers(count: 1)

        clock.advance(by: .seconds(9))
        #expect(clock.sleeperCount == 1)

        clock.advance(by: .seconds(1))
        #expect(clock.sleeperCount == 0)
        try await sleeper.value
    }

    @Test func advanceWakesOnlyTheDueSleepers() async throws {
        let clock = ManualTimeSource()
        let short = Task { try await clock.sleep(for: .seconds(5)) }
        let long = Task { try await clock.sleep(for: .seconds(60)) }
        try await clock.waitForSleepers(count: 2)

        clock.advance(by: .seconds(30))
        try await short.value
        #expect(clock.sleeperCount == 1)

        clock.advance(by: .seconds(30))
        try await long.value
        #expect(clock.sleeperCount == 0)
    }

    @Test func deadlineCountsFromWhenTheSleepStarted() async throws {
        let clock = ManualTimeSource()
        clock.advance(by: .seconds(100))
        let sleeper = Task { try await clock.sleep(for: .seconds(10)) }
        try await clock.waitForSleepers(count: 1)
        clock.set(to: clock.now.addingTimeInterval(9.5))
        #expect(clock.sleeperCount == 1)
        clock.advance(seconds: 0.5)
        try await sleeper.value
    }

    @Test(arguments: [Duration.zero, .seconds(-3)])
    func nonPositiveSleepReturnsAtOnce(duration: Duration) async throws {
        let clock = ManualTimeSource()
        try await clock.sleep(for: duration)
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellingASleeperThrowsAndRemovesIt() async throws {
        let clock = ManualTimeSource()
        let start = clock.now
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        try await clock.waitForSleepers(count: 1)

        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
        #expect(clock.now == start)
    }

    @Test func sleepingInACancelledTaskThrowsAtOnce() async {
        let clock = ManualTimeSource()
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(60))
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func waitForSleepersReturnsAtOnceWhenEnoughAreAsleep() async throws {
        let clock = ManualTimeSource()
        try await clock.waitForSleepers(count: 0)
        let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
        try await clock.waitForSleepers(count: 1)
        try await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(1))
        try await sleeper.value
    }

    @Test func waitForSleepersStopsOnCancellation() async {
        let clock = ManualTimeSource()
        let watcher = Task { try await clock.waitForSleepers(count: 1) }
        watcher.cancel()
        await #expect(throws: CancellationError.self) { try await watcher.value }
    }
}
