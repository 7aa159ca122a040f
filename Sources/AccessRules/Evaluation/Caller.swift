import WIFFoundation

/// A claim of a caller's token: one string, a list of strings, or something else (a number, a
/// boolean) that rules only compare as text.
public enum ClaimValue: Sendable, Hashable {
    /// One string; a groups claim sent this way is one group.
    case string(String)
    /// A list of strings.
    case strings([String])

    /// Whether the claim is, or lists, `name`. A groups claim may arrive as one string.
    func contains(_ name: String) -> Bool {
        switch self {
        case .string(let value): return value.hasSameBytes(as: name)
        case .strings(let values): return values.containsSameBytes(as: name)
        }
    }

    var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}

extension ClaimValue: ExpressibleByStringLiteral, ExpressibleByArrayLiteral {
    /// A string claim.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A list claim.
    public init(arrayLiteral elements: String...) { self = .strings(elements) }
}

/// Who is asking: an auth mode with the claims and groups it carries. A caller with no credentials at
/// all (signed out, no API key) is `nil` wherever a `Caller?` is taken.
public struct Caller: Sendable, Hashable {
    /// Which identity pool role an IAM caller holds.
    public enum Role: String, Sendable, Hashable, Codable {
        /// The role for signed-in identities.
        case authenticated
        /// The role for guests.
        case unauthenticated
    }

    /// How the caller proved who it is.
    public var authMode: AuthProvider
    /// The token's claims (user pools, OIDC, a function's resolved context); empty for an API key.
    public var claims: [String: ClaimValue]
    /// The identity pool role, for an IAM caller.
    public var role: Role?
    /// Groups known besides the token's groups claim (for example from a directory lookup).
    public var groups: [String]

    /// Creates a caller.
    /// - Parameters:
    ///   - authMode: How the caller proved who it is.
    ///   - claims: The token's claims.
    ///   - role: The identity pool role, for IAM; authenticated when not given.
    ///   - groups: Extra groups.
    public init(authMode: AuthProvider, claims: [String: ClaimValue] = [:], role: Role? = nil, groups: [String] = []) {
        self.authMode = authMode
        self.claims = claims
        self.role = authMode == .iam ? (role ?? .authenticated) : role
        self.groups = groups
    }

    /// A user pool caller. The groups go into `cognito:groups` unless the claims carry it already.
    /// - Parameters:
    ///   - sub: The `sub` claim.
    ///   - username: The `cognito:username` claim.
    ///   - groups: The `cognito:groups` claim.
    ///   - claims: Any other claims.
    /// - Returns: The caller.
    public static func userPools(sub: String, username: String, groups: [String] = [], claims: [String: ClaimValue] = [:]) -> Caller {
        var all = claims
        all["sub"] = .string(sub)
        all["cognito:username"] = .string(username)
        if !groups.isEmpty, all[AuthRule.defaultGroupClaim] == nil { all[AuthRule.defaultGroupClaim] = .strings(groups) }
        return Caller(authMode: .userPools, claims: all)
    }

    /// An OpenID Connect caller with its provider's claims.
    /// - Parameter claims: The token's claims.
    /// - Returns: The caller.
    public static func oidc(claims: [String: ClaimValue]) -> Caller {
        Caller(authMode: .oidc, claims: claims)
    }

    /// A caller signing with an identity pool role.
    /// - Parameter role: Authenticated or unauthenticated.
    /// - Returns: The caller.
    public static func iam(_ role: Role) -> Caller {
        Caller(authMode: .iam, role: role)
    }

    /// A caller with an API key: no identity.
    public static let apiKey = Caller(authMode: .apiKey)

    /// A caller whose token a function authorizer accepted, with the claims it resolved.
    /// - Parameter claims: The claims.
    /// - Returns: The caller.
    public static func function(claims: [String: ClaimValue] = [:]) -> Caller {
        Caller(authMode: .function, claims: claims)
    }

    /// Whether the caller belongs to `group` by the claim `groupClaim` or by ``groups``.
    func isInGroup(_ group: String, claim groupClaim: String) -> Bool {
        if let claim = self.claims[groupClaim], claim.contains(group) { return true }
        return self.groups.containsSameBytes(as: group)
    }

    /// The caller's username: `cognito:username`, else `username`.
    var username: String? {
        self.claims["cognito:username"]?.string ?? self.claims["username"]?.string
    }
}

extension ClaimValue {
    /// The claims of a token's payload as rules read them: strings and lists of strings as they are,
    /// numbers and booleans as their text; objects and nulls are left out.
    package static func claims(of node: JSONNode) -> [String: ClaimValue] {
        guard case .object(let members) = node.kind else { return [:] }
        var claims: [String: ClaimValue] = [:]
        for member in members {
            switch member.value.kind {
            case .string(let text): claims[member.key] = .string(text)
            case .number(let text): claims[member.key] = .string(text)
            case .bool(let flag): claims[member.key] = .string(flag ? "true" : "false")
            case .array(let elements): claims[member.key] = .strings(elements.compactMap(\.stringValue))
            case .object, .null: continue
            }
        }
        return claims
    }
}
