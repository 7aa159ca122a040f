/// What ``CephRGWFederation/apply(_:logger:)`` set up.
public struct CephRGWFederationResult: Sendable, Hashable {
    /// What happened to something that may have existed before.
    public enum Change: String, Sendable, Hashable {
        /// It did not exist and was created.
        case created
        /// It existed as wanted.
        case unchanged
        /// It existed otherwise and was re-created.
        case replaced
    }

    /// The OIDC provider's ARN, such as `arn:aws:iam:::oidc-provider/127.0.0.1:4566`.
    public var providerARN: String
    /// What happened to the provider.
    public var provider: Change
    /// The thumbprints registered with the provider.
    public var thumbprints: [String]
    /// The shared bucket.
    public var bucket: String
    /// The strategy set up.
    public var strategy: PartitionStrategy
    /// The role each user signs in with, by user id.
    public var roleARNs: [String: String]
    /// The shared role of the session-tags and session-policy strategies.
    public var sharedRoleARN: String?

    /// Creates a result.
    public init(
        providerARN: String, provider: Change, thumbprints: [String], bucket: String, strategy: PartitionStrategy,
        roleARNs: [String: String], sharedRoleARN: String?
    ) {
        self.providerARN = providerARN
        self.provider = provider
        self.thumbprints = thumbprints
        self.bucket = bucket
        self.strategy = strategy
        self.roleARNs = roleARNs
        self.sharedRoleARN = sharedRoleARN
    }
}
