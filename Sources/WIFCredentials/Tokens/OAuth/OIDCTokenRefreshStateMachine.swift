import Foundation

/// The refresh rules of ``OIDCTokenSource`` as a value with no I/O: given the time and what the caller
/// asks, it says whether to hand out the current ID token, start a refresh, join the one in flight, or
/// fail.
///
/// - Outside the refresh window the current token is returned.
/// - In the window (the configured window, at most half the ID token's lifetime, before `exp`) a
///   refresh starts; while one is in flight every caller waits for it.
/// - A forced refresh (STS refused the current token) always starts one; a refusal of a token that
///   is no longer current returns the current token.
/// - A refresh that fails recoverably while the current token is still valid (and not refused)
///   leaves the current token in use and holds further refreshes back for the backoff.
/// - A refresh that says to sign in again sticks until new tokens are put in.
struct OIDCTokenRefreshStateMachine<Promise: AnyObject & Sendable>: Sendable {
    /// What the caller should do.
    enum Action {
        /// Use these tokens.
        case use(OAuth2Tokens)
        /// Run a refresh of these tokens and complete the promise with its outcome.
        case startRefresh(Promise, OAuth2Tokens, Reason)
        /// Wait for the refresh in flight.
        case wait(Promise)
        /// Fail with this error.
        case fail(any Error)
    }

    /// Why a refresh starts.
    enum Reason: String, Sendable {
        /// The ID token entered its refresh window.
        case window
        /// The ID token has expired.
        case expired
        /// STS refused the current ID token.
        case rejected
        /// The application asked for a refresh.
        case requested
    }

    /// What the refresh's waiters get.
    enum Completion {
        /// New tokens.
        case refreshed(OAuth2Tokens)
        /// The refresh failed, but the current tokens are still good; retry after the date.
        case keptCurrent(OAuth2Tokens, cause: any Error, retryAfter: Date)
        /// The refresh failed and the callers get the error.
        case failed(any Error)
    }

    private enum State {
        case idle
        case refreshing(Promise, reason: Reason, generation: UInt64)
        case signInRequired(any Error)
    }

    private(set) var tokens: OAuth2Tokens
    private var state: State = .idle
    private var retryAfter: Date?
    private var generation: UInt64 = 0
    let refreshWindow: TimeInterval
    let retryBackoff: TimeInterval

    init(tokens: OAuth2Tokens, refreshWindow: TimeInterval, retryBackoff: TimeInterval) {
        self.tokens = tokens
        self.refreshWindow = refreshWindow
        self.retryBackoff = retryBackoff
    }

    /// When the current ID token enters its refresh window.
    var refreshAt: Date {
        Self.refreshAt(self.tokens, window: self.refreshWindow)
    }

    /// The earlier of the two tokens' expiries minus the window, the window being at most half that
    /// token's lifetime so a short-lived token is not refreshed on every call. The access token counts
    /// too: an API that takes it (a user pool's, by default) must not be sent one that has expired
    /// while the ID token lives on.
    static func refreshAt(_ tokens: OAuth2Tokens, window: TimeInterval) -> Date {
        let idToken = Self.idTokenRefreshAt(tokens, window: window)
        guard let accessExpiry = tokens.accessTokenExpiresAt else { return idToken }
        // The access token's own lifetime where it is known: a refresh may have renewed it alone.
        return min(idToken, Self.windowed(accessExpiry, issuedAt: tokens.accessTokenIssuedAt ?? tokens.idTokenIssuedAt, window: window))
    }

    /// When the ID token alone enters its refresh window.
    static func idTokenRefreshAt(_ tokens: OAuth2Tokens, window: TimeInterval) -> Date {
        Self.windowed(tokens.idTokenExpiresAt, issuedAt: tokens.idTokenIssuedAt, window: window)
    }

