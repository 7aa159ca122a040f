import Foundation

/// A set of AWS credentials: an access key id, its secret, and for temporary credentials a session
/// token and an expiry.
///
/// The secret access key and the session token never appear in `description` or `debugDescription`,
/// so credentials can be logged or interpolated into an error message without leaking.
public struct AWSCredentials: Sendable, Hashable {
    /// The access key id (`AKIA…` for long-term keys, `ASIA…` for temporary ones). Not a secret.
    public var accessKeyId: String
    /// The secret access key. Never printed.
    public var secretAccessKey: String
    /// The session token of temporary credentials. Never printed.
    public var sessionToken: String?
    /// When temporary credentials stop working, if they do.
    public var expiration: Date?
    /// The AWS account these credentials belong to, when known (from an assumed role's ARN).
    public var accountId: String?

    /// Creates credentials.
    /// - Parameters:
    ///   - accessKeyId: The access key id.
    ///   - secretAccessKey: The secret access key.
    ///   - sessionToken: The session token of temporary credentials.
    ///   - expiration: When the credentials expire, for temporary credentials.
    ///   - accountId: The account the credentials belong to, when known.
    public init(
        accessKeyId: String,
        secretAccessKey: String,
        sessionToken: String? = nil,
        expiration: Date? = nil,
        accountId: String? = nil
    ) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.expiration = expiration
        self.accountId = accountId
    }

    /// Whether the credentials are expired at `date`.
    /// - Parameter date: The moment to judge against (callers pass their clock's time).
    /// - Returns: `true` when an expiration is set and is not after `date`.
    public func isExpired(at date: Date) -> Bool {
        guard let expiration else { return false }
        return expiration <= date
    }
}

extension AWSCredentials: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        var text = "AWSCredentials(accessKeyId: \(self.accessKeyId)"
        if self.sessionToken != nil { text += ", sessionToken: <redacted>" }
        if let expiration = self.expiration { text += ", expiration: \(expiration.formatted(.iso8601))" }
        return text + ")"
    }

    public var debugDescription: String { self.description }
}

extension AWSCredentials: CustomReflectable {
    /// No children: `dump` and `Mirror(reflecting:)` would otherwise list the stored secrets that
    /// ``description`` leaves out.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
