/// How an object store without policy variables in `Resource` keeps each federated user in their own
/// folder of a shared bucket.
///
/// AWS and SeaweedFS accept one policy for every user (`arn:aws:s3:::bucket/${provider:sub}/*`); Ceph
/// RGW refuses variables in `Resource`, so the user's folder must be written out literally somewhere:
///
/// | strategy | where the user's folder is written | who decides which folder a session gets |
/// | --- | --- | --- |
/// | ``rolePerUser`` | one role per user, its trust policy pinned to `<provider>:sub` | the identity provider's `sub` |
/// | ``sessionTags`` | one shared role, one role policy per user keyed on `aws:PrincipalTag/sub` | the token's `https://aws.amazon.com/tags` claim |
/// | ``sessionPolicy`` | one shared role for the whole bucket, narrowed by a session policy per request | the server that calls STS |
///
/// When each is safe is described on each strategy. The set is open: more strategies may be added.
public struct PartitionStrategy: Sendable, Hashable, CustomStringConvertible {
    enum Kind: String, Sendable, Hashable, CaseIterable {
        case rolePerUser = "role-per-user"
        case sessionTags = "session-tags"
        case sessionPolicy = "session-policy"
    }

    let kind: Kind

    /// One role per user whose trust policy admits only tokens whose `sub` is that user, with a role
    /// policy on that user's folder.
    ///
    /// Safe whenever the identity provider's `sub` is stable and never reassigned — it is the same
    /// guarantee as AWS's `${provider:sub}` policies. The roles must exist before a user signs in (create
    /// them when the user registers), and each user signs in with their own role ARN.
    public static let rolePerUser = PartitionStrategy(kind: .rolePerUser)

    /// One shared role whose trust policy allows `sts:TagSession`; each user's folder is a role policy
    /// that applies only when the session's `aws:PrincipalTag/sub` tag is that user.
    ///
    /// The tag comes from the token's `https://aws.amazon.com/tags` claim, so this is safe only when
    /// the identity provider sets that claim from data the user cannot edit, and sets the `sub` tag equal
    /// to the token's `sub` (whose folder the client uses). A provider that lets users choose their own
    /// claims would let them pick anyone's folder.
    public static let sessionTags = PartitionStrategy(kind: .sessionTags)

    /// One shared role allowed the whole bucket, assumed by a trusted server that passes a session
    /// policy limited to the user's folder (``CephRGWFederationPlan/sessionPolicy(for:)``).
    ///
    /// Safe only when end users cannot call `AssumeRoleWithWebIdentity` for the role themselves: they
    /// would leave the session policy out and reach every user's files. So the role trusts only tokens
    /// for the server's own client id (``CephRGWFederationPlan/brokerClientId``), which the identity
    /// provider issues to the server and never to a user's app, and the server is the only holder of
    /// those tokens.
    public static let sessionPolicy = PartitionStrategy(kind: .sessionPolicy)

    /// Every strategy, in the order of the table above.
    public static let all: [PartitionStrategy] = Kind.allCases.map(PartitionStrategy.init(kind:))

    /// The strategy's name: `role-per-user`, `session-tags` or `session-policy`.
    public var name: String { self.kind.rawValue }

    /// The strategy with a name.
    /// - Parameter name: `role-per-user`, `session-tags` or `session-policy`.
    /// - Returns: The strategy, or `nil` for an unknown name.
    public init?(name: String) {
        guard let kind = Kind(rawValue: name) else { return nil }
        self.kind = kind
    }

    init(kind: Kind) {
        self.kind = kind
    }

    /// The strategy's name.
    public var description: String { self.name }
}
