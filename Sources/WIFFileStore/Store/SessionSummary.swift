import Foundation

/// What `login` and `whoami` print about a sign-in: who, through which role, which folder, until when.
/// It holds no secrets.
struct SessionSummary: Encodable {
    var account: String
    var endpoint: String
    var provider: String
    var subject: String
    var role: String
    var assumedRole: String?
    var bucket: String
    var prefix: String
    var credentialsExpiration: Date?
    var credentialsExpired: Bool
    var tokenExpiration: Date?
    var tokenSource: String

    init(_ session: StoredSession, account: String?, now: Date) {
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
        }
    }

    /// Aligned `label  value` lines.
    var text: String {
        var rows: [(String, String)] = [
            ("account", self.account),
            ("endpoint", StoreRuntime.describe(target: self.endpoint)),
            ("provider", self.provider),
            ("subject", self.subject),
            ("role", self.role),
        ]
        if let assumedRole { rows.append(("assumed role", assumedRole)) }
        rows.append(("bucket", self.bucket))
        rows.append(("prefix", self.prefix))
        rows.append(("folder", "s3://\(self.bucket)/\(self.prefix)"))
        let expiry = self.credentialsExpiration.map { $0.formatted(.iso8601) } ?? "none"
        rows.append(("credentials", self.credentialsExpired ? "expired at \(expiry) (renewed on next use)" : "valid until \(expiry)"))
        rows.append(("token", self.tokenSource + (self.tokenExpiration.map { ", valid until \($0.formatted(.iso8601))" } ?? "")))
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 }.joined(separator: "\n") + "\n"
    }
}

/// Prints a value as one line of JSON: sorted keys, ISO 8601 dates.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    printOut(String(decoding: try encoder.encode(value), as: UTF8.self) + "\n")
}
