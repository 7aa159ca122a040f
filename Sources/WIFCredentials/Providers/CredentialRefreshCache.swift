import Foundation
import Logging
import WIFFoundation

/// The actor behind ``RefreshingCredentialProvider``: it owns the state machine and the one refresh
/// `Task` in flight, and performs the machine's actions.
///
/// The refresh runs in an unstructured `Task`, so cancelling a caller never cancels it; callers wait on
/// a ``RefreshPromise`` that lets each of them leave on cancellation.
actor CredentialRefreshCache {
    /// Fetches new credentials from the wrapped source.
    typealias Fetch = @Sendable (Logger) async throws -> AWSCredentials

    /// Credentials and how they were obtained, for tests of the refresh rules.
    struct Resolution: Sendable {
        /// The credentials handed to the caller.
        var credentials: AWSCredentials
        /// Whether a refresh was due but held back by the backoff after a failure.
        var rateLimited: Bool
    }

    private typealias Machine = CredentialRefreshStateMachine<RefreshPromise<AWSCredentials>>

    private var machine: Machine
    private var driver = RefreshDriver<AWSCredentials>()
    private let fetch: Fetch
    private let timeSource: TimeSource
    private let configurationError: WIFCredentialsError?

    /// Creates a cache with nothing cached.
    /// - Parameters:
    ///   - configuration: The refresh rules; an invalid one makes every request throw its error.
    ///   - timeSource: The clock.
    ///   - fetch: Fetches new credentials.
    init(configuration: RefreshingCredentialProvider.Configuration, timeSource: TimeSource, fetch: @escaping Fetch) {
        self.machine = Machine(settings: configuration.settings)
        self.fetch = fetch
        self.timeSource = timeSource
        self.configurationError = configuration.validationError()
    }

    /// Answers a request for credentials, refreshing as the rules say.
    /// - Parameter logger: Where to log; also used by a refresh this call starts.
    /// - Returns: The credentials and whether the backoff held a due refresh back.
    /// - Throws: The configuration's error; a cached or fresh non-recoverable error; `noCredentials`
    ///   when nothing is cached and the source failed; `CancellationError` when the caller is cancelled
    ///   while waiting.
    func resolve(logger: Logger) async throws -> Resolution {
        if let configurationError { throw configurationError }
        let now = self.timeSource.now()
        switch self.machine.getCredentials(now: now, makeRefresh: { RefreshPromise<AWSCredentials>() }) {
        case .useCached(let credentials, let rateLimited):
            if rateLimited {
                logger.debug(
                    "Credential refresh is due but backing off after a failed refresh; using cached credentials",
                    metadata: Self.metadata(outcome: "backoff", credentials: credentials)
                )
            }
            return Resolution(credentials: credentials, rateLimited: rateLimited)

        case .throwCachedError(let error):
            logger.debug(
                "Raising the cached error of a recent non-recoverable refresh failure without contacting the source",
                metadata: [
                    "wif.credentials.refresh": "cached_error",
                    "wif.credentials.refresh.error": "\(Machine.safeDescription(of: error))",
                ]
            )
            throw error

        case .startRefresh(let promise, let reason):
            self.startRefresh(promise, reason: reason.rawValue, logger: logger)
            return Resolution(credentials: try await promise.value(), rateLimited: false)

        case .startBackgroundRefresh(let promise, let credentials):
            self.startRefresh(promise, reason: "background_advisory", logger: logger)
            return Resolution(credentials: credentials, rateLimited: false)

        case .waitForRefresh(let promise):
            return Resolution(credentials: try await promise.value(), rateLimited: false)
        }
    }

    /// Marks the cached credentials for a mandatory refresh if they carry `accessKeyId`.
    func invalidate(accessKeyId: String, logger: Logger) {
        let marked = self.machine.invalidate(accessKeyId: accessKeyId)
        logger.debug(
            marked
                ? "Cached credentials were rejected; the next request refreshes them"
                : "Ignoring the rejection of credentials that are no longer cached",
            metadata: [
                "wif.credentials.refresh": "invalidate",
                "wif.credentials.access_key_id": "\(accessKeyId)",
            ]
        )
    }

    /// The advisory window chosen for the cached credentials, in seconds.
    var advisoryWindow: TimeInterval? { self.machine.advisoryWindow }

    /// How many callers are waiting for the refresh in flight.
    var waitingCallerCount: Int { self.machine.refreshInFlight?.waiterCount ?? 0 }

    /// Whether a refresh is in flight.
    var isRefreshing: Bool { self.driver.isRefreshing }

    /// Waits until the refresh in flight, if any, has finished and its result is recorded.
    func waitForRefresh() async {
        await self.driver.wait()
    }

    /// Cancels the refresh in flight, if any: the source sees the cancellation, and the refresh ends
    /// as a failure that its waiters share. The next request refreshes again.
    func cancelRefresh() {
        self.driver.cancel()
    }

    private func startRefresh(_ promise: RefreshPromise<AWSCredentials>, reason: String, logger: Logger) {
        logger.debug(
            "Refreshing credentials",
            metadata: ["wif.credentials.refresh": "\(reason)"]
        )
        // Unstructured on purpose: the refresh outlives any one caller, and a caller's cancellation must
        // not reach it.
        self.driver.start(
            promise,
            running: Task {
                let result: Result<AWSCredentials, any Error>
                do {
                    result = .success(try await self.fetch(logger))
                } catch {
                    result = .failure(error)
                }
                self.finishRefresh(promise, result: result, logger: logger)
            })
    }

    private func finishRefresh(_ promise: RefreshPromise<AWSCredentials>, result: Result<AWSCredentials, any Error>, logger: Logger) {
        let now = self.timeSource.now()
        let completion: Machine.Completion
        switch result {
        case .success(let credentials):
            completion = self.machine.refreshSucceeded(credentials, now: now)
        case .failure(let error):
            completion = self.machine.refreshFailed(error, recoverable: Self.isRecoverable(error), now: now)
        }
        Self.log(completion, now: now, logger: logger)
        self.driver.complete(promise, with: completion.result)
    }

    /// Whether waiting and trying again could succeed: ``WIFCredentialsError/isRecoverable`` for our
    /// errors; any other error (a custom source's, a cancellation inside the source) counts as
    /// recoverable, so the cache keeps serving what it has.
    static func isRecoverable(_ error: any Error) -> Bool {
        guard let error = error as? WIFCredentialsError else { return true }
        return error.isRecoverable
    }

    private static func log(_ completion: Machine.Completion, now: Date, logger: Logger) {
        switch completion {
        case .refreshed(let credentials, let window):
            var metadata = Self.metadata(outcome: "refreshed", credentials: credentials)
            metadata["wif.credentials.refresh.advisory_window_seconds"] = "\(Int(window))"
            logger.info("Refreshed credentials", metadata: metadata)
        case .failedServingCached(let credentials, let cause, let retryAfter):
            var metadata = Self.metadata(outcome: "failed_using_cached", credentials: credentials)
            metadata["wif.credentials.refresh.error"] = "\(Machine.safeDescription(of: cause))"
            metadata["wif.credentials.refresh.retry_after_seconds"] = "\(Int(retryAfter.timeIntervalSince(now).rounded()))"
            logger.info("Credential refresh failed; using cached credentials until the next attempt", metadata: metadata)
        case .failedWithoutCredentials(_, let cause):
            logger.info(
                "Fetching credentials failed and none are cached",
                metadata: [
                    "wif.credentials.refresh": "failed_no_credentials",
                    "wif.credentials.refresh.error": "\(Machine.safeDescription(of: cause))",
                ]
            )
        case .failedNonRecoverable(let error, let cachedUntil):
            logger.info(
                "Credential refresh failed with an error that retrying cannot fix",
                metadata: [
                    "wif.credentials.refresh": "failed_non_recoverable",
                    "wif.credentials.refresh.error": "\(Machine.safeDescription(of: error))",
                    "wif.credentials.refresh.error_cached_seconds": "\(Int(cachedUntil.timeIntervalSince(now).rounded()))",
                ]
            )
        }
    }

    /// Metadata naming credentials by their access key id and expiry only, never their secrets.
    private static func metadata(outcome: String, credentials: AWSCredentials) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "wif.credentials.refresh": "\(outcome)",
            "wif.credentials.access_key_id": "\(credentials.accessKeyId)",
        ]
        if let expiration = credentials.expiration {
            metadata["wif.credentials.expiration"] = "\(expiration.formatted(.iso8601))"
        }
        return metadata
    }
}
