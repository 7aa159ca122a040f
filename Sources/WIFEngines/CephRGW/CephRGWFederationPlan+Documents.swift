import PolicyEngine

/// A role the plan creates, with its trust policy and role policies.
public struct CephRGWRole: Sendable, Hashable {
    /// The role's name.
    public var name: String
    /// The trust (assume-role) policy, compact JSON.
    public var trustPolicy: String
    /// The role policies, by name.
    public var policies: [CephRGWRolePolicy]

    /// Creates a role description.
    public init(name: String, trustPolicy: String, policies: [CephRGWRolePolicy]) {
        self.name = name
        self.trustPolicy = trustPolicy
        self.policies = policies
    }
}

/// An inline role policy.
public struct CephRGWRolePolicy: Sendable, Hashable {
    /// The policy's name within its role.
    public var name: String
    /// The policy, compact JSON.
    public var document: String

    /// Creates a role policy.
    public init(name: String, document: String) {
        self.name = name
        self.document = document
    }
}

extension CephRGWFederationPlan {
    /// The roles the plan creates: one per user for ``PartitionStrategy/rolePerUser``, one shared role
    /// otherwise (with one policy per user for ``PartitionStrategy/sessionTags``).
    public var roles: [CephRGWRole] {
        switch self.strategy.kind {
        case .rolePerUser:
            return self.users.map { user in
                CephRGWRole(
                    name: self.roleName(for: user), trustPolicy: self.userTrustPolicy(for: user),
                    policies: [CephRGWRolePolicy(name: Self.personalStorePolicyName, document: self.personalStorePolicy(for: user))])
            }
        case .sessionTags:
            return [
                CephRGWRole(
                    name: self.sharedRoleName, trustPolicy: self.taggedTrustPolicy,
                    policies: self.users.map { CephRGWRolePolicy(name: self.userPolicyName(for: $0), document: self.taggedUserPolicy(for: $0)) })
            ]
        case .sessionPolicy:
            return [
                CephRGWRole(
                    name: self.sharedRoleName, trustPolicy: self.brokerTrustPolicy,
                    policies: [CephRGWRolePolicy(name: Self.sharedBucketPolicyName, document: self.sharedBucketPolicy)])
            ]
        }
    }

    /// A user's folder and nothing else: listing with the folder as prefix, and reading, writing and
    /// deleting objects under it. It is the role policy of a role-per-user role and the session policy
    /// of the session-policy strategy (`policies/ceph-rgw/role-per-user/personal-store.json`).
    /// - Parameter user: The user id, written literally.
    /// - Returns: The policy, compact JSON.
    public func personalStorePolicy(for user: String) -> String {
        Self.personalStorePolicy(bucket: self.bucket, user: user)
    }

    /// A user's folder in a bucket and nothing else, as ``personalStorePolicy(for:)`` writes it: for a
    /// trusted server that builds session policies without a whole plan.
    /// - Parameters:
    ///   - bucket: The shared bucket.
    ///   - user: The user id, written literally; check it first with ``checkUserId(_:)``.
    /// - Returns: The policy, compact JSON.
    public static func personalStorePolicy(bucket: String, user: String) -> String {
        Self.policy([
            Self.listOwnFolder(bucket: bucket, user: user, tag: []),
            Self.ownObjects(bucket: bucket, user: user, tag: []),
        ])
    }

    /// The session policy a trusted server passes to `AssumeRoleWithWebIdentity` for a user under the
    /// session-policy strategy: the same as ``personalStorePolicy(for:)``.
    /// - Parameter user: The user id (the token's `sub`).
    /// - Returns: The policy, compact JSON (under STS's 2,048-character limit for ids up to ~600 bytes).
    public func sessionPolicy(for user: String) -> String {
        self.personalStorePolicy(for: user)
    }

    /// The trust policy of a user's own role: tokens of the provider, for one of the client ids, whose
    /// `sub` is the user (`policies/ceph-rgw/role-per-user/trust.json`).
    public func userTrustPolicy(for user: String) -> String {
        Self.policy([
            self.federatedStatement(
                sid: "ThisUserOfTheApp", actions: ["sts:AssumeRoleWithWebIdentity"],
                equals: [("\(self.providerKey):sub", [user]), ("\(self.providerKey):aud", self.clientIds)])
        ])
    }

    /// The trust policy of the session-tags strategy's shared role: tokens of the provider for one of
    /// the client ids, which may tag the session (`policies/ceph-rgw/session-tags/trust.json`).
    public var taggedTrustPolicy: String {
        Self.policy([
            self.federatedStatement(
                sid: "UsersOfTheAppWithTags", actions: ["sts:AssumeRoleWithWebIdentity", "sts:TagSession"],
                equals: [("\(self.providerKey):aud", self.clientIds)])
        ])
    }

    /// A user's role policy under the session-tags strategy: their folder, only in sessions tagged
    /// `sub` = the user (`policies/ceph-rgw/session-tags/user.json`).
    public func taggedUserPolicy(for user: String) -> String {
        let tag = [Condition(.stringEquals, key: "aws:PrincipalTag/\(Self.userTagKey)", values: [user])]
        return Self.policy([
            Self.listOwnFolder(bucket: self.bucket, user: user, tag: tag),
            Self.ownObjects(bucket: self.bucket, user: user, tag: tag),
        ])
    }

    /// The trust policy of the session-policy strategy's shared role: tokens of the provider for the
    /// trusted server's client id only (`policies/ceph-rgw/session-policy/trust.json`).
    public var brokerTrustPolicy: String {
        Self.policy([
            self.federatedStatement(
                sid: "TheTrustedServerOnly", actions: ["sts:AssumeRoleWithWebIdentity"],
                equals: [("\(self.providerKey):aud", [self.brokerClientId])])
        ])
    }

    /// The role policy of the session-policy strategy's shared role: the whole bucket, which each
    /// session's policy narrows to one folder (`policies/ceph-rgw/session-policy/shared-bucket.json`).
    public var sharedBucketPolicy: String {
        Self.policy([
            .allow("ListTheBucket", actions: ["s3:ListBucket"], resources: [self.bucketARN]),
            .allow("ReadWriteEveryObject", actions: Self.objectActions, resources: [self.bucketARN + "/*"]),
        ])
    }

    // MARK: Building blocks

    var bucketARN: String { "arn:aws:s3:::\(self.bucket)" }

    /// Listing with the user's folder as the prefix, under the session-tags strategy only in sessions
    /// with the user's tag.
    private static func listOwnFolder(bucket: String, user: String, tag: [Condition]) -> Statement {
        .allow(
            "ListOwnFolder", actions: ["s3:ListBucket"], resources: ["arn:aws:s3:::\(bucket)"],
            conditions: tag + [Condition(.stringLike, key: "s3:prefix", values: ["\(user)/", "\(user)/*"])])
    }

    private static func ownObjects(bucket: String, user: String, tag: [Condition]) -> Statement {
        .allow("ReadWriteOwnObjects", actions: Self.objectActions, resources: ["arn:aws:s3:::\(bucket)/\(user)/*"], conditions: tag)
    }

    private func federatedStatement(sid: String, actions: [String], equals: [(key: String, values: [String])]) -> Statement {
        .allow(
            sid, federated: [self.providerARN], actions: actions,
            conditions: equals.map { Condition(.stringEquals, key: $0.key, values: $0.values) })
    }

    /// Compact JSON with every list an array, in the order the statements give: RGW refuses policies
    /// with whitespace, and reads a list of one the same as its value.
    private static func policy(_ statements: [Statement]) -> String {
        PolicyDocument(statements: statements, lists: .arrays).json()
    }
}
