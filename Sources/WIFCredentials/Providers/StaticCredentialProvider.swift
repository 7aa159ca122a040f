import Logging

/// Supplies the same credentials every time.
///
/// For keys the caller already has (from a secrets manager, a test, a command-line option). The
/// provider's `description` names the access key id only.
public struct StaticCredentialProvider: CredentialProvider, CustomStringConvertible {
    /// The credentials returned by every call.
    public let credentials: AWSCredentials

    /// Creates a provider that always returns `credentials`.
    /// - Parameter credentials: The credentials to return.
    public init(credentials: AWSCredentials) {
        self.credentials = credentials
    }

    /// Creates a provider from key parts.
    /// - Parameters:
    ///   - accessKeyId: The access key id.
    ///   - secretAccessKey: The secret access key.
    ///   - sessionToken: The session token, for temporary credentials.
    public init(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.credentials = AWSCredentials(
            accessKeyId: accessKeyId,
            secretAccessKey: secretAccessKey,
            sessionToken: sessionToken
        )
    }

    /// Returns the fixed credentials.
    /// - Parameter logger: Unused.
    /// - Returns: ``credentials``.
    public func getCredentials(logger: Logger) async throws -> AWSCredentials {
        self.credentials
    }

    /// The provider's type and access key id.
    public var description: String {
        "StaticCredentialProvider(accessKeyId: \(self.credentials.accessKeyId))"
    }
}
