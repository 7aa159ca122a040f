import Foundation
import S3Partition

/// A federated user: who STS says the token belongs to, and their folder, reached with temporary
/// credentials that renew themselves.
struct UserSession: Sendable {
    /// STS's `SubjectFromWebIdentityToken`: the user id the folder is named after.
    let subject: String
    /// The user's folder in the shared bucket.
    let folder: PartitionedBucket
    /// When the session must be federated again: the token's `exp`, or the configured maximum age.
    let expiry: Date
}
