import Foundation

/// Limits guesses of device-flow user codes (RFC 8628 §5.1: "the authorization server should rate-limit
/// user code attempts"). A user code has only 20⁸ values, so without a limit a script finds a pending
/// one in hours.
///
/// Wrong codes are counted per remote address and, with a limit ten times higher, for the whole stack
/// (a wrong code names no OAuth client, so the stack's pending codes are counted together). Once a
/// count reaches its limit within ``window``, every submission of the page from that address (or, for
/// the stack-wide count, from any address) is refused until the window that began with the first
/// wrong code ends. A value-type state machine: time is passed in, so it is tested without waiting.
struct UserCodeThrottle: Sendable {
    /// Wrong codes allowed per address within a window.
    let limit: Int
    /// The window, in seconds.
    let window: TimeInterval
    /// How many times ``limit`` the whole stack may guess within a window.
    static let stackFactor = 10
    /// The most addresses tracked; beyond it, finished windows are dropped first.
    static let maximumTrackedAddresses = 10_000

    private struct Count: Sendable {
        var start: Date
        var wrong: Int
    }

    private var byAddress: [String: Count] = [:]
    private var stack: Count?

    /// - Parameters:
    ///   - limit: Wrong codes allowed per address within a window; at least 1.
    ///   - window: The window, in seconds.
    init(limit: Int, window: TimeInterval) {
        self.limit = max(1, limit)
        self.window = window
    }

    /// Whether a submission from `address` is refused now.
    /// - Returns: The whole seconds until the window ends (at least 1), or `nil` when it may be checked.
    func retryAfter(address: String, now: Date) -> Int? {
        var latest: Date?
        if let count = self.byAddress[address], count.wrong >= self.limit, now < count.start + self.window {
            latest = count.start + self.window
        }
        if let count = self.stack, count.wrong >= self.limit * Self.stackFactor, now < count.start + self.window {
            latest = max(latest ?? .distantPast, count.start + self.window)
        }
        return latest.map { max(1, Int(($0.timeIntervalSince(now)).rounded(.up))) }
    }

    /// Counts a wrong code from `address`.
    mutating func recordWrong(address: String, now: Date) {
        self.byAddress[address] = Self.counted(self.byAddress[address], now: now, window: self.window)
        self.stack = Self.counted(self.stack, now: now, window: self.window)
        if self.byAddress.count > Self.maximumTrackedAddresses {
            self.byAddress = self.byAddress.filter { now < $0.value.start + self.window }
        }
    }

    private static func counted(_ count: Count?, now: Date, window: TimeInterval) -> Count {
        guard var count, now < count.start + window else { return Count(start: now, wrong: 1) }
        count.wrong += 1
        return count
    }
}
