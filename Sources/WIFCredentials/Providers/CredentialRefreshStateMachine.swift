import Foundation

/// The parameters of a ``CredentialRefreshStateMachine``, in seconds.
struct CredentialRefreshSettings: Sendable, Hashable {
    /// A fixed advisory window, replacing the lifetime table.
    var advisoryWindowOverride: TimeInterval?
    /// How long before expiry a refresh becomes mandatory.
    var mandatoryWindow: TimeInterval
    /// How long the source is left alone after a recoverable failure.
    var refreshBackoff: TimeInterval
    /// How long a non-recoverable error is re-raised without contacting the source.
    var nonRecoverableErrorTTL: TimeInterval
    /// Whether a refresh in the advisory window runs in the background while callers get the cached
    /// credentials at once.
    var backgroundAdvisoryRefresh: Bool
}

/// The decisions of a refreshing credentials cache, with no I/O and no clock of its own.
///
/// Every method takes the current time and returns what the caller must do; the actor that owns the
/// machine performs the action (returns credentials, starts the source call, waits for it, throws).
/// `Refresh` is the owner's handle for the one refresh in flight; the machine only stores it and hands
/// it back to callers that must wait for it.
///
/// The rules (the cross-SDK "consistent credentials refresh" design):
/// - Credentials are refreshed before they expire. The advisory window before expiry depends on the
///   lifetime they had when received (≤ 20 min → 5 min, < 90 min → 15 min, otherwise 60 min) unless
///   configured; inside the shorter mandatory window, or after an `invalidate`, a refresh is required.
/// - A recoverable failure starts a refresh backoff during which the source is not contacted and the
///   cached credentials are served, even when expired (static stability).
/// - A non-recoverable failure is raised and cached briefly, so a retry loop cannot hammer the source.
/// - Credentials from the source that are already expired count as a recoverable failure.
/// - Nothing is sticky: a success clears every failure, and failures expire on their own.
struct CredentialRefreshStateMachine<Refresh: Sendable>: Sendable {
    /// The machine's parameters, in seconds.
    typealias Settings = CredentialRefreshSettings

    /// Why a refresh was started, for logs.
    enum RefreshReason: String, Sendable, Hashable {
        /// Nothing was cached yet.
        case initial
        /// The credentials entered their advisory window.
        case advisory
        /// The credentials entered their mandatory window or expired.
        case mandatory
        /// A service rejected the cached credentials.
        case invalidated
    }

    /// What a caller of `getCredentials` must do.
    enum GetAction: Sendable {
        /// Return these cached credentials. `rateLimited` is `true` when a refresh was due but the
        /// backoff after a failed refresh held it back.
        case useCached(AWSCredentials, rateLimited: Bool)
        /// Throw this error, cached after a non-recoverable failure; the source is not contacted.
        case throwCachedError(any Error)
        /// Start the refresh `Refresh` (now recorded as in flight) and wait for its result.
        case startRefresh(Refresh, RefreshReason)
        /// Start the refresh `Refresh` (now recorded as in flight) in the background and return the
        /// still-valid cached credentials without waiting.
        case startBackgroundRefresh(Refresh, serving: AWSCredentials)
        /// Wait for the refresh already in flight.
        case waitForRefresh(Refresh)
    }

    /// How a refresh ended, and what its waiters get.
    enum Completion: Sendable {
        /// New credentials are cached; `advisoryWindow` is the window chosen for them.
        case refreshed(AWSCredentials, advisoryWindow: TimeInterval)
        /// A recoverable failure: the cached credentials are served and the source is left alone until
        /// `retryAfter`.
        case failedServingCached(AWSCredentials, cause: any Error, retryAfter: Date)
        /// A recoverable failure with nothing cached to fall back on: `error` (code `noCredentials`) is
        /// raised, and the next call tries again.
        case failedWithoutCredentials(WIFCredentialsError, cause: any Error)
        /// A non-recoverable failure: the error is raised, and re-raised without contacting the source
        /// until `cachedUntil`.
        case failedNonRecoverable(any Error, cachedUntil: Date)

