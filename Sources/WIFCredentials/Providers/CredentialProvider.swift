import Logging
import WIFHTTP

/// Something that supplies AWS credentials.
///
/// Providers compose: `.chain(…)` tries several in order, and a refreshing cache wraps a provider of
/// temporary credentials so that callers share one refresh. Implementations must be safe to call from
/// many tasks at once.
public protocol CredentialProvider: Sendable {
    /// Returns credentials, fetching or refreshing them as needed.
    /// - Parameter logger: Where to log; defaults to a logger that discards everything.
    /// - Returns: Credentials that are valid now.
    /// - Throws: ``WIFCredentialsError`` when no credentials can be had.
    func getCredentials(logger: Logger) async throws -> AWSCredentials

    /// Forgets cached credentials with this access key id, so the next call fetches new ones.
    ///
    /// Called when a service answers `ExpiredToken` or `InvalidAccessKeyId`. Providers without a cache
    /// do nothing.
    /// - Parameter accessKeyId: The key id the service rejected.
    func invalidate(accessKeyId: String) async
}

extension CredentialProvider {
    public func invalidate(accessKeyId: String) async {}

    /// Returns credentials, logging nowhere.
    public func getCredentials() async throws -> AWSCredentials {
        try await self.getCredentials(logger: Logger.noop)
    }
}
