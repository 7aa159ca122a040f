extension WIFCredentialsError {
    /// How a caller should react to an error.
    public enum Recovery: Sendable, Hashable {
        /// The failure is transient (throttling, the identity provider unreachable, a 5xx answer, a
        /// broken connection): retry with backoff, and keep serving cached credentials meanwhile.
        case retryWithBackoff
        /// STS rejected the token (`InvalidIdentityToken`, `ExpiredTokenException`): read the token
        /// again, bypassing caches, and retry once.
        case reloadTokenAndRetryOnce
        /// Retrying the same call cannot help (`AccessDenied`, `IDPRejectedClaim`, a bad parameter, a
        /// malformed policy): report it at once.
        case none
    }

    /// STS and S3 error codes whose failures are transient.
    static let transientServiceCodes: Set<String> = [
        "IDPCommunicationError", "IDPCommunicationErrorException",
        "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottledException",
        "TooManyRequestsException", "RequestLimitExceeded", "SlowDown",
        "InternalError", "InternalFailure", "ServiceUnavailable", "ServiceUnavailableException",
        "RequestTimeout", "RequestTimeoutException",
    ]

    /// STS error codes that mean the token itself was refused and a fresh read may fix it.
    static let tokenRejectionCodes: Set<String> = ["InvalidIdentityToken", "ExpiredTokenException"]

    /// How a caller should react to this error.
    public var recovery: Recovery {
        switch self.code {
        case .network:
            return .retryWithBackoff
        case .service:
            guard let serviceError = self.serviceError else { return .none }
            if Self.tokenRejectionCodes.contains(serviceError.code) { return .reloadTokenAndRetryOnce }
            if Self.transientServiceCodes.contains(serviceError.code) || serviceError.httpStatus >= 500
                || serviceError.httpStatus == 429
            {
                return .retryWithBackoff
            }
            return .none
        case .malformedResponse:
            // A truncated or garbled answer is most often a proxy or connection problem.
            return .retryWithBackoff
        case .oauth:
            // RFC 6749 §5.2 and §4.1.2.1: the issuer is overloaded or failing, not refusing.
            guard let oauthError = self.oauthError else { return .none }
            let status = oauthError.httpStatus ?? 0
            if oauthError.error == "temporarily_unavailable" || oauthError.error == "server_error" || status >= 500
                || status == 429
            {
                return .retryWithBackoff
            }
            return .none
        default:
            return .none
        }
    }

    /// Whether waiting and trying again could succeed. A credentials cache applies its refresh backoff
    /// and serves cached credentials for recoverable failures, and raises non-recoverable ones at once.
    public var isRecoverable: Bool { self.recovery != .none }
}