        /// What every caller waiting for the refresh receives.
        var result: Result<AWSCredentials, any Error> {
            switch self {
            case .refreshed(let credentials, _): return .success(credentials)
            case .failedServingCached(let credentials, _, _): return .success(credentials)
            case .failedWithoutCredentials(let error, _): return .failure(error)
            case .failedNonRecoverable(let error, _): return .failure(error)
            }
        }
    }

    /// How close cached credentials are to expiry.
    enum Urgency: Sendable, Hashable {
        /// Outside the advisory window: use them.
        case fresh
        /// Inside the advisory window: refresh, but they are still good.
        case advisory
        /// Inside the mandatory window, expired, or rejected by a service: a refresh is required.
        case mandatory
    }

    private struct Entry: Sendable {
        var credentials: AWSCredentials
        var advisoryWindow: TimeInterval
        var invalidated: Bool
    }

    private struct CachedError: Sendable {
        var error: any Error
        var expiresAt: Date
    }

    let settings: Settings
    private var entry: Entry?
    private var nextRefreshAllowedAt: Date?
    private var cachedError: CachedError?
    private var inFlight: Refresh?

    /// Creates a machine with nothing cached.
    init(settings: Settings) {
        self.settings = settings
    }

    /// The cached credentials, if any.
    var cachedCredentials: AWSCredentials? { self.entry?.credentials }

    /// The advisory window chosen for the cached credentials.
    var advisoryWindow: TimeInterval? { self.entry?.advisoryWindow }

    /// The refresh in flight, if any.
    var refreshInFlight: Refresh? { self.inFlight }

    /// Decides how to answer a request for credentials.
    /// - Parameters:
    ///   - now: The current time.
    ///   - makeRefresh: Creates the handle of a new refresh; called only when one must start.
    /// - Returns: The action to perform.
    mutating func getCredentials(now: Date, makeRefresh: () -> Refresh) -> GetAction {
        guard let entry = self.entry else {
            if let inFlight = self.inFlight { return .waitForRefresh(inFlight) }
            if let error = self.activeCachedError(now: now) { return .throwCachedError(error) }
            return self.start(makeRefresh(), reason: .initial)
        }

        let urgency = self.urgency(of: entry, now: now)
        // In background mode, credentials still in their advisory window are served without waiting,
        // whatever state a refresh is in.
        let serveWithoutWaiting = urgency == .advisory && self.settings.backgroundAdvisoryRefresh
        switch urgency {
        case .fresh:
            return .useCached(entry.credentials, rateLimited: false)
        case .advisory, .mandatory:
            if let inFlight = self.inFlight {
                return serveWithoutWaiting ? .useCached(entry.credentials, rateLimited: false) : .waitForRefresh(inFlight)
            }
            if let error = self.activeCachedError(now: now) {
                return serveWithoutWaiting ? .useCached(entry.credentials, rateLimited: false) : .throwCachedError(error)
            }
            if let nextRefreshAllowedAt, now < nextRefreshAllowedAt {
                return .useCached(entry.credentials, rateLimited: true)
            }
            let refresh = makeRefresh()
            if serveWithoutWaiting {
                self.inFlight = refresh
                return .startBackgroundRefresh(refresh, serving: entry.credentials)
            }
            let reason: RefreshReason = entry.invalidated ? .invalidated : (urgency == .advisory ? .advisory : .mandatory)
            return self.start(refresh, reason: reason)
        }
    }

    /// Records that a service rejected credentials with this access key id.
    ///
    /// When the cached credentials carry that id, the next request takes the mandatory path (subject to
    /// the backoff and the error cache, so a rejection cannot make the source be hammered). An id that
    /// no longer matches — a concurrent refresh already replaced the credentials — changes nothing.
    /// - Returns: Whether the cached credentials were marked.
    @discardableResult
    mutating func invalidate(accessKeyId: String) -> Bool {
        guard var entry = self.entry, entry.credentials.accessKeyId == accessKeyId else { return false }
        entry.invalidated = true
        self.entry = entry
        return true
    }

