import Foundation

/// What `login` and `whoami` print about a sign-in: who, through which role, which folder, until when.
/// It holds no secrets.
public struct SessionSummary: Encodable, Sendable {
    /// The account name, `default` for the default sign-in.
    public var account: String
    /// `embedded`, or the S3 endpoint URL.
    public var endpoint: String
    /// The provider name.
    public var provider: String
    /// The user id.
    public var subject: String
    /// The role assumed.
    public var role: String
    /// The assumed-role ARN STS reported.
    public var assumedRole: String?
    /// The shared bucket.
    public var bucket: String
    /// The user's folder in the bucket.
    public var prefix: String
    /// When the credentials expire.
    public var credentialsExpiration: Date?
    /// Whether they had expired at the time given.
    public var credentialsExpired: Bool
    /// When the token expires, when known.
    public var tokenExpiration: Date?
    /// Where the token comes from: `development`, `token`, `file PATH`, `oidc account NAME`, `none (guest)`.
    public var tokenSource: String
    /// The identity pool of an identity-pool sign-in.
    public var identityPool: String?
    /// The identity id of an identity-pool sign-in.
    public var identityId: String?
    /// Why the pool gave ``role``: `guest`, `authenticated`, `rule`, `token`, or `pool` when the
    /// service does not say.
    public var roleReason: String?

    /// Summarizes a sign-in.
    /// - Parameters:
    ///   - session: The sign-in.
    ///   - account: The account name, `nil` for the default one.
    ///   - now: The time expiry is judged at.
    public init(_ session: StoredSession, account: String?, now: Date) {
        self.account = account ?? "default"
        self.endpoint = session.target
        self.provider = session.provider
        self.subject = session.subject
        self.role = session.roleArn
        self.assumedRole = session.assumedRoleArn
        self.bucket = session.bucket
        self.prefix = session.prefix
        self.credentialsExpiration = session.credentials.expiration
        self.credentialsExpired = session.credentials.expiration.map { $0 <= now } ?? false
        self.tokenExpiration = session.token.expiration
        switch session.token.kind {
        case .development: self.tokenSource = "development"
        case .token: self.tokenSource = "token"
        case .file: self.tokenSource = "file \(session.token.path ?? "")"
        case .oidc: self.tokenSource = "oidc account \(session.token.account ?? "")"
        case .guest: self.tokenSource = "none (guest)"
        }
        self.identityPool = session.identityPool?.poolId
        self.identityId = session.identityPool?.identityId
        self.roleReason = session.identityPool?.roleReason
    }

    /// The `label` and `value` of each line a person is shown, in order.
    public var rows: [(label: String, value: String)] {
        var rows: [(label: String, value: String)] = [
            ("account", self.account),
            ("endpoint", self.endpoint == ToolConfiguration.embeddedName ? "the embedded local stack" : self.endpoint),
            ("provider", self.provider),
            ("subject", self.subject),
        ]
        if let identityPool, let identityId {
            rows.append(("identity pool", identityPool))
            rows.append(("identity id", identityId))
        }
        rows.append(("role", self.role + (self.roleReason.map { " (\(Self.explain(reason: $0)))" } ?? "")))
        if let assumedRole { rows.append(("assumed role", assumedRole)) }
        rows.append(("bucket", self.bucket))
        rows.append(("prefix", self.prefix))
        rows.append(("folder", "s3://\(self.bucket)/\(self.prefix)"))
        let expiry = self.credentialsExpiration.map { $0.formatted(.iso8601) } ?? "none"
        rows.append(("credentials", self.credentialsExpired ? "expired at \(expiry) (renewed on next use)" : "valid until \(expiry)"))
        rows.append(("token", self.tokenSource + (self.tokenExpiration.map { ", valid until \($0.formatted(.iso8601))" } ?? "")))
        return rows
    }

    /// What a role reason means, for people.
    static func explain(reason: String) -> String {
        switch reason {
        case "guest": return "guest: the pool's unauthenticated role"
        case "authenticated": return "signed in: the pool's authenticated role"
        case "rule": return "chosen by a rule of the pool's role mapping"
        case "token": return "named by the token's cognito:preferred_role or cognito:roles"
        default: return "chosen by the pool"
        }
    }

    /// Aligned `label  value` lines, the values as they are (a terminal program escapes ``rows`` instead).
    public var text: String {
        let rows = self.rows
        let width = rows.map(\.label.count).max() ?? 0
        return rows.map { $0.label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.value }.joined(separator: "\n") + "\n"
    }
}
