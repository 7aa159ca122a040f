import Foundation

/// Where time comes from: the current date and a way to wait.
///
/// Everything in WIFCredentials that judges expiry or waits between retries takes a `TimeSource`, so
/// tests can drive time by hand instead of sleeping.
public struct TimeSource: Sendable {
    /// Returns the current date.
    public var now: @Sendable () -> Date
    /// Waits for a duration; throws `CancellationError` when the calling task is cancelled.
    public var sleep: @Sendable (Duration) async throws -> Void

    /// Creates a time source from a clock reading and a sleep function.
    /// - Parameters:
    ///   - now: Returns the current date.
    ///   - sleep: Waits for the given duration.
    public init(now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.now = now
        self.sleep = sleep
    }

    /// The system's wall clock and `Task.sleep`.
    public static let system = TimeSource(
        now: { Date() },
        sleep: { duration in try await Task.sleep(for: duration) }
    )
}
