/// How a statement's principal element relates to the caller. The distinction matters for resource
/// policies: naming the caller itself grants on its own, naming the caller's role (or, for a federated user,
/// its IAM user) is limited by session policies and permissions boundaries, and naming the account only
/// delegates to the account's identity policies.
enum PrincipalMatch: Sendable, Hashable {
    case none
    /// `"*"`, the caller's own ARN (a role session's session ARN), or a `NotPrincipal` that does not leave it out.
    case exact
    /// The caller's role (for a role session) or IAM user (for a federated user session).
    case viaRoleOrUser
    /// The caller's account.
    case viaAccount
}

/// A `Principal`/`NotPrincipal` element grouped for matching.
struct CompiledPrincipal: Sendable {
    let negated: Bool
    let everyone: Bool
    /// 12-digit account ids (from `"111122223333"` or `arn:aws:iam::111122223333:root`).
    let accounts: Set<String>
    /// IAM and STS ARNs, compared exactly (Principal elements take no wildcards).
    let arns: Set<String>
    let federated: Set<String>
    let services: Set<String>
    let canonicalUsers: Set<String>

    init(_ set: PrincipalSet, negated: Bool) {
        self.negated = negated
        var everyone = set.isEveryone
        var accounts: Set<String> = []
        var arns: Set<String> = []
        for value in set.aws {
            if value == "*" {
                everyone = true
            } else if isAccountId(value) {
                accounts.insert(value)
            } else if let parts = ARNParts(value), parts.service == "iam", parts.resource == "root" {
                accounts.insert(parts.account)
            } else {
                arns.insert(value)
            }
        }
        self.everyone = everyone
        self.accounts = accounts
        self.arns = arns
        self.federated = Set(set.federated)
        self.services = Set(set.service)
        self.canonicalUsers = Set(set.canonicalUser)
    }

    /// How the element (ignoring negation) names the caller, strongest first.
    func positiveMatch(_ principal: RequestPrincipal?) -> PrincipalMatch {
        if self.everyone { return .exact }
        guard let principal else { return .none }
        switch principal.kind.base {
        case .service:
            return self.services.contains(principal.arn) ? .exact : .none
        case .webIdentity:
            return self.federated.contains(principal.arn) ? .exact : .none
        case .canonicalUser:
            return self.canonicalUsers.contains(principal.arn) ? .exact : .none
        case .account:
            if let account = principal.accountId, self.accounts.contains(account) { return .exact }
            return self.arns.contains(principal.arn) ? .exact : .none
        case .assumedRole, .iamUser, .federatedUser:
            if self.arns.contains(principal.arn) { return .exact }
            if let roleArn = principal.roleArn, self.arns.contains(roleArn) { return .viaRoleOrUser }
            if let userArn = principal.userArn, self.arns.contains(userArn) { return .viaRoleOrUser }
            if let account = principal.accountId, self.accounts.contains(account) { return .viaAccount }
            return .none
        }
    }

    /// Whether a `NotPrincipal` + `Deny` statement exempts the caller. As the IAM documentation warns, AWS may
    /// check the account, then the role, then the session, and deny at the first identity that is not
    /// listed; so the caller is exempt only when every one of its identities is listed (for a role session:
    /// its account, its role and its session ARN; for a user: its account and its ARN).
    func exemptsFromDeny(_ principal: RequestPrincipal?) -> Bool {
        if self.everyone { return true }
        guard let principal else { return false }
        switch principal.kind.base {
        case .service, .webIdentity, .canonicalUser, .account:
            return self.positiveMatch(principal) == .exact
        case .assumedRole:
            guard let account = principal.accountId, let roleArn = principal.roleArn else { return false }
            return self.accounts.contains(account) && self.arns.contains(roleArn) && self.arns.contains(principal.arn)
        case .iamUser, .federatedUser:
            guard let account = principal.accountId else { return false }
            return self.accounts.contains(account) && self.arns.contains(principal.arn)
        }
    }

    /// Whether a `NotPrincipal` + `Allow` statement leaves the caller out: it does when the element lists
    /// *any* of the caller's identities (its session, role, user or account), since AWS may check any of
    /// them and a statement that grants must not reach a caller its author excluded.
    func excludesFromAllow(_ principal: RequestPrincipal?) -> Bool {
        self.positiveMatch(principal) != .none
    }

    /// Whether a `NotPrincipal` element leaves the caller out of a statement with `effect`.
    func excludes(_ principal: RequestPrincipal?, effect: Effect) -> Bool {
        effect == .deny ? self.exemptsFromDeny(principal) : self.excludesFromAllow(principal)
    }

    /// How the element applies to the caller in a statement with `effect`, honouring negation.
    func match(_ principal: RequestPrincipal?, effect: Effect) -> PrincipalMatch {
        if self.negated {
            return self.excludes(principal, effect: effect) ? .none : .exact
        }
        return self.positiveMatch(principal)
    }

    /// The caller's identities that a `Principal` element can name, each with whether this element lists
    /// it and whether a `Deny` exemption needs it listed (see ``exemptsFromDeny(_:)``), for explanations.
    func identities(of principal: RequestPrincipal) -> [(name: String, listed: Bool, neededForDeny: Bool)] {
        var identities: [(name: String, listed: Bool, neededForDeny: Bool)] = []
        if principal.kind.base != .account, let account = principal.accountId {
            identities.append(("account \(account)", self.accounts.contains(account), true))
        }
        if let roleArn = principal.roleArn {
            identities.append(("role '\(roleArn)'", self.arns.contains(roleArn), true))
        }
        if let userArn = principal.userArn {
            identities.append(("user '\(userArn)'", self.arns.contains(userArn), false))
        }
        let own: String
        switch principal.kind.base {
        case .assumedRole: own = "session"
        case .iamUser: own = "user"
        case .federatedUser: own = "federated user"
        case .account: own = "account"
        case .service: own = "service"
        case .webIdentity: own = "identity provider"
        case .canonicalUser: own = "canonical user"
        }
        identities.append(("\(own) '\(principal.arn)'", self.everyone || self.positiveMatch(principal) == .exact, true))
        return identities
    }
}
