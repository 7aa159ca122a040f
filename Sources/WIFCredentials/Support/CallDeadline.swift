import Foundation
import WIFHTTP

/// The time a whole call may take, attempts and the waits between them included, measured on the
/// client's time source from the moment the call starts.
package struct CallDeadline: Sendable {
    /// How long the call may take.
    package let limit: Duration
    private let start: Date
    private let timeSource: TimeSource

    /// Starts measuring now.
    package init(_ limit: Duration, timeSource: TimeSource) {
        self.limit = limit
        self.timeSource = timeSource
        self.start = timeSource.now()
    }

    /// What is left of the limit; zero or less once it has passed.
    package var remaining: Duration {
        self.limit - .milliseconds(Int64((self.timeSource.now().timeIntervalSince(self.start) * 1000).rounded()))
    }

    /// The time-out for the next attempt: `timeout`, or what is left when that is shorter; `nil` when
    /// nothing is left.
    package func timeout(forAttempt timeout: Duration) -> Duration? {
        let remaining = self.remaining
        return remaining > .zero ? min(timeout, remaining) : nil
    }

    /// Whether a retry that first waits `delay` still has time to run.
    package func allows(waiting delay: Duration) -> Bool {
        delay < self.remaining
    }

    /// Why a call stopped with its limit spent: `what` (such as `STS at URL`) did not answer in time.
    package func exhausted(by what: String, attempts: Int) -> String {
        "\(what) did not answer within the call's deadline of \(HTTPTransportError.describe(self.limit)) (\(attempts) attempt\(attempts == 1 ? "" : "s"))"
    }
}