    private static func windowed(_ expiry: Date, issuedAt: Date?, window: TimeInterval) -> Date {
        var effective = window
        if let issuedAt {
            let lifetime = expiry.timeIntervalSince(issuedAt)
            if lifetime > 0 { effective = min(effective, lifetime / 2) }
        }
        return expiry.addingTimeInterval(-effective)
    }

    /// Whether a refresh is in flight.
    var isRefreshing: Bool {
        if case .refreshing = self.state { return true }
        return false
    }

    /// Answers a request for a token.
    /// - Parameters:
    ///   - now: The current time.
    ///   - rejectedIDToken: The ID token STS refused, for a replacement request.
    ///   - forced: Whether the application asks for a refresh regardless of the window.
    ///   - makePromise: Creates the promise of a refresh that starts.
    mutating func tokenRequested(now: Date, rejectedIDToken: String?, forced: Bool, makePromise: () -> Promise) -> Action {
        switch self.state {
        case .signInRequired(let error):
            return .fail(error)
        case .refreshing(let promise, _, _):
            return .wait(promise)
        case .idle:
            break
        }
        if let rejectedIDToken {
            if rejectedIDToken != self.tokens.idToken { return .use(self.tokens) }
            return self.start(.rejected, makePromise: makePromise)
        }
        if forced { return self.start(.requested, makePromise: makePromise) }
        if now >= self.tokens.idTokenExpiresAt { return self.start(.expired, makePromise: makePromise) }
        if now >= self.refreshAt {
            if let retryAfter, now < retryAfter { return .use(self.tokens) }
            return self.start(.window, makePromise: makePromise)
        }
        return .use(self.tokens)
    }

    private mutating func start(_ reason: Reason, makePromise: () -> Promise) -> Action {
        let promise = makePromise()
        self.generation &+= 1
        self.state = .refreshing(promise, reason: reason, generation: self.generation)
        return .startRefresh(promise, self.tokens, reason)
    }

    /// Records new tokens from the refresh in flight.
    /// - Returns: What the waiters get: the new tokens, or the tokens put in meanwhile by
    ///   ``replaceTokens(_:)``.
    mutating func refreshSucceeded(_ tokens: OAuth2Tokens) -> Completion {
        guard self.endRefresh() else { return .refreshed(self.tokens) }
        self.tokens = tokens
        self.retryAfter = nil
        return .refreshed(tokens)
    }

    /// Records a failed refresh.
    /// - Parameters:
    ///   - error: What failed.
    ///   - recoverable: Whether trying again later could succeed.
    ///   - signInRequired: Whether the error says the sign-in is over.
    ///   - now: The current time.
    /// - Returns: What the waiters get.
    mutating func refreshFailed(_ error: any Error, recoverable: Bool, signInRequired: Bool, now: Date) -> Completion {
        let reason = self.refreshReason
        guard self.endRefresh() else { return .refreshed(self.tokens) }
        if signInRequired {
            self.state = .signInRequired(error)
            return .failed(error)
        }
        if recoverable, reason == .window, now < self.tokens.idTokenExpiresAt {
            let retryAfter = now.addingTimeInterval(self.retryBackoff)
            self.retryAfter = retryAfter
            return .keptCurrent(self.tokens, cause: error, retryAfter: retryAfter)
        }
        return .failed(error)
    }

    /// Puts in tokens from a new sign-in: ends a sign-in-required state, and outdates a refresh in
    /// flight, whose waiters then get these tokens.
    mutating func replaceTokens(_ tokens: OAuth2Tokens) {
        self.tokens = tokens
        self.retryAfter = nil
        self.generation &+= 1
        if case .signInRequired = self.state { self.state = .idle }
    }

    private var refreshReason: Reason? {
        if case .refreshing(_, let reason, _) = self.state { return reason }
        return nil
    }

    /// Leaves the refreshing state; `false` when the refresh was outdated by ``replaceTokens(_:)``.
    private mutating func endRefresh() -> Bool {
        guard case .refreshing(_, _, let generation) = self.state else { return false }
        self.state = .idle
        return generation == self.generation
    }
}