    /// Records the source's answer to the refresh in flight.
    ///
    /// Credentials that expire at or before `now` are stale and count as a recoverable failure.
    /// - Returns: How the refresh ended.
    mutating func refreshSucceeded(_ credentials: AWSCredentials, now: Date) -> Completion {
        if let expiration = credentials.expiration, expiration <= now {
            let stale = WIFCredentialsError.noCredentials(
                "the credential source returned credentials for \(credentials.accessKeyId) that expired at "
                    + "\(expiration.formatted(.iso8601)), at or before the current time \(now.formatted(.iso8601))"
            )
            return self.refreshFailed(stale, recoverable: true, now: now)
        }
        self.inFlight = nil
        let window = self.advisoryWindow(forLifetime: credentials.expiration.map { $0.timeIntervalSince(now) })
        self.entry = Entry(credentials: credentials, advisoryWindow: window, invalidated: false)
        self.nextRefreshAllowedAt = nil
        self.cachedError = nil
        return .refreshed(credentials, advisoryWindow: window)
    }

    /// Records that the refresh in flight failed.
    /// - Parameters:
    ///   - error: What the source threw.
    ///   - recoverable: Whether waiting and retrying could help.
    ///   - now: The current time.
    /// - Returns: How the refresh ended.
    mutating func refreshFailed(_ error: any Error, recoverable: Bool, now: Date) -> Completion {
        self.inFlight = nil
        guard recoverable else {
            let cachedUntil = now.addingTimeInterval(self.settings.nonRecoverableErrorTTL)
            self.cachedError = CachedError(error: error, expiresAt: cachedUntil)
            return .failedNonRecoverable(error, cachedUntil: cachedUntil)
        }
        self.cachedError = nil
        guard let entry = self.entry else {
            // Nothing to serve while backing off, so no backoff: the next call tries again.
            let noCredentials = WIFCredentialsError.noCredentials(
                "no credentials are cached and fetching them failed: \(Self.safeDescription(of: error))"
            )
            return .failedWithoutCredentials(noCredentials, cause: error)
        }
        let retryAfter = now.addingTimeInterval(self.settings.refreshBackoff)
        self.nextRefreshAllowedAt = retryAfter
        return .failedServingCached(entry.credentials, cause: error, retryAfter: retryAfter)
    }

    /// How close the cached credentials are to expiry at `now`.
    func urgency(now: Date) -> Urgency? {
        self.entry.map { self.urgency(of: $0, now: now) }
    }

    /// The advisory window for credentials that live `lifetime` seconds from receipt (`nil`: forever).
    func advisoryWindow(forLifetime lifetime: TimeInterval?) -> TimeInterval {
        if let override = self.settings.advisoryWindowOverride { return override }
        guard let lifetime else { return 60 * 60 }
        if lifetime <= 20 * 60 { return 5 * 60 }
        if lifetime < 90 * 60 { return 15 * 60 }
        return 60 * 60
    }

    private func urgency(of entry: Entry, now: Date) -> Urgency {
        if entry.invalidated { return .mandatory }
        guard let expiration = entry.credentials.expiration else { return .fresh }
        if now.addingTimeInterval(self.settings.mandatoryWindow) > expiration { return .mandatory }
        if now.addingTimeInterval(entry.advisoryWindow) > expiration { return .advisory }
        return .fresh
    }

    private func activeCachedError(now: Date) -> (any Error)? {
        guard let cachedError, now < cachedError.expiresAt else { return nil }
        return cachedError.error
    }

    private mutating func start(_ refresh: Refresh, reason: RefreshReason) -> GetAction {
        self.inFlight = refresh
        return .startRefresh(refresh, reason)
    }

    /// Describes an error for a log line or another error's reason without risking a secret: our own
    /// errors are written to be safe; anything else is named by its type only.
    static func safeDescription(of error: any Error) -> String {
        if let error = error as? WIFCredentialsError { return error.description }
        return String(reflecting: type(of: error))
    }
}
