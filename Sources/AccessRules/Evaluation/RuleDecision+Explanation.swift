extension RuleDecision {
    /// The decision in words: outcome, semantics, the deciding rule and why, and every redaction.
    public var explanation: String {
        var text = "\(self.outcome.rawValue) (\(self.semantics.rawValue)): \(Self.describe(self.reason))"
        if let rule {
            text += "; rule \(rule.summary)"
            if let field { text += " on field \(field)" }
            if let location = rule.location { text += " at \(location)" }
        }
        for redaction in self.redactions {
            text += "; field \(redaction.field) is null: \(Self.describe(redaction.reason))"
            if let rule = redaction.rule { text += " (field rule \(rule.summary))" }
        }
        return text
    }

    static func describe(_ reason: Reason) -> String {
        switch reason {
        case .granted: return "a rule allows it"
        case .grantedFillingOwner(let field): return "an owner rule allows it; \(field) is empty and is filled with the caller's identity"
        case .grantedFiltered: return "a rule allows it, filtered to the records the caller may read"
        case .unprotectedInV1: return "no rule lists the operation, and under v1 an operation no rule lists is not protected"
        case .signedOut: return "the caller has no credentials"
        case .unknownModel: return "the schema has no such model"
        case .noRules: return "the model has no @auth rules"
        case .noRuleForAuthMode: return "no rule uses the caller's auth mode"
        case .noRuleForOperation: return "no rule for the caller's auth mode lists the operation, and v2 denies by default"
        case .missingIdentityClaim(let claim): return "the caller's token has no \(claim) claim"
        case .notOwner(let field): return "the caller is not in the record's \(field)"
        case .createdForSomeoneElse(let field): return "the new record's \(field) names someone other than the caller"
        case .ownerChangeByNonOwner(let field): return "the update changes \(field), and only an owner or a group rule may"
        case .notInGroups: return "the caller is in none of the rule's groups"
        case .notInGroupsField(let field): return "the record's \(field) lists none of the caller's groups"
        case .customDenied: return "the server's custom authorizer refused"
        case .noCustomAuthorizer: return "a custom rule applies but no authorizer was supplied"
        case .recordNeeded: return "the stored record is needed to decide"
        case .fieldRefused(let field): return "no rule on \(field) allows the caller to write it"
        }
    }
}
