/// Exponential backoff with jitter, shared by every client that retries (STS, S3, engine
/// administration). What is retryable is the caller's decision; this type only says how often and
/// how long to wait.
///
/// Before retry *n* (1-based) the wait lies between half and all of the ceiling
/// `min(maxDelay, baseDelay × 2ⁿ⁻¹)`, so waits grow while spreading out clients that failed together.
package struct RetryPolicy: Sendable, Hashable {
    /// How many attempts to make in all, the first included; `1` disables retries.
    package var maxAttempts: Int
    /// The backoff ceiling before the first retry.
    package var baseDelay: Duration
    /// The largest ceiling the backoff grows to.
    package var maxDelay: Duration

    package init(maxAttempts: Int, baseDelay: Duration, maxDelay: Duration) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The wait before retry `retry`.
    /// - Parameters:
    ///   - retry: Which retry this is, starting at 1.
    ///   - jitter: A number in `0...1` choosing where in the jitter range to land.
    /// - Returns: A duration between half and all of the backoff ceiling for that retry.
    package func delay(beforeRetry retry: Int, jitter: Double) -> Duration {
        let ceiling = self.ceiling(beforeRetry: retry)
        let unit = min(max(jitter.isFinite ? jitter : 0, 0), 1)
        return ceiling / 2 + (ceiling / 2) * unit
    }

    /// The upper end of the wait before retry `retry`.
    package func ceiling(beforeRetry retry: Int) -> Duration {
        // Past 2³⁰ × baseDelay every practical maxDelay is reached; capping the exponent keeps the
        // multiplication from overflowing.
        let exponent = min(max(retry - 1, 0), 30)
        let factor = 1 << exponent
        if self.baseDelay > self.maxDelay / factor { return self.maxDelay }
        return min(self.baseDelay * factor, self.maxDelay)
    }

    /// What is wrong with the policy, or `nil` when it is usable.
    /// - Parameter subject: What the policy belongs to, for the message (`STS retry`).
    package func problem(subject: String) -> String? {
        if self.maxAttempts < 1 {
            return "\(subject) maxAttempts is \(self.maxAttempts); it must be at least 1"
        }
        if self.baseDelay < .zero {
            return "\(subject) baseDelay is \(self.baseDelay); it must not be negative"
        }
        if self.maxDelay < self.baseDelay {
            return "\(subject) maxDelay (\(self.maxDelay)) is shorter than baseDelay (\(self.baseDelay))"
        }
        return nil
    }

    /// Runs `operation` until it succeeds, fails in a way `isRetryable` refuses, or the attempts
    /// are spent.
    /// - Parameters:
    ///   - isRetryable: Whether an error may pass on another attempt.
    ///   - jitter: A source of numbers in `0...1`.
    ///   - sleep: Waits a duration (injected so that tests need no real time).
    ///   - willRetry: Told of each retry before its wait: the attempt that failed (from 1), its
    ///     error and the wait.
    ///   - operation: The work; told which attempt it is, from 1.
    /// - Returns: The operation's result.
    /// - Throws: The last error, or the sleep's `CancellationError`.
    package func run<Result: Sendable>(
        isRetryable: (any Error) -> Bool,
        jitter: () -> Double = { Double.random(in: 0...1) },
        sleep: (Duration) async throws -> Void,
        willRetry: (Int, any Error, Duration) -> Void = { _, _, _ in },
        _ operation: (Int) async throws -> Result
    ) async throws -> Result {
        var attempt = 1
        while true {
            do {
                return try await operation(attempt)
            } catch {
                guard attempt < self.maxAttempts, isRetryable(error) else { throw error }
                let delay = self.delay(beforeRetry: attempt, jitter: jitter())
                willRetry(attempt, error, delay)
                try await sleep(delay)
                attempt += 1
            }
        }
    }
}
