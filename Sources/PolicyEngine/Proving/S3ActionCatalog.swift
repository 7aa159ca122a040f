/// The S3 actions the prover checks: those on objects, those that list a bucket's keys, and any other
/// action a policy names.
enum S3ActionCatalog {
    /// Actions whose resource is an object ARN (`arn:aws:s3:::bucket/key`).
    static let objectActions = [
        "GetObject", "GetObjectVersion", "GetObjectAttributes", "GetObjectVersionAttributes", "PutObject",
        "DeleteObject", "DeleteObjectVersion", "AbortMultipartUpload", "ListMultipartUploadParts",
        "GetObjectAcl", "GetObjectVersionAcl", "PutObjectAcl", "PutObjectVersionAcl",
        "GetObjectTagging", "GetObjectVersionTagging", "PutObjectTagging", "PutObjectVersionTagging",
        "DeleteObjectTagging", "DeleteObjectVersionTagging", "RestoreObject", "GetObjectRetention",
        "PutObjectRetention", "GetObjectLegalHold", "PutObjectLegalHold", "GetObjectTorrent",
        "GetObjectVersionTorrent", "BypassGovernanceRetention", "ReplicateObject", "ReplicateDelete",
        "ReplicateTags",
    ].map { "s3:" + $0 }

    /// Actions on the bucket ARN that hand the caller every user's folder indirectly, and how.
    static let escalatingBucketActions: [(action: String, how: String)] = [
        ("s3:PutBucketPolicy", "can rewrite the bucket policy to grant the caller every folder"),
        ("s3:DeleteBucketPolicy", "can remove the bucket policy and the denies that keep folders apart"),
        ("s3:PutBucketAcl", "can grant the caller the bucket through its access control list"),
        ("s3:PutInventoryConfiguration", "can have S3 deliver a list of every key to a bucket the caller reads"),
        ("s3:PutReplicationConfiguration", "can have S3 copy every object to a bucket the caller reads"),
        ("s3:PutBucketLogging", "can have S3 log every request's key to a bucket the caller reads"),
    ]

    /// Actions on the bucket ARN that reveal keys, with `s3:prefix` and `s3:delimiter` in the context.
    static let listingActions = ["s3:ListBucket", "s3:ListBucketVersions", "s3:ListBucketMultipartUploads"]

    /// The actions to check for a set of statements: the catalogue, plus every action the statements
    /// name without wildcards, sorted into object actions and others by their name (an S3 action whose
    /// name mentions objects or multipart uploads acts on objects). Actions of other services are left out.
    static func universe(_ statements: [Statement]) -> (object: [String], listing: [String], other: [String]) {
        var object = self.objectActions
        var other: [String] = []
        let known = Set((self.objectActions + self.listingActions + self.escalatingBucketActions.map(\.action)).map { $0.lowercased() })
        for statement in statements {
            for action in statement.action.patterns where !action.contains("*") && !action.contains("?") {
                let lowered = action.lowercased()
                guard lowered.hasPrefix("s3:"), !known.contains(lowered) else { continue }
                if lowered.contains("object") || lowered.contains("multipart") {
                    if !object.contains(where: { $0.lowercased() == lowered }) { object.append(action) }
                } else if !other.contains(where: { $0.lowercased() == lowered }) {
                    other.append(action)
                }
            }
        }
        return (object, self.listingActions, other.sorted())
    }
}
