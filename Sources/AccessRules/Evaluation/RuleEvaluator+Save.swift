extension RuleEvaluator {
    /// Checks a save on the client before sending it, with the same evaluator the server runs, so
    /// "this save would be refused" is known with its reason instead of learnt afterwards from a failed
    /// conditional save.
    /// - Parameters:
    ///   - model: The model's name.
    ///   - caller: The signed-in caller; `nil` when there are no credentials.
    ///   - stored: The record as last synced; `nil` for a new record (a create).
    ///   - changes: For a new record the whole record; otherwise the fields being changed.
    /// - Returns: The decision; when it is a denial, its ``RuleDecision/explanation`` says why.
    public func checkSave(model: String, caller: Caller?, stored: Record?, changes: Record) -> RuleDecision {
        guard let stored else { return self.decide(model: model, operation: .create, caller: caller, after: changes) }
        return self.decide(model: model, operation: .update, caller: caller, before: stored, after: changes)
    }
}

extension Caller {
    /// What an owner field of `rule` stores for this caller: with the default identity claim
    /// `sub::username` (or `sub`, or the username, when the token has only one), otherwise the claim
    /// the rule names; `nil` when the token lacks it.
    /// - Parameter rule: An owner rule.
    public func ownerIdentity(for rule: AuthRule) -> String? {
        switch rule.identityClaim {
        case AuthRule.defaultIdentityClaim:
            let sub = self.claims["sub"]?.string
            switch (sub, self.username) {
            case (let sub?, let username?): return sub == username ? sub : "\(sub)::\(username)"
            case (let sub?, nil): return sub
            case (nil, let username?): return username
            case (nil, nil): return nil
            }
        case "username", "cognito:username": return self.username
        default: return self.claims[rule.identityClaim]?.string
        }
    }
}

extension RuleEvaluator {
    /// The owner fields a create leaves empty that Amplify's resolvers fill with the caller's identity:
    /// those of owner rules that serve the caller and list `create`.
    /// - Parameters:
    ///   - model: The model's name.
    ///   - caller: The caller.
    ///   - record: The record to create.
    /// - Returns: The value to store in each empty owner field.
    public func ownerFields(model: String, caller: Caller?, record: Record) -> [String: String] {
        guard let caller, let rules = self.ruleSet.models[model] else { return [:] }
        let context = Context(model: rules, operation: .create, caller: caller, before: nil, after: record, custom: nil)
        var fields: [String: String] = [:]
        for rule in rules.rules where rule.allow == .owner && rule.operations.contains(.create) && context.serves(rule) {
            guard record[rule.ownerField]?.isEmpty ?? true, fields[rule.ownerField] == nil,
                let identity = caller.ownerIdentity(for: rule)
            else { continue }
            fields[rule.ownerField] = identity
        }
        return fields
    }
}
