import Foundation
import Synchronization
import WIFCredentials

/// A clock for tests that moves only when the test moves it.
///
/// Pass ``timeSource`` to the code under test. Its `now` reads the manual clock; its `sleep(d)` records a
/// deadline of `now + d` and suspends until ``advance(by:)`` (or ``set(to:)``) brings the clock to or past
/// that deadline, so backoffs and timeouts run in zero wall time and in a known order.
///
/// - A sleep of zero or a negative duration returns at once (after a cancellation check), like
///   `Task.sleep`.
/// - A sleeping task that is cancelled throws `CancellationError` at once and stops counting as a
///   sleeper; the clock does not move.
/// - ``advance(by:)`` wakes every due sleeper, earliest deadline first, before it returns. Woken tasks
///   then run whenever the executor schedules them: a test that needs their effects should wait for them
///   (await their task, or use ``waitForSleepers(count:)`` for the next sleep they reach).
/// - To advance only once the code under test is actually asleep, `await` ``waitForSleepers(count:)``
///   first; advancing before the sleep starts would leave the sleeper waiting for the next advance.
///
/// ```swift
/// let clock = ManualTimeSource()
/// let task = Task { try await clock.timeSource.sleep(.seconds(5)) }
/// try await clock.waitForSleepers(count: 1)
/// clock.advance(by: .seconds(5))
/// try await task.value
/// ```
public final class ManualTimeSource: Sendable {
    private struct Sleeper {
        var deadline: Date
        var sequence: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Watcher {
        var count: Int
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [UInt64: Sleeper] = [:]
        var watchers: [UInt64: Watcher] = [:]
        var nextID: UInt64 = 0

        mutating func takeID() -> UInt64 {
            defer { self.nextID += 1 }
            return self.nextID
        }

        /// Removes the watchers whose sleeper count is reached.
        mutating func satisfiedWatchers() -> [CheckedContinuation<Void, any Error>] {
            let due = self.watchers.filter { $0.value.count <= self.sleepers.count }
            for id in due.keys { self.watchers.removeValue(forKey: id) }
            return due.values.map(\.continuation)
        }
    }

    private let state: Mutex<State>

    /// Creates a clock reading `now`.
    /// - Parameter now: The starting time; a fixed, round date by default.
    public init(now: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        self.state = Mutex(State(now: now))
    }

    /// A `TimeSource` reading and sleeping on this clock.
    public var timeSource: TimeSource {
        TimeSource(
            now: { self.now },
            sleep: { duration in try await self.sleep(for: duration) }
        )
    }

    /// The clock's current time.
    public var now: Date {
        self.state.withLock { $0.now }
    }

    /// How many tasks are asleep on this clock.
    public var sleeperCount: Int {
        self.state.withLock { $0.sleepers.count }
    }

    /// Moves the clock forward and wakes the sleepers whose deadline is reached.
    /// - Parameter duration: How far to move; must not be negative.
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "a manual clock only moves forward")
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        self.moveAndWake { $0.addingTimeInterval(seconds) }
    }

    /// Moves the clock forward by a number of seconds and wakes the sleepers whose deadline is reached.
    public func advance(seconds: Double) {
        precondition(seconds >= 0, "a manual clock only moves forward")
        self.moveAndWake { $0.addingTimeInterval(seconds) }
    }

    /// Sets the clock to `date`, which may be earlier than now (nobody wakes then), and wakes the
    /// sleepers whose deadline is reached.
    public func set(to date: Date) {
        self.moveAndWake { _ in date }
    }

    /// Suspends until the clock reaches `now + duration`.
    /// - Throws: `CancellationError` when the calling task is cancelled, at once.
    public func sleep(for duration: Duration) async throws {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        guard seconds > 0 else {
            try Task.checkCancellation()
            return
        }
        let id = self.state.withLock { $0.takeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (cancelled, watchers) = self.state.withLock { state -> (Bool, [CheckedContinuation<Void, any Error>]) in
                    // Checked under the lock, so a cancellation either is seen here or finds the sleeper.
                    if Task.isCancelled { return (true, []) }
                    let deadline = state.now.addingTimeInterval(seconds)
                    state.sleepers[id] = Sleeper(deadline: deadline, sequence: id, continuation: continuation)
                    return (false, state.satisfiedWatchers())
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            let sleeper = self.state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Suspends until at least `count` tasks are asleep on this clock.
    /// - Throws: `CancellationError` when the calling task is cancelled (for example by a test's time
    ///   limit), so a sleeper that never comes cannot hang the test run.
    public func waitForSleepers(count: Int) async throws {
        let id = self.state.withLock { $0.takeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = self.state.withLock { state -> Result<Void, any Error>? in
                    if state.sleepers.count >= count { return .success(()) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.watchers[id] = Watcher(count: count, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let watcher = self.state.withLock { $0.watchers.removeValue(forKey: id) }
            watcher?.continuation.resume(throwing: CancellationError())
        }
    }

    private func moveAndWake(_ move: (Date) -> Date) {
        let due = self.state.withLock { state -> [Sleeper] in
            state.now = move(state.now)
            let now = state.now
            let due = state.sleepers.values.filter { $0.deadline <= now }
            for sleeper in due { state.sleepers.removeValue(forKey: sleeper.sequence) }
            return due.sorted { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
