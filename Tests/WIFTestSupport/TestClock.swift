import Foundation
import Synchronization
import WIFCredentials

/// A clock that moves only when the test moves it, whose sleeps return at once and are recorded, so
/// that dates, expiry and backoff are checked without waiting.
///
/// For code that must really suspend until the clock reaches a deadline, use ``ManualTimeSource``.
public final class TestClock: Sendable {
    /// 2026-09-21T11:33:20Z, an arbitrary round start.
    public static let defaultStart = Date(timeIntervalSince1970: 1_790_000_000)

    private struct State {
        var now: Date
        var sleeps: [Duration] = []
    }

    private let state: Mutex<State>
    private let sleepsMoveClock: Bool

    /// Creates a clock.
    /// - Parameters:
    ///   - now: The starting time.
    ///   - sleepsMoveClock: Whether a sleep moves the clock by its duration (as time would pass),
    ///     or leaves it where it is.
    public init(now: Date = TestClock.defaultStart, sleepsMoveClock: Bool = false) {
        self.state = Mutex(State(now: now))
        self.sleepsMoveClock = sleepsMoveClock
    }

    /// The clock's time.
    public var now: Date { self.state.withLock { $0.now } }

    /// Whole seconds since 1970, rounded down.
    public var seconds: Int64 { Int64(self.now.timeIntervalSince1970.rounded(.down)) }

    /// The durations slept, in order.
    public var sleeps: [Duration] { self.state.withLock { $0.sleeps } }

    /// Moves the clock by `seconds` (backwards for a negative number).
    public func advance(by seconds: TimeInterval) {
        self.state.withLock { $0.now = $0.now.addingTimeInterval(seconds) }
    }

    /// A `TimeSource` reading and sleeping on this clock; a sleep checks for cancellation first.
    public var timeSource: TimeSource {
        TimeSource(
            now: { self.now },
            sleep: { duration in
                try Task.checkCancellation()
                self.state.withLock { state in
                    state.sleeps.append(duration)
                    if self.sleepsMoveClock {
                        let components = duration.components
                        state.now += Double(components.seconds) + Double(components.attoseconds) / 1e18
                    }
                }
            })
    }
}
