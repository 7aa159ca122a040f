import Foundation
import Logging
import WIFFoundation
import WIFHTTP

/// A web-identity token source backed by an OAuth 2.0 / OpenID Connect sign-in: it hands out the ID
/// token and renews it with the refresh token before it expires, so federation keeps working for as
/// long as the sign-in lasts.
///
/// - Before each token is handed out, an ID token within its refresh window
///   (``Configuration/refreshWindow``, at most half its lifetime, before `exp`) is renewed.
/// - However many callers arrive at once, one refresh runs; a caller's cancellation does not cancel it.
/// - When STS refuses the token (`InvalidIdentityToken`, `ExpiredTokenException`), ``token(replacing:logger:)``
///   renews it once and the STS client retries once with the new one.
/// - Renewed tokens (with a rotated refresh token) go to `onTokensRefreshed` before anyone uses them,
///   so a store can keep them. When that fails, the callers of that refresh get its error, and the
///   next request tries to save again.
/// - When the issuer rejects the refresh token, every request fails with one
///   ``WIFCredentialsError/Code/signInRequired`` error until ``replaceTokens(_:)`` puts in a new sign-in.
///
/// ```swift
/// let source = OIDCTokenSource(client: client, tokens: tokens) { renewed in try await store.save(renewed) }
/// let provider = WebIdentityCredentialProvider(
///     configuration: WebIdentityConfiguration(roleArn: roleArn, tokenSource: source)
/// )
/// ```
public struct OIDCTokenSource: WebIdentityTokenSource, CustomStringConvertible {
    /// When ID tokens are renewed.
    public struct Configuration: Sendable, Hashable {
        /// How long before the ID token's `exp` it is renewed; at most half the token's lifetime is
        /// used. Five minutes by default.
        public var refreshWindow: Duration
        /// After a renewal fails in a way that may pass (the issuer unreachable) while the current
        /// token is still valid, how long the current token is used before trying again. 30 seconds by
        /// default.
        public var retryBackoff: Duration

        /// Creates a configuration.
        /// - Parameters:
        ///   - refreshWindow: How long before `exp` to renew.
        ///   - retryBackoff: How long to wait after a failed renewal while the token is still valid.
        public init(refreshWindow: Duration = .seconds(300), retryBackoff: Duration = .seconds(30)) {
            self.refreshWindow = refreshWindow
            self.retryBackoff = retryBackoff
        }
    }

    /// Receives renewed tokens before they are used; throw to report that they could not be kept.
    public typealias TokensRefreshed = @Sendable (OAuth2Tokens) async throws -> Void

    /// The client that renews the tokens.
    public let client: OAuth2Client
    /// When tokens are renewed.
    public let configuration: Configuration
    let refresher: OIDCTokenRefresher

    /// Creates a source for a sign-in's tokens.
    /// - Parameters:
    ///   - client: The client of the issuer that issued the tokens; its time source is the source's.
    ///   - tokens: The tokens of a sign-in (from ``OAuth2Client/authorizeWithBrowser(timeout:loginHint:logger:openBrowser:)``,
    ///     ``OAuth2Client/authorizeWithDevice(logger:prompt:)`` or a store).
    ///   - configuration: When tokens are renewed. Negative durations count as zero.
    ///   - onTokensRefreshed: Called with renewed tokens before they are used, to persist them.
    public init(
        client: OAuth2Client,
        tokens: OAuth2Tokens,
        configuration: Configuration = Configuration(),
        onTokensRefreshed: TokensRefreshed? = nil
    ) {
        self.client = client
        self.configuration = configuration
        self.refresher = OIDCTokenRefresher(
            client: client, tokens: tokens, configuration: configuration, onTokensRefreshed: onTokensRefreshed)
    }

    /// Returns the ID token, renewing it first when it is within its refresh window, or always when
    /// `forceRefresh` is `true`.
    /// - Parameters:
    ///   - forceRefresh: Whether to renew regardless of the window.
    ///   - logger: Where to log (never a token).
    /// - Returns: The ID token with its expiry.
    /// - Throws: ``WIFCredentialsError``: `signInRequired` when the sign-in cannot be renewed; `oauth`,
    ///   `network`, `malformedResponse` or `invalidIDToken` when a needed renewal failed; what
    ///   `onTokensRefreshed` throws; `CancellationError` when the caller is cancelled.
    public func token(forceRefresh: Bool, logger: Logger) async throws -> WebIdentityToken {
        try await self.refresher.tokens(rejectedIDToken: nil, forced: forceRefresh, logger: logger).webIdentityToken
    }

    /// Returns a token to use instead of one STS refused: renews once when `rejected` is the current
    /// ID token, and returns the current one when another caller has already renewed it.
    /// - Parameters:
    ///   - rejected: The token STS refused.
    ///   - logger: Where to log.
    /// - Returns: The renewed ID token.
    /// - Throws: As ``token(forceRefresh:logger:)``.
    public func token(replacing rejected: WebIdentityToken, logger: Logger) async throws -> WebIdentityToken {
        try await self.refresher.tokens(rejectedIDToken: rejected.value, forced: false, logger: logger).webIdentityToken
    }

