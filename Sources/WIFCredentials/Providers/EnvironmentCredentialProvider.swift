import Foundation
import Logging

/// Supplies credentials from environment variables, as the AWS SDKs and CLI read them.
///
/// | Variable | |
/// |---|---|
/// | `AWS_ACCESS_KEY_ID` | required |
/// | `AWS_SECRET_ACCESS_KEY` | required |
/// | `AWS_SESSION_TOKEN` | optional, for temporary credentials |
/// | `AWS_CREDENTIAL_EXPIRATION` | optional, ISO 8601 (`2025-01-31T12:00:00Z`) |
/// | `AWS_ACCOUNT_ID` | optional |
///
/// A variable set to the empty string counts as unset. The environment is passed in, so tests never
/// change the process's own.
public struct EnvironmentCredentialProvider: CredentialProvider, CustomStringConvertible {
    /// Names of the variables read.
    public enum Variable {
        /// `AWS_ACCESS_KEY_ID`.
        public static let accessKeyId = "AWS_ACCESS_KEY_ID"
        /// `AWS_SECRET_ACCESS_KEY`.
        public static let secretAccessKey = "AWS_SECRET_ACCESS_KEY"
        /// `AWS_SESSION_TOKEN`.
        public static let sessionToken = "AWS_SESSION_TOKEN"
        /// `AWS_CREDENTIAL_EXPIRATION`.
        public static let expiration = "AWS_CREDENTIAL_EXPIRATION"
        /// `AWS_ACCOUNT_ID`.
        public static let accountId = "AWS_ACCOUNT_ID"
    }

    /// The variables this provider reads.
    public let environment: [String: String]

    /// Creates a provider reading `environment`.
    /// - Parameter environment: The variables to read; by default the process environment as it is
    ///   now.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// Returns the credentials the variables hold.
    /// - Parameter logger: Where to log.
    /// - Returns: The credentials.
    /// - Throws: ``WIFCredentialsError`` with code `noCredentials` naming the missing variable(s), or
    ///   `invalidConfiguration` when `AWS_CREDENTIAL_EXPIRATION` is not an ISO 8601 date.
    public func getCredentials(logger: Logger) async throws -> AWSCredentials {
        try self.credentials()
    }

    /// Reads the credentials synchronously; see ``getCredentials(logger:)``.
    /// - Returns: The credentials.
    /// - Throws: ``WIFCredentialsError`` as for ``getCredentials(logger:)``.
    public func credentials() throws -> AWSCredentials {
        let accessKeyId = self.value(Variable.accessKeyId)
        let secretAccessKey = self.value(Variable.secretAccessKey)
        guard let accessKeyId, let secretAccessKey else {
            let missing = [(Variable.accessKeyId, accessKeyId), (Variable.secretAccessKey, secretAccessKey)]
                .filter { $0.1 == nil }
                .map { name, _ in self.environment[name] == nil ? "\(name) is not set" : "\(name) is empty" }
            throw WIFCredentialsError.noCredentials(
                "no credentials in the environment: " + missing.joined(separator: " and ")
            )
        }
        var expiration: Date?
        if let text = self.value(Variable.expiration) {
            guard let date = Self.parseISO8601(text) else {
                throw WIFCredentialsError.invalidConfiguration(
                    "\(Variable.expiration) is not an ISO 8601 date such as 2025-01-31T12:00:00Z: '\(text)'"
                )
            }
            expiration = date
        }
        return AWSCredentials(
            accessKeyId: accessKeyId,
            secretAccessKey: secretAccessKey,
            sessionToken: self.value(Variable.sessionToken),
            expiration: expiration,
            accountId: self.value(Variable.accountId)
        )
    }

    /// The provider's type; the variables' values are not printed.
    public var description: String { "EnvironmentCredentialProvider" }

    private func value(_ name: String) -> String? {
        guard let value = self.environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// Parses an ISO 8601 date-time with or without fractional seconds.
    static func parseISO8601(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
