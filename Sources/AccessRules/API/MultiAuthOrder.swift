/// The order in which a client tries an API's authorization modes for one model and operation, as
/// Amplify's multi-auth strategy does: the rules that apply, ranked by who they are for, then by
/// provider.
///
/// | order | rule | mode |
/// |---|---|---|
/// | 1 | owner / userPools | `AMAZON_COGNITO_USER_POOLS` |
/// | 2 | owner / oidc | `OPENID_CONNECT` |
/// | 3 | groups / userPools | `AMAZON_COGNITO_USER_POOLS` |
/// | 4 | groups / oidc | `OPENID_CONNECT` |
/// | 5 | private / userPools | `AMAZON_COGNITO_USER_POOLS` |
/// | 6 | private / iam | `AWS_IAM` |
/// | 7 | public / iam | `AWS_IAM` |
/// | 8 | public / apiKey | `API_KEY` |
///
/// Custom rules (`AWS_LAMBDA`) come before all of them, as in amplify-swift.
///
/// A signed-out caller gets only the modes of public and custom rules. A mode appears once, at its best
/// rank. The next mode is for after an authorization failure only; see ``APIAttemptOutcome``.
public enum MultiAuthOrder {
    /// The modes to try, best first.
    /// - Parameters:
    ///   - rules: The model's type-level rules.
    ///   - operation: The operation.
    ///   - signedIn: Whether the caller is signed in (has user pool, OIDC or authenticated credentials).
    /// - Returns: The modes, without repeats; empty when no rule covers the operation for this caller.
    public static func modes(rules: [AuthRule], operation: ModelOperation, signedIn: Bool) -> [APIAuthorizationMode] {
        let ranked = rules.compactMap { rule -> (rank: Int, mode: APIAuthorizationMode)? in
            guard rule.operations.contains(operation) else { return nil }
            guard signedIn || rule.allow == .public || rule.allow == .custom else { return nil }
            return (Self.rank(rule), APIAuthorizationMode(provider: rule.provider))
        }
        var modes: [APIAuthorizationMode] = []
        for entry in ranked.sorted(by: { $0.rank < $1.rank }) where !modes.contains(entry.mode) {
            modes.append(entry.mode)
        }
        return modes
    }

    /// The modes to try for a model of a rule set.
    /// - Parameters:
    ///   - ruleSet: The rules.
    ///   - model: The model's name.
    ///   - operation: The operation.
    ///   - signedIn: Whether the caller is signed in.
    /// - Returns: The modes, best first; empty for a model the rule set does not have.
    public static func modes(ruleSet: RuleSet, model: String, operation: ModelOperation, signedIn: Bool) -> [APIAuthorizationMode] {
        guard let rules = ruleSet.models[model] else { return [] }
        return Self.modes(rules: rules.rules, operation: operation, signedIn: signedIn)
    }

    /// A rule's rank: by who it is for (custom, owner, groups, private, public), then by provider
    /// (function, userPools, oidc, iam, apiKey); lower is tried first. It orders the table above.
    public static func rank(_ rule: AuthRule) -> Int {
        let strategy: Int
        switch rule.allow {
        case .custom: strategy = 0
        case .owner: strategy = 1
        case .groups: strategy = 2
        case .private: strategy = 3
        case .public: strategy = 4
        }
        let provider: Int
        switch rule.provider.base {
        case .function: provider = 0
        case .userPools: provider = 1
        case .oidc: provider = 2
        case .iam: provider = 3
        case .apiKey: provider = 4
        }
        return strategy * 5 + provider
    }
}

/// What one attempt in a mode came to, for deciding whether to try the next mode.
public enum APIAttemptOutcome: Sendable, Hashable {
    /// The API answered with anything but an authorization failure (a success, a 404, a 500 …): stop.
    case answered(status: Int)
    /// The API refused the mode's credentials (401, or 403 with an authorization error): try the next.
    case unauthorized(status: Int)
    /// The client had no credentials for the mode (signed out, no API key): try the next.
    case noCredentials(String)

    /// Whether the next mode may be tried after this outcome.
    public var fallsBack: Bool {
        switch self {
        case .answered: return false
        case .unauthorized, .noCredentials: return true
        }
    }
}
