/// The role a policy plays in an authorization decision. Open-ended: new kinds may be added.
///
/// The kind changes what is valid (a resource policy needs `Principal`, an identity policy must not have
/// one) and how the policy combines with others during evaluation.
public struct PolicyKind: Sendable, Hashable, Codable, CustomStringConvertible {
    enum Base: String, Sendable, Hashable, CaseIterable {
        case identity
        case resource
        case trust
        case session
        case permissionsBoundary
    }

    let base: Base

    /// A policy attached to a user, group or role. Identity policies are combined by union.
    public static let identity = PolicyKind(base: .identity)
    /// A policy attached to a resource, such as an S3 bucket policy. Statements name a `Principal`.
    public static let resource = PolicyKind(base: .resource)
    /// A role trust policy (a resource policy on a role, usually without `Resource`).
    public static let trust = PolicyKind(base: .trust)
    /// A session policy passed when assuming a role; it limits (intersects) the session's permissions.
    public static let session = PolicyKind(base: .session)
    /// A permissions boundary; it limits (intersects) identity-based permissions.
    public static let permissionsBoundary = PolicyKind(base: .permissionsBoundary)

    /// All kinds known to this version of the library.
    public static let allCases: [PolicyKind] = Base.allCases.map { PolicyKind(base: $0) }

    /// Creates a kind from its name (`identity`, `resource`, `trust`, `session`, `permissionsBoundary`),
    /// ignoring case and dashes.
    /// - Parameter name: The name to look up.
    public init?(_ name: String) {
        let normalized = name.lowercased().filter { $0 != "-" && $0 != "_" }
        guard let base = Base.allCases.first(where: { $0.rawValue.lowercased() == normalized }) else {
            if normalized == "boundary" { self.base = .permissionsBoundary; return }
            if normalized == "bucket" || normalized == "bucketpolicy" { self.base = .resource; return }
            return nil
        }
        self.base = base
    }

    init(base: Base) {
        self.base = base
    }

    /// Whether statements of this kind of policy name principals.
    public var namesPrincipals: Bool { self.base == .resource || self.base == .trust }

    /// A short textual form.
    public var description: String { self.base.rawValue }

    /// Decodes the name as written in policies.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let kind = PolicyKind(name) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown policy kind \(name)")
        }
        self = kind
    }

    /// Encodes the name as written in policies.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.base.rawValue)
    }
}
