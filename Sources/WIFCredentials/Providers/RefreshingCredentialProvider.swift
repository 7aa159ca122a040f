import Logging
import WIFHTTP

/// A cache in front of a source of temporary credentials that refreshes them before they expire.
///
/// Callers share one refresh however many arrive at once. The rules follow the cross-SDK refresh
/// design (see ``Configuration``):
/// - Outside the advisory window the cached credentials are returned without contacting the source.
/// - In the advisory window a refresh is attempted; in the mandatory window (or after
///   ``invalidate(accessKeyId:)``) one is required.
/// - When a refresh fails recoverably (``WIFCredentialsError/isRecoverable``, or any error that is not
///   a ``WIFCredentialsError``), the cached credentials are returned — even expired: the service
///   decides — and the source is left alone for ``Configuration/refreshBackoff``. With nothing cached,
///   `noCredentials` is thrown and the next call tries again.
/// - A non-recoverable error is thrown and, for ``Configuration/nonRecoverableErrorCacheDuration``,
///   thrown again without contacting the source.
/// - Credentials from the source that are already expired count as a recoverable failure.
///
/// A caller's cancellation never cancels the shared refresh: the cancelled caller gets
/// `CancellationError` at once and the others still get the result.
///
/// ```swift
/// let provider = RefreshingCredentialProvider(source: webIdentityProvider)
/// let credentials = try await provider.getCredentials(logger: logger)
/// ```
public struct RefreshingCredentialProvider: CredentialProvider, CustomStringConvertible {
    let cache: CredentialRefreshCache
    private let invalidateSource: @Sendable (String) async -> Void
    private let sourceName: String

    /// Wraps a provider of temporary credentials.
    ///
    /// ``invalidate(accessKeyId:)`` is passed on to `source`, so a cache inside it is cleared too.
    /// - Parameters:
    ///   - source: Where new credentials come from; called once per refresh.
    ///   - configuration: The refresh rules. An invalid one (see ``Configuration/validate()``) makes
    ///     every ``getCredentials(logger:)`` throw its `invalidConfiguration` error.
    ///   - timeSource: The clock deciding expiry, windows and backoff.
    public init(
        source: some CredentialProvider,
        configuration: Configuration = .init(),
        timeSource: TimeSource = .system
    ) {
        self.cache = CredentialRefreshCache(
            configuration: configuration,
            timeSource: timeSource,
            fetch: { logger in try await source.getCredentials(logger: logger) }
        )
        self.invalidateSource = { accessKeyId in await source.invalidate(accessKeyId: accessKeyId) }
        self.sourceName = String(describing: type(of: source))
    }

    /// Wraps a closure that fetches temporary credentials.
    /// - Parameters:
    ///   - configuration: The refresh rules. An invalid one (see ``Configuration/validate()``) makes
    ///     every ``getCredentials(logger:)`` throw its `invalidConfiguration` error.
    ///   - timeSource: The clock deciding expiry, windows and backoff.
    ///   - fetch: Returns new credentials; called once per refresh with the logger of the request that
    ///     started it. Throw a ``WIFCredentialsError`` to say whether retrying can help.
    public init(
        configuration: Configuration = .init(),
        timeSource: TimeSource = .system,
        fetch: @escaping @Sendable (_ logger: Logger) async throws -> AWSCredentials
    ) {
        self.cache = CredentialRefreshCache(configuration: configuration, timeSource: timeSource, fetch: fetch)
        self.invalidateSource = { _ in }
        self.sourceName = "closure"
    }

    /// Returns cached credentials, refreshing them first when the rules say so.
    /// - Parameter logger: Where to log (debug and info, never secrets); a refresh this call starts
    ///   logs here too.
    /// - Returns: The credentials to sign with; after a recoverable failure these may be the cached,
    ///   possibly expired, ones.
    /// - Throws: ``WIFCredentialsError`` `noCredentials` when nothing is cached and the source failed
    ///   recoverably; the source's non-recoverable error (also when re-raised from the error cache);
    ///   `invalidConfiguration` for a bad ``Configuration``; `CancellationError` when the calling task is
    ///   cancelled while waiting for a refresh.
    public func getCredentials(logger: Logger) async throws -> AWSCredentials {
        try await self.cache.resolve(logger: logger).credentials
    }

    /// Marks the cached credentials with this access key id as rejected, so that the next request
    /// refreshes them (still subject to the backoff after a failure), and passes the rejection on to the
    /// source. An id that is no longer cached changes nothing here.
    /// - Parameter accessKeyId: The key id a service rejected (`ExpiredToken`, `InvalidAccessKeyId`).
    public func invalidate(accessKeyId: String) async {
        await self.cache.invalidate(accessKeyId: accessKeyId, logger: Logger.noop)
        await self.invalidateSource(accessKeyId)
    }

    /// Cancels the refresh in flight, if any, for an owner that shuts down: the source sees the
    /// cancellation, and the callers waiting for that refresh get what a failed refresh gives them
    /// (the cached credentials, or `noCredentials` when none are cached). The next request refreshes
    /// again.
    public func cancelRefresh() async {
        await self.cache.cancelRefresh()
    }

    /// Names the type and its source, never any credentials.
    public var description: String { "RefreshingCredentialProvider(source: \(self.sourceName))" }
}