    /// Returns valid tokens (the access token too), renewing them when the ID token is within its
    /// refresh window.
    /// - Parameter logger: Where to log.
    /// - Returns: The tokens.
    /// - Throws: As ``token(forceRefresh:logger:)``.
    public func tokens(
        logger: Logger = .noop
    ) async throws -> OAuth2Tokens {
        try await self.refresher.tokens(rejectedIDToken: nil, forced: false, logger: logger)
    }

    /// An access token that has not expired: the current one, else one renewed now, whatever backoff a
    /// failed renewal set (an API refuses an expired access token, while the ID token may live on).
    /// - Parameter logger: Where to log.
    /// - Returns: The access token.
    /// - Throws: As ``token(forceRefresh:logger:)``; `tokenExpired` when the renewed access token has
    ///   expired too.
    public func accessToken(logger: Logger = .noop) async throws -> String {
        var tokens = try await self.tokens(logger: logger)
        guard let expiry = tokens.accessTokenExpiresAt, self.client.timeSource.now() >= expiry else { return tokens.accessToken }
        tokens = try await self.refresh(logger: logger)
        if let renewedExpiry = tokens.accessTokenExpiresAt, self.client.timeSource.now() >= renewedExpiry {
            throw WIFCredentialsError.tokenExpired("the issuer renewed the sign-in with an access token that has already expired")
        }
        return tokens.accessToken
    }

    /// Renews the tokens now, whatever their expiry.
    /// - Parameter logger: Where to log.
    /// - Returns: The renewed tokens.
    /// - Throws: As ``token(forceRefresh:logger:)``.
    public func refresh(
        logger: Logger = .noop
    ) async throws -> OAuth2Tokens {
        try await self.refresher.tokens(rejectedIDToken: nil, forced: true, logger: logger)
    }

    /// The tokens held now, without renewing anything.
    public var currentTokens: OAuth2Tokens {
        get async { await self.refresher.currentTokens }
    }

    /// Puts in the tokens of a new sign-in, ending a sign-in-required state.
    /// - Parameter tokens: The new tokens.
    public func replaceTokens(_ tokens: OAuth2Tokens) async {
        await self.refresher.replaceTokens(tokens)
    }

    /// Cancels the ID-token renewal in flight, if any, for an owner that shuts down: the callers
    /// waiting for it get the failure it ends with, and the next request renews again.
    public func cancelRefresh() async {
        await self.refresher.cancelRefresh()
    }

    /// The client; never a token.
    public var description: String { "OIDCTokenSource(\(self.client))" }
}

