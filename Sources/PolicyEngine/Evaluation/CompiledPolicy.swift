/// A policy in the form evaluation uses.
struct CompiledPolicy: Sendable {
    let statements: [CompiledStatement]
}

/// A statement in the form evaluation uses: actions lowercased and tokenised, resources split into ARN
/// parts, principals grouped, condition values parsed.
final class CompiledStatement: Sendable {
    let index: Int
    let sid: String?
    let effect: Effect
    let actionPatterns: [Pattern]
    let actionNegated: Bool
    /// `nil` when the statement has no `Resource`/`NotResource` (trust policies): every resource matches.
    let resourcePatterns: [ARNPattern]?
    let resourceNegated: Bool
    /// `nil` when the statement has no `Principal`/`NotPrincipal`.
    let principal: CompiledPrincipal?
    let conditions: [CompiledCondition]

    init(
        index: Int, sid: String?, effect: Effect, actionPatterns: [Pattern], actionNegated: Bool,
        resourcePatterns: [ARNPattern]?, resourceNegated: Bool, principal: CompiledPrincipal?,
        conditions: [CompiledCondition]
    ) {
        self.index = index
        self.sid = sid
        self.effect = effect
        self.actionPatterns = actionPatterns
        self.actionNegated = actionNegated
        self.resourcePatterns = resourcePatterns
        self.resourceNegated = resourceNegated
        self.principal = principal
        self.conditions = conditions
    }

    /// The index of the first action pattern that matches, or `nil`.
    @inline(__always)
    func matchingActionIndex(_ request: AuthorizationRequest) -> Int? {
        for (index, pattern) in self.actionPatterns.enumerated() {
            // Both sides are already lowercase, so a plain byte comparison is case-insensitive.
            if pattern.matchesEverything || Glob.match(pattern, request.actionKey, foldCase: false, context: request.context) {
                return index
            }
        }
        return nil
    }

    /// Whether the statement covers the request's action (honouring `NotAction`).
    @inline(__always)
    func actionApplies(_ request: AuthorizationRequest) -> Bool {
        (self.matchingActionIndex(request) != nil) != self.actionNegated
    }

    /// The index of the first resource pattern that matches, or `nil`.
    @inline(__always)
    func matchingResourceIndex(_ request: AuthorizationRequest) -> Int? {
        guard let patterns = self.resourcePatterns else { return nil }
        for (index, pattern) in patterns.enumerated() where pattern.matchesResource(request) {
            return index
        }
        return nil
    }

    /// Whether the statement covers the request's resource (honouring `NotResource`).
    @inline(__always)
    func resourceApplies(_ request: AuthorizationRequest) -> Bool {
        guard self.resourcePatterns != nil else { return true }
        return (self.matchingResourceIndex(request) != nil) != self.resourceNegated
    }

    /// Whether every condition holds.
    @inline(__always)
    func conditionsHold(_ context: RequestContext) -> Bool {
        for condition in self.conditions where !condition.evaluate(context) {
            return false
        }
        return true
    }
}
