import Foundation
import WIFCredentials

/// What an AWS SDK's `credential_process` reads: `Version` 1, the keys, the session token and the
/// expiration (ISO 8601), and for an engine's per-user credentials the user's folder as `Prefix`.
/// Absent values are left out.
struct CredentialProcessOutput: Encodable {
    var Version = 1
    var AccessKeyId: String
    var SecretAccessKey: String
    var SessionToken: String?
    var Expiration: String?
    var Prefix: String?

    init(_ credentials: AWSCredentials, prefix: String? = nil) {
        self.AccessKeyId = credentials.accessKeyId
        self.SecretAccessKey = credentials.secretAccessKey
        self.SessionToken = credentials.sessionToken
        self.Expiration = credentials.expiration.map { $0.formatted(.iso8601) }
        self.Prefix = prefix
    }
}
