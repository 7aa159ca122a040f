import WIFFoundation

/// One question being decided, and how each strategy answers it.
struct Context {
    let model: ModelRules
    let operation: ModelOperation
    let caller: Caller
    let before: Record?
    let after: Record?
    let custom: CustomAuthorizer?

    /// The outcome of one rule: granted (with why) or refused (with why).
    enum Grant {
        case granted(RuleDecision.Reason)
        case refused(RuleDecision.Reason)

        var refusal: RuleDecision.Reason? {
            if case .refused(let reason) = self { return reason }
            return nil
        }

        var reason: RuleDecision.Reason {
            switch self {
            case .granted(let reason), .refused(let reason): return reason
            }
        }
    }

    /// Whether a rule is for callers of this auth mode: public IAM rules are the unauthenticated role's,
    /// private IAM rules the authenticated role's.
    func serves(_ rule: AuthRule) -> Bool {
        guard rule.provider == self.caller.authMode else { return false }
        if rule.provider == .iam {
            return rule.allow == .public ? self.caller.role == .unauthenticated : self.caller.role == .authenticated
        }
        return true
    }

    /// The record a rule reads: the new record for create, the stored one otherwise.
    private var record: Record? { self.operation == .create ? self.after : self.before }

    /// Whether the operation may run without a record, filtered to what the caller may see.
    private var filtersWithoutRecord: Bool {
        switch self.operation {
        case .list, .search, .sync, .listen: return true
        default: return false
        }
    }

    func grant(_ rule: AuthRule) -> Grant {
        let base: Grant
        switch rule.allow {
        case .public, .private: base = .granted(.granted)
        case .owner: base = self.grantOwner(rule)
        case .groups: base = self.grantGroups(rule)
        case .custom:
            guard let custom = self.custom else { return .refused(.noCustomAuthorizer) }
            let request = CustomRuleRequest(
                model: self.model.name, operation: self.operation, caller: self.caller, before: self.before, after: self.after, rule: rule)
            base = custom(request) ? .granted(.granted) : .refused(.customDenied)
        }
        guard base.refusal == nil else { return base }
        if let trap = self.trap(grantedBy: rule) { return .refused(trap) }
        return base
    }

    private func grantOwner(_ rule: AuthRule) -> Grant {
        guard self.hasIdentity(rule) else { return .refused(.missingIdentityClaim(claim: rule.identityClaim)) }
        guard let record = self.record else {
            return self.filtersWithoutRecord ? .granted(.grantedFiltered) : .refused(.recordNeeded)
        }
        let value = record[rule.ownerField] ?? .null
        if self.operation == .create {
            if value.isEmpty { return .granted(.grantedFillingOwner(field: rule.ownerField)) }
            return self.isOwner(value, rule) ? .granted(.granted) : .refused(.createdForSomeoneElse(field: rule.ownerField))
        }
        return self.isOwner(value, rule) ? .granted(.granted) : .refused(.notOwner(field: rule.ownerField))
    }

    private func grantGroups(_ rule: AuthRule) -> Grant {
        for group in rule.groups where self.caller.isInGroup(group, claim: rule.groupClaim) { return .granted(.granted) }
        guard let field = rule.groupsField else { return .refused(.notInGroups) }
        guard let record = self.record else {
            return self.filtersWithoutRecord ? .granted(.grantedFiltered) : .refused(.recordNeeded)
        }
        let value = record[field] ?? .null
        let caller = self.caller
        if value.contains(where: { caller.isInGroup($0, claim: rule.groupClaim) }) { return .granted(.granted) }
        return .refused(.notInGroupsField(field: field))
    }

    /// The traps: a create naming another owner, or an update changing an owner field, allowed by a rule
    /// that is neither an owner rule (whose caller is an owner) nor a groups rule.
    private func trap(grantedBy rule: AuthRule) -> RuleDecision.Reason? {
        guard rule.allow != .groups, rule.allow != .owner, let after = self.after else { return nil }
        switch self.operation {
        case .create:
            for owner in self.model.rules where owner.allow == .owner {
                guard let value = after[owner.ownerField], !value.isEmpty else { continue }
                if !self.hasIdentity(owner) || !self.isOwner(value, owner) { return .createdForSomeoneElse(field: owner.ownerField) }
            }
        case .update:
            for owner in self.model.rules where owner.allow == .owner {
                guard let value = after[owner.ownerField], value != (self.before?[owner.ownerField] ?? .null) else { continue }
                let stored = self.before?[owner.ownerField] ?? .null
                if !self.hasIdentity(owner) || !self.isOwner(stored, owner) { return .ownerChangeByNonOwner(field: owner.ownerField) }
            }
        default: break
        }
        return nil
    }

    private func hasIdentity(_ rule: AuthRule) -> Bool {
        switch rule.identityClaim {
        case AuthRule.defaultIdentityClaim: return self.caller.claims["sub"]?.string != nil || self.caller.username != nil
        case "username", "cognito:username": return self.caller.username != nil
        default: return self.caller.claims[rule.identityClaim]?.string != nil
        }
    }

    /// Whether a stored owner value names the caller. With the default claim an owner may be stored as
    /// `sub::username`, `sub` or `username`; the comparison of the joined form allocates nothing.
    func isOwner(_ value: RecordValue, _ rule: AuthRule) -> Bool {
        let claims = self.caller.claims
        switch rule.identityClaim {
        case AuthRule.defaultIdentityClaim:
            let sub = claims["sub"]?.string
            let username = self.caller.username
            return value.contains { stored in
                if let sub, stored.hasSameBytes(as: sub) { return true }
                if let username, stored.hasSameBytes(as: username) { return true }
                guard let sub, let username else { return false }
                return Self.isJoined(stored, sub, username)
            }
        case "username", "cognito:username":
            guard let username = self.caller.username else { return false }
            return value.contains(username)
        default:
            guard let identity = claims[rule.identityClaim]?.string else { return false }
            return value.contains(identity)
        }
    }

    /// Whether `stored` is `first::second`.
    static func isJoined(_ stored: String, _ first: String, _ second: String) -> Bool {
        let storedBytes = stored.utf8
        guard storedBytes.count == first.utf8.count + 2 + second.utf8.count else { return false }
        var index = storedBytes.startIndex
        for byte in first.utf8 {
            guard storedBytes[index] == byte else { return false }
            index = storedBytes.index(after: index)
        }
        for _ in 0..<2 {
            guard storedBytes[index] == UInt8(ascii: ":") else { return false }
            index = storedBytes.index(after: index)
        }
        for byte in second.utf8 {
            guard storedBytes[index] == byte else { return false }
            index = storedBytes.index(after: index)
        }
        return true
    }
}
