/// Decides what to do after a failed attempt: wait and retry, retry with fresh credentials, retry
/// with a corrected clock, or give up.
///
/// A value type with no I/O, so the decisions are tested directly. One state lives for one request's
/// attempts.
struct S3RetryState: Sendable {
    /// What to do next.
    enum Action: Sendable, Hashable {
        /// Wait, then try again.
        case retry(after: Duration)
        /// Forget the credentials that were refused, get fresh ones, and try again at once.
        case refreshCredentialsAndRetry
        /// S3's clock differs from ours: adopt its offset and try again at once.
        case correctClockAndRetry
        /// Report the error.
        case fail
    }

    /// How an error may be recovered from.
    enum Recovery: Sendable, Hashable {
        case transient
        case credentialsRejected
        case clockSkew
        case permanent
    }

    let policy: S3Client.Retry
    /// The attempt that just failed, from 1.
    private(set) var attempt = 1
    private(set) var refreshedCredentials = false
    private(set) var correctedClock = false

    init(policy: S3Client.Retry) {
        self.policy = policy
    }

    /// S3 codes that mean the failure may pass.
    static let transientCodes: Set<String> = [
        "NetworkError", "MalformedResponse", "IntegrityCheckFailed",
        "InternalError", "ServiceUnavailable", "SlowDown", "SlowDownRead", "SlowDownWrite",
        "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottled", "RequestThrottledException",
        "TooManyRequests", "TooManyRequestsException", "RequestLimitExceeded", "BandwidthLimitExceeded",
        "RequestTimeout", "RequestTimeoutException", "PriorRequestNotComplete", "OperationAborted",
    ]

    /// S3 codes that mean the credentials were refused and fresh ones may work.
    static let credentialCodes: Set<String> = [
        "ExpiredToken", "ExpiredTokenException", "InvalidAccessKeyId", "InvalidToken", "TokenRefreshRequired",
    ]

    /// How an error may be recovered from.
    static func recovery(for error: S3Error) -> Recovery {
        let code = error.code.rawValue
        if Self.credentialCodes.contains(code) { return .credentialsRejected }
        if error.code == .requestTimeTooSkewed { return .clockSkew }
        if Self.transientCodes.contains(code) { return .transient }
        if let status = error.httpStatus, status == 429 || (status >= 500 && status != 501) { return .transient }
        return .permanent
    }

    /// The action after `error` failed the current attempt.
    /// - Parameters:
    ///   - error: The failure.
    ///   - jitter: A number in `0...1` placing the wait in its jitter range.
    ///   - canCorrectClock: Whether S3's answer carried a usable `Date`.
    /// - Returns: What to do; the attempt count moves on for everything but ``Action/fail``.
    mutating func next(after error: S3Error, jitter: Double, canCorrectClock: Bool = false) -> Action {
        switch Self.recovery(for: error) {
        case .credentialsRejected where !self.refreshedCredentials:
            // A rejected key is not a transient failure: one retry with fresh credentials, not counted.
            self.refreshedCredentials = true
            return .refreshCredentialsAndRetry
        case .clockSkew where !self.correctedClock && canCorrectClock:
            self.correctedClock = true
            return .correctClockAndRetry
        case .transient where self.attempt < self.policy.maxAttempts:
            let delay = self.policy.delay(beforeRetry: self.attempt, jitter: jitter)
            self.attempt += 1
            return .retry(after: delay)
        default:
            return .fail
        }
    }
}
