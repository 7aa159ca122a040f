/// The principals named by a statement's `Principal` or `NotPrincipal` element.
public struct PrincipalSet: Sendable, Hashable, Codable {
    /// `"Principal": "*"`: everyone, including anonymous callers.
    public var isEveryone: Bool
    /// Values of the `AWS` key: `*`, account ids, or IAM and STS ARNs.
    public var aws: [String]
    /// Values of the `Federated` key: identity providers such as `cognito-identity.amazonaws.com` or an
    /// OIDC provider ARN.
    public var federated: [String]
    /// Values of the `Service` key, such as `s3.amazonaws.com`.
    public var service: [String]
    /// Values of the `CanonicalUser` key.
    public var canonicalUser: [String]

    /// Creates a principal set.
    /// - Parameters:
    ///   - isEveryone: Whether this is the bare `"*"` form.
    ///   - aws: `AWS` values.
    ///   - federated: `Federated` values.
    ///   - service: `Service` values.
    ///   - canonicalUser: `CanonicalUser` values.
    public init(
        isEveryone: Bool = false, aws: [String] = [], federated: [String] = [], service: [String] = [],
        canonicalUser: [String] = []
    ) {
        self.isEveryone = isEveryone
        self.aws = aws
        self.federated = federated
        self.service = service
        self.canonicalUser = canonicalUser
    }

    /// The bare `"*"` principal.
    public static let everyone = PrincipalSet(isEveryone: true)
}

/// A statement's `Principal` or `NotPrincipal` element.
public enum PrincipalElement: Sendable, Hashable, Codable {
    /// `Principal`: the statement applies to these principals.
    case principal(PrincipalSet)
    /// `NotPrincipal`: the statement applies to everyone except these principals.
    case notPrincipal(PrincipalSet)
}

/// A statement's `Action` or `NotAction` element.
public enum ActionElement: Sendable, Hashable, Codable {
    /// `Action`: the statement covers these actions (`service:action`, with `*` and `?`).
    case action([String])
    /// `NotAction`: the statement covers every action except these.
    case notAction([String])

    /// The patterns, whichever form the element has.
    public var patterns: [String] {
        switch self {
        case .action(let values), .notAction(let values): return values
        }
    }
}

/// A statement's `Resource` or `NotResource` element.
public enum ResourceElement: Sendable, Hashable, Codable {
    /// `Resource`: the statement covers these ARNs (with `*`, `?` and policy variables).
    case resource([String])
    /// `NotResource`: the statement covers every resource except these.
    case notResource([String])

    /// The patterns, whichever form the element has.
    public var patterns: [String] {
        switch self {
        case .resource(let values), .notResource(let values): return values
        }
    }
}
