/// An identity pool (Amazon Cognito Identity) the local stack serves: which provider profiles may sign in,
/// whether guests are let in, and which role each identity gets.
///
/// Identities are stable per (pool, provider, subject); `GetCredentialsForIdentity` picks a role from
/// ``roleMappings`` (per provider) or ``roles`` and checks that role's trust policy with the identity's
/// `cognito-identity.amazonaws.com:aud`, `:amr` and `:sub`, as AWS does.
public struct IdentityPoolDefinition: Sendable, Hashable {
    /// The pool id, `REGION:UUID` (`us-east-1:00000000-0000-4000-8000-000000000001`).
    public var id: String
    /// The pool's name.
    public var name: String
    /// Whether identities without logins (guests) get the unauthenticated role.
    public var allowUnauthenticatedIdentities: Bool
    /// Whether the basic (classic) flow is allowed: `GetOpenIdToken` followed by STS
    /// `AssumeRoleWithWebIdentity`.
    public var allowClassicFlow: Bool
    /// The provider profiles whose users may sign in.
    public var providers: [Provider]
    /// The default roles.
    public var roles: Roles
    /// How a role is chosen for a provider's users, by the provider profile's name.
    public var roleMappings: [String: RoleMapping]

    /// Creates a pool.
    public init(
        id: String, name: String, allowUnauthenticatedIdentities: Bool = false, allowClassicFlow: Bool = false,
        providers: [Provider], roles: Roles, roleMappings: [String: RoleMapping] = [:]
    ) {
        self.id = id
        self.name = name
        self.allowUnauthenticatedIdentities = allowUnauthenticatedIdentities
        self.allowClassicFlow = allowClassicFlow
        self.providers = providers
        self.roles = roles
        self.roleMappings = roleMappings
    }

    /// A provider profile whose users may sign in to a pool.
    public struct Provider: Sendable, Hashable {
        /// The provider profile's name.
        public var profile: String
        /// The client ids whose tokens are accepted; `nil` accepts all of the profile's.
        public var clientIds: [String]?

        /// Creates a pool provider.
        public init(profile: String, clientIds: [String]? = nil) {
            self.profile = profile
            self.clientIds = clientIds
        }
    }

    /// A pool's default roles, by ARN.
    public struct Roles: Sendable, Hashable {
        /// The role of signed-in identities.
        public var authenticated: String?
        /// The role of guests.
        public var unauthenticated: String?

        /// Creates the roles.
        public init(authenticated: String? = nil, unauthenticated: String? = nil) {
            self.authenticated = authenticated
            self.unauthenticated = unauthenticated
        }
    }

    /// How the role of one provider's users is chosen.
    public struct RoleMapping: Sendable, Hashable {
        /// Where the role comes from.
        public enum Kind: String, Sendable, Hashable, CaseIterable {
            /// The token's `cognito:preferred_role` or `cognito:roles` claims.
            case token = "Token"
            /// The first rule whose claim matches.
            case rules = "Rules"
        }

        /// What happens when no role is found.
        public enum AmbiguousRoleResolution: String, Sendable, Hashable, CaseIterable {
            /// The pool's authenticated role.
            case authenticatedRole = "AuthenticatedRole"
            /// No credentials.
            case deny = "Deny"
        }

        /// Where the role comes from.
        public var kind: Kind
        /// What happens when no role is found.
        public var ambiguousRoleResolution: AmbiguousRoleResolution
        /// The rules of a `Rules` mapping, in order.
        public var rules: [Rule]

        /// Creates a mapping.
        public init(kind: Kind, ambiguousRoleResolution: AmbiguousRoleResolution, rules: [Rule] = []) {
            self.kind = kind
            self.ambiguousRoleResolution = ambiguousRoleResolution
            self.rules = rules
        }
    }

    /// One rule of a `Rules` mapping: when the token's claim matches the value, the role.
    public struct Rule: Sendable, Hashable {
        /// How the claim is compared.
        public enum MatchType: String, Sendable, Hashable, CaseIterable {
            /// The claim (or one element of an array claim) equals the value.
            case equals = "Equals"
            /// The claim (or one element of an array claim) contains the value.
            case contains = "Contains"
            /// The claim (or one element of an array claim) starts with the value.
            case startsWith = "StartsWith"
            /// The claim is present and no element equals the value.
            case notEqual = "NotEqual"
        }

        /// The claim's name (`cognito:groups`, `email`).
        public var claim: String
        /// How it is compared.
        public var matchType: MatchType
        /// The value compared with.
        public var value: String
        /// The role chosen when the rule matches.
        public var roleArn: String

        /// Creates a rule.
        public init(claim: String, matchType: MatchType, value: String, roleArn: String) {
            self.claim = claim
            self.matchType = matchType
            self.value = value
            self.roleArn = roleArn
        }

        /// Whether the rule matches a claim's values (one for a string claim, each element of an array).
        func matches(_ values: [String]) -> Bool {
            switch self.matchType {
            case .equals: values.contains(self.value)
            case .contains: values.contains { $0.contains(self.value) }
            case .startsWith: values.contains { $0.hasPrefix(self.value) }
            case .notEqual: !values.isEmpty && !values.contains(self.value)
            }
        }
    }

    /// Whether text has the shape of a pool or identity id: `REGION:ID`, a region of lower-case letters,
    /// digits and `-`, and an id of hexadecimal digits and `-`, 1 to 55 characters in all.
    public static func isPoolOrIdentityId(_ text: String) -> Bool {
        guard (1...55).contains(text.utf8.count), let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")) else { return false }
        let region = text.utf8[..<colon]
        let rest = text.utf8[text.utf8.index(after: colon)...]
        let isRegion = { (byte: UInt8) in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-")
        }
        let isId = { (byte: UInt8) in
            (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-")
        }
        return !region.isEmpty && !rest.isEmpty && region.allSatisfy(isRegion) && rest.allSatisfy(isId)
    }
}
