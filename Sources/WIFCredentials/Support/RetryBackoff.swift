import WIFFoundation

/// Jittered exponential backoff for failures that may pass: throttling, 5xx answers, timeouts and
/// broken connections. ``STSClient`` and `S3Client` both take it as their `Configuration.Retry`.
///
/// Before retry *n* (1-based) a client waits a random duration between half and all of
/// `min(maxDelay, baseDelay × 2ⁿ⁻¹)`, so waits grow while spreading out clients that failed together.
/// `Defaults` names the client whose default settings an argument left out takes
/// (``STSRetryDefaults``, `S3RetryDefaults`); what is retryable is the client's decision, not this
/// type's.
public struct RetryBackoff<Defaults: RetryDefaults>: Sendable, Hashable {
    /// How many attempts to make in all, the first included; `1` disables retries. A client's own
    /// extra attempt (a re-read of a rejected token, fresh credentials after `ExpiredToken`) does not
    /// count here.
    public var maxAttempts: Int
    /// The backoff ceiling before the first retry.
    public var baseDelay: Duration
    /// The largest ceiling the backoff grows to.
    public var maxDelay: Duration

    /// Creates a retry policy.
    /// - Parameters:
    ///   - maxAttempts: Attempts in all, at least 1.
    ///   - baseDelay: The backoff ceiling before the first retry.
    ///   - maxDelay: The largest backoff ceiling, at least `baseDelay`.
    public init(
        maxAttempts: Int = Defaults.maxAttempts,
        baseDelay: Duration = Defaults.baseDelay,
        maxDelay: Duration = Defaults.maxDelay
    ) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// No retries: the first failure is reported.
    public static var disabled: Self { Self(maxAttempts: 1) }

    /// The shared backoff these settings describe.
    package var policy: RetryPolicy {
        RetryPolicy(maxAttempts: self.maxAttempts, baseDelay: self.baseDelay, maxDelay: self.maxDelay)
    }

    /// The wait before retry `retry`.
    /// - Parameters:
    ///   - retry: Which retry this is, starting at 1.
    ///   - jitter: A number in `0...1` choosing where in the jitter range to land.
    /// - Returns: A duration between half and all of the backoff ceiling for that retry.
    public func delay(beforeRetry retry: Int, jitter: Double) -> Duration {
        self.policy.delay(beforeRetry: retry, jitter: jitter)
    }

    /// The upper end of the wait before retry `retry`.
    package func ceiling(beforeRetry retry: Int) -> Duration {
        self.policy.ceiling(beforeRetry: retry)
    }

    /// What is wrong with these settings, naming `subject` ("STS retry"), or `nil` when they are usable.
    package func problem(subject: String) -> String? {
        self.policy.problem(subject: subject)
    }
}

/// A client's default retry settings, used where a ``RetryBackoff`` is built without them.
public protocol RetryDefaults: Sendable, Hashable {
    /// Attempts in all, the first included.
    static var maxAttempts: Int { get }
    /// The backoff ceiling before the first retry.
    static var baseDelay: Duration { get }
    /// The largest ceiling the backoff grows to.
    static var maxDelay: Duration { get }
}

/// ``STSClient``'s retry defaults: three attempts, 200 ms growing to at most 5 s.
public enum STSRetryDefaults: RetryDefaults {
    public static var maxAttempts: Int { 3 }
    public static var baseDelay: Duration { .milliseconds(200) }
    public static var maxDelay: Duration { .seconds(5) }
}
