/// Decides whether a caller may perform an operation on a record under a rule set.
///
/// Beyond Amplify's own resolvers it closes the traps its users hit: a create must name the caller as
/// owner (or leave the owner empty to be filled) unless a groups rule allows it; changing an owner field
/// is refused to non-owners; field rules hide fields from reads and refuse writes that touch them.
public struct RuleEvaluator: Sendable {
    /// The rules.
    public var ruleSet: RuleSet
    /// The semantics decisions use; the rule set's unless overridden.
    public var semantics: RuleSemantics
    /// The server's decision for custom rules; without one, custom rules refuse.
    public var customAuthorizer: CustomAuthorizer?

    /// Creates an evaluator.
    /// - Parameters:
    ///   - ruleSet: The rules.
    ///   - semantics: Overrides the rule set's semantics.
    ///   - customAuthorizer: Decides custom rules.
    public init(ruleSet: RuleSet, semantics: RuleSemantics? = nil, customAuthorizer: CustomAuthorizer? = nil) {
        self.ruleSet = ruleSet
        self.semantics = semantics ?? ruleSet.semantics
        self.customAuthorizer = customAuthorizer
    }

    /// Decides one operation.
    /// - Parameters:
    ///   - model: The model's name.
    ///   - operation: The operation.
    ///   - caller: The caller; `nil` for a caller with no credentials at all.
    ///   - before: The stored record (get, update, delete; a listed record for list, search, sync, listen).
    ///   - after: For create the record to create; for update the fields being changed.
    /// - Returns: The decision, with the deciding rule and the fields a read hides.
    public func decide(
        model: String, operation: ModelOperation, caller: Caller?, before: Record? = nil, after: Record? = nil
    ) -> RuleDecision {
        let semantics = self.semantics
        guard let caller else { return RuleDecision(.deny, .signedOut, semantics: semantics) }
        guard let rules = self.ruleSet.models[model] else { return RuleDecision(.deny, .unknownModel, semantics: semantics) }
        let context = Context(model: rules, operation: operation, caller: caller, before: before, after: after, custom: self.customAuthorizer)

        var decision = self.decideType(context, semantics: semantics)
        guard decision.isAllowed, !rules.fieldRules.isEmpty else { return decision }
        self.applyFieldRules(context, to: &decision)
        return decision
    }

    private func decideType(_ context: Context, semantics: RuleSemantics) -> RuleDecision {
        let rules = context.model.rules
        if rules.isEmpty { return RuleDecision(.deny, .noRules, semantics: semantics) }
        var servesCaller = false
        var listsOperation = false
        var closest: (reason: RuleDecision.Reason, rule: AuthRule, rank: Int)?
        for rule in rules where context.serves(rule) {
            servesCaller = true
            guard rule.operations.contains(context.operation) else { continue }
            listsOperation = true
            let reason = context.grant(rule)
            if let refusal = reason.refusal {
                let rank = Self.rank(refusal)
                if rank > (closest?.rank ?? -1) { closest = (refusal, rule, rank) }
                continue
            }
            return RuleDecision(.allow, reason.reason, semantics: semantics, rule: rule)
        }
        // v1 protects only listed operations: one no rule lists is open to every caller some rule serves.
        if semantics == .v1, servesCaller, !rules.contains(where: { $0.operations.contains(context.operation) }) {
            return RuleDecision(.allow, .unprotectedInV1, semantics: semantics)
        }
        if let closest { return RuleDecision(.deny, closest.reason, semantics: semantics, rule: closest.rule) }
        return RuleDecision(.deny, servesCaller && !listsOperation ? .noRuleForOperation : .noRuleForAuthMode, semantics: semantics)
    }

    /// Field rules replace the type's rules for their field: reads hide the field, writes touching it are refused.
    private func applyFieldRules(_ context: Context, to decision: inout RuleDecision) {
        for (field, rules) in context.model.fieldRules {
            if !context.operation.isRead {
                // Only the fields a write sets are checked; deletes touch no single field.
                guard context.operation != .delete, context.after?[field] != nil else { continue }
            }
            var closest: RuleDecision.Reason?
            var allowed = false
            for rule in rules where context.serves(rule) && rule.operations.contains(context.operation) {
                let reason = context.grant(rule)
                if reason.refusal == nil { allowed = true; break }
                closest = closest ?? reason.refusal
            }
            guard !allowed else { continue }
            if context.operation.isRead {
                decision.redactions.append(RuleDecision.Redaction(field: field, rule: rules.first, reason: closest ?? .noRuleForOperation))
            } else {
                decision = RuleDecision(.deny, .fieldRefused(field: field), semantics: decision.semantics, rule: rules.first, field: field)
                return
            }
        }
        if decision.redactions.count > 1 { decision.redactions.sort { $0.field < $1.field } }
    }

    /// Which refusal explains a denial best: the traps first, then identity, then generic ones.
    private static func rank(_ reason: RuleDecision.Reason) -> Int {
        switch reason {
        case .createdForSomeoneElse, .ownerChangeByNonOwner: return 5
        case .notOwner, .notInGroups, .notInGroupsField: return 4
        case .customDenied, .noCustomAuthorizer: return 3
        case .missingIdentityClaim, .recordNeeded: return 2
        default: return 1
        }
    }
}
