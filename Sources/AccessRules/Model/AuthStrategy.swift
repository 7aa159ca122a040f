/// Who a rule is for: the `allow` field of an `@auth` rule.
///
/// A closed set: these are the five strategies Amplify's transformer knows.
public enum AuthStrategy: String, Sendable, Hashable, CaseIterable, Codable {
    /// The caller whose identity is stored in the record's owner field.
    case owner
    /// Members of listed groups (`groups`) or of groups stored in the record (`groupsField`).
    case groups
    /// Any signed-in caller of the rule's provider.
    case `private`
    /// Any caller of the rule's provider, signed in or not (an API key, the unauthenticated role).
    case `public`
    /// A decision made by the server's own code (a Lambda authorizer in Amplify).
    case custom

    /// The provider a rule of this strategy uses when it names none, as Amplify's transformer does.
    public var defaultProvider: AuthProvider {
        switch self {
        case .owner, .groups, .private: return .userPools
        case .public: return .apiKey
        case .custom: return .function
        }
    }

    /// The providers that can serve a rule of this strategy: an API key carries no identity, so it
    /// cannot serve an owner rule; the identity pool's roles carry no groups claim.
    public var supportedProviders: [AuthProvider] {
        switch self {
        case .owner, .groups: return [.userPools, .oidc]
        case .private: return [.userPools, .oidc, .iam]
        case .public: return [.apiKey, .iam]
        case .custom: return [.function]
        }
    }

    /// How many callers a strategy can reach, for telling a field rule that grants more than its type.
    var breadth: Int {
        switch self {
        case .owner, .groups, .custom: return 1
        case .private: return 2
        case .public: return 3
        }
    }
}