/// The actor behind ``OIDCTokenSource``: it owns the refresh state machine and the refresh in flight,
/// and performs the machine's actions.
actor OIDCTokenRefresher {
    private typealias Machine = OIDCTokenRefreshStateMachine<RefreshPromise<OAuth2Tokens>>

    private var machine: Machine
    private let client: OAuth2Client
    private let onTokensRefreshed: OIDCTokenSource.TokensRefreshed?
    /// Renewed tokens that could not be saved yet.
    private var unsaved: OAuth2Tokens?
    private var driver = RefreshDriver<OAuth2Tokens>()

    /// The promise of the refresh in flight.
    var inFlight: RefreshPromise<OAuth2Tokens>? { self.driver.promise }

    init(
        client: OAuth2Client,
        tokens: OAuth2Tokens,
        configuration: OIDCTokenSource.Configuration,
        onTokensRefreshed: OIDCTokenSource.TokensRefreshed?
    ) {
        self.client = client
        self.onTokensRefreshed = onTokensRefreshed
        self.machine = Machine(
            tokens: tokens,
            refreshWindow: max(0, Self.seconds(configuration.refreshWindow)),
            retryBackoff: max(0, Self.seconds(configuration.retryBackoff))
        )
    }

    var currentTokens: OAuth2Tokens { self.machine.tokens }

    /// Whether a refresh is in flight (for tests).
    var isRefreshing: Bool { self.machine.isRefreshing }

    /// Waits until the refresh in flight, if any, has finished (for tests).
    func waitForRefresh() async {
        await self.driver.wait()
    }

    /// Cancels the renewal in flight, if any; it ends as a failure that its waiters share.
    func cancelRefresh() {
        self.driver.cancel()
    }

    func replaceTokens(_ tokens: OAuth2Tokens) {
        self.machine.replaceTokens(tokens)
        self.unsaved = nil
    }

    func tokens(rejectedIDToken: String?, forced: Bool, logger: Logger) async throws -> OAuth2Tokens {
        if let pending = self.unsaved {
            try await self.save(pending, logger: logger)
            if self.unsaved == pending { self.unsaved = nil }
        }
        let now = self.client.timeSource.now()
        switch self.machine.tokenRequested(now: now, rejectedIDToken: rejectedIDToken, forced: forced, makePromise: { RefreshPromise<OAuth2Tokens>() }) {
        case .use(let tokens):
            return tokens
        case .fail(let error):
            throw error
        case .wait(let promise):
            return try await promise.value()
        case .startRefresh(let promise, let tokens, let reason):
            logger.debug(
                "renewing the ID token",
                metadata: [
                    "wif.oauth.refresh": "\(reason.rawValue)",
                    "wif.oauth.id_token_expiration": "\(tokens.idTokenExpiresAt.formatted(.iso8601))",
                ]
            )
            // Unstructured on purpose: the refresh outlives any one caller, and a caller's
            // cancellation must not reach it.
            self.driver.start(promise, running: Task { await self.runRefresh(promise, tokens: tokens, reason: reason, logger: logger) })
            return try await promise.value()
        }
    }

    // Swift 6.3's optimizer fails its ownership verification on this function (the compiler stops
    // with signal 6 in release builds); it is not hot, so it is left unoptimized.
    @_optimize(none)
    private func runRefresh(_ promise: RefreshPromise<OAuth2Tokens>, tokens: OAuth2Tokens, reason: Machine.Reason, logger: Logger) async {
        let renewed: OAuth2Tokens
        do {
            renewed = try await self.client.refresh(tokens, logger: logger)
        } catch {
            let signInRequired = (error as? WIFCredentialsError)?.code == .signInRequired
            let recoverable = (error as? WIFCredentialsError)?.isRecoverable ?? true
            let now = self.client.timeSource.now()
            let completion = self.machine.refreshFailed(error, recoverable: recoverable, signInRequired: signInRequired, now: now)
            self.finish(promise, completion, now: now, logger: logger)
            return
        }
        let completion = self.machine.refreshSucceeded(renewed)
        guard case .refreshed(let adopted) = completion, adopted == renewed else {
            // A new sign-in was put in meanwhile; its tokens win.
            self.finish(promise, completion, now: self.client.timeSource.now(), logger: logger)
            return
        }
        do {
            try await self.save(renewed, logger: logger)
        } catch {
            self.unsaved = renewed
            logger.info(
                "renewed the ID token but could not save the renewed tokens; the next request tries again",
                metadata: ["wif.oauth.error": "\(Self.safeDescription(error))"]
            )
            self.complete(promise, with: .failure(error))
            return
        }
        // Without a new ID token the renewal is a failure only when the ID token needed one (STS refused
        // it, or it is in its window); a renewal for the access token alone may leave it out.
        if renewed.idToken == tokens.idToken,
            reason == .rejected || self.client.timeSource.now() >= Machine.idTokenRefreshAt(tokens, window: self.machine.refreshWindow) {
            self.complete(
                promise,
                with: .failure(
                    WIFCredentialsError.tokenUnavailable(
                        "the issuer renewed the sign-in but sent no new ID token (OpenID Connect Core §12.2 lets it leave it out); STS needs one, so sign in again or use an issuer that returns ID tokens on refresh")
                )
            )
            return
        }
        self.finish(promise, completion, now: self.client.timeSource.now(), logger: logger)
    }

    private func complete(_ promise: RefreshPromise<OAuth2Tokens>, with result: Result<OAuth2Tokens, any Error>) {
        self.driver.complete(promise, with: result)
    }

    private func finish(_ promise: RefreshPromise<OAuth2Tokens>, _ completion: Machine.Completion, now: Date, logger: Logger) {
        switch completion {
        case .refreshed(let tokens):
            logger.debug("renewed the ID token", metadata: OAuth2Client.metadata(tokens))
            self.complete(promise, with: .success(tokens))
        case .keptCurrent(let tokens, let cause, let retryAfter):
            logger.info(
                "renewing the ID token failed; using the current one until the next attempt",
                metadata: [
                    "wif.oauth.error": "\(Self.safeDescription(cause))",
                    "wif.oauth.retry_after_seconds": "\(Int(retryAfter.timeIntervalSince(now).rounded()))",
                    "wif.oauth.id_token_expiration": "\(tokens.idTokenExpiresAt.formatted(.iso8601))",
                ]
            )
            self.complete(promise, with: .success(tokens))
        case .failed(let error):
            logger.info("renewing the ID token failed", metadata: ["wif.oauth.error": "\(Self.safeDescription(error))"])
            self.complete(promise, with: .failure(error))
        }
    }

    private func save(_ tokens: OAuth2Tokens, logger: Logger) async throws {
        guard let onTokensRefreshed else { return }
        try await onTokensRefreshed(tokens)
        logger.debug("saved the renewed tokens")
    }

    /// Our errors by code and reason (free of secrets); others by type only, since their text is
    /// unknown.
    static func safeDescription(_ error: any Error) -> String {
        if let error = error as? WIFCredentialsError { return error.description }
        return String(describing: type(of: error))
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
