/// Evaluates requests against a set of policies the way AWS IAM does for a principal's request.
///
/// The policy types combine as the IAM "policy evaluation logic" documentation describes:
/// 1. An explicit deny in any policy (identity, resource, session, boundary) decides: explicit deny.
/// 2. Identity policies are combined by union, and in the same account a resource policy adds to them.
/// 3. A session policy and a permissions boundary each limit (intersect) what identity policies grant, and
///    what a resource policy grants by naming the caller's *role* (or IAM user, for a federated user).
/// 4. A resource policy that names the caller itself — the role *session* ARN
///    `arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION`, the IAM user ARN, or `"*"` — grants on its own in
///    the same account, unlimited by session policies and permissions boundaries.
/// 5. Across accounts, both the resource policy and the caller's (limited) identity permissions must allow.
/// 6. Anything else is an implicit deny.
///
/// A `NotPrincipal` + `Deny` statement exempts a caller only when every identity of the caller (account,
/// role, session) is listed, and always applies to a caller that has a permissions boundary, as AWS
/// documents. A `NotPrincipal` + `Allow` statement leaves out a caller that it lists by *any* identity.
public struct PolicyEvaluator: Sendable {
    final class Slot: Sendable {
        let name: String
        let kind: PolicyKind
        let policy: CompiledPolicy
        let namesPrincipals: Bool

        init(name: String, kind: PolicyKind, policy: CompiledPolicy) {
            self.name = name
            self.kind = kind
            self.policy = policy
            self.namesPrincipals = kind.namesPrincipals
        }
    }

    /// The identity policies, combined by union.
    public let identityPolicies: [Policy]
    /// The resource policy, such as a bucket policy, if any.
    public let resourcePolicy: Policy?
    /// The session policies, if the caller is a session created with them (combined by union, then
    /// intersected with the rest). Empty means no session policy.
    public let sessionPolicies: [Policy]
    /// The caller's permissions boundary, if any.
    public let permissionsBoundary: Policy?

    /// Every policy in evaluation order: identity, resource, session, boundary.
    let slots: [Slot]
    let statementCount: Int
    let hasBoundary: Bool
    let hasSessionPolicy: Bool

    /// Creates an evaluator.
    /// - Parameters:
    ///   - identityPolicies: Policies attached to the caller (or its role, user, groups).
    ///   - resourcePolicy: The policy on the resource, such as an S3 bucket policy.
    ///   - sessionPolicies: Policies passed when the session was created.
    ///   - permissionsBoundary: The caller's permissions boundary.
    public init(
        identityPolicies: [Policy] = [], resourcePolicy: Policy? = nil, sessionPolicies: [Policy] = [],
        permissionsBoundary: Policy? = nil
    ) {
        self.identityPolicies = identityPolicies
        self.resourcePolicy = resourcePolicy
        self.sessionPolicies = sessionPolicies
        self.permissionsBoundary = permissionsBoundary
        func name(_ policy: Policy, _ fallback: String) -> String {
            policy.name ?? policy.id ?? fallback
        }
        var slots: [Slot] = identityPolicies.enumerated().map {
            Slot(name: name($1, "identity[\($0)]"), kind: .identity, policy: $1.compiled)
        }
        if let resourcePolicy {
            slots.append(Slot(
                name: name(resourcePolicy, "resource"), kind: resourcePolicy.kind == .trust ? .trust : .resource,
                policy: resourcePolicy.compiled))
        }
        slots += sessionPolicies.enumerated().map {
            Slot(name: name($1, "session[\($0)]"), kind: .session, policy: $1.compiled)
        }
        if let permissionsBoundary {
            slots.append(Slot(
                name: name(permissionsBoundary, "permissionsBoundary"), kind: .permissionsBoundary,
                policy: permissionsBoundary.compiled))
        }
        self.slots = slots
        self.statementCount = slots.reduce(0) { $0 + $1.policy.statements.count }
        self.hasBoundary = permissionsBoundary != nil
        self.hasSessionPolicy = !sessionPolicies.isEmpty
    }

    /// Decides a request.
    /// - Parameter request: The request.
    /// - Returns: The decision and the statements that decided it.
    public func evaluate(_ request: AuthorizationRequest) -> Decision {
        // Hits live on the stack; the only allocation is the decision's list of statements.
        withUnsafeTemporaryAllocation(of: Hit.self, capacity: max(1, self.statementCount)) { hits in
            var count = 0
            var tally = Tally()
            for slotIndex in self.slots.indices {
                let slot = self.slots[slotIndex]
                let statements = slot.policy.statements
                for statementIndex in statements.indices {
                    let statement = statements[statementIndex]
                    let match = Self.applies(statement, principals: slot.namesPrincipals, request, self.hasBoundary)
                    guard match != .none else { continue }
                    let category = Category(statement.effect, slot.kind, match)
                    tally.add(category)
                    hits[count] = Hit(slot: Int32(slotIndex), statement: Int32(statementIndex), category: category)
                    count += 1
                }
            }
            let (outcome, categories, _) = self.combine(tally, request)
            return Decision(outcome: outcome, statements: self.references(UnsafeBufferPointer(rebasing: hits[0..<count]), categories))
        }
    }

    /// Decides a request and, if asked, explains the decision.
    /// - Parameters:
    ///   - request: The request.
    ///   - explain: Whether to build an ``Explanation``; building one costs far more than deciding.
    /// - Returns: The decision and, if requested, its explanation.
    public func evaluate(_ request: AuthorizationRequest, explain: Bool) -> EvaluationResult {
        guard explain else { return EvaluationResult(decision: self.evaluate(request), explanation: nil) }
        let explanation = self.explain(request)
        return EvaluationResult(decision: explanation.decision, explanation: explanation)
    }

    /// Whether a statement applies to the request, and how its principal element named the caller.
    @inline(__always)
    static func applies(
        _ statement: CompiledStatement, principals: Bool, _ request: AuthorizationRequest, _ hasBoundary: Bool
    ) -> PrincipalMatch {
        guard statement.actionApplies(request), statement.resourceApplies(request) else { return .none }
        var match = PrincipalMatch.exact
        if principals {
            match = Self.principalMatch(statement, request, hasBoundary)
            guard match != .none else { return .none }
        }
        return statement.conditionsHold(request.context) ? match : .none
    }

    static func principalMatch(_ statement: CompiledStatement, _ request: AuthorizationRequest, _ hasBoundary: Bool)
        -> PrincipalMatch
    {
        guard let principal = statement.principal else { return .none }
        let match = principal.match(request.context.principal, effect: statement.effect)
        if match == .none, principal.negated, statement.effect == .deny, hasBoundary {
            return .exact
        }
        return match
    }

    /// What an applicable statement contributes.
    enum Category: UInt8, Sendable {
        case deny
        case identityAllow
        case resourceExact
        case resourceViaRoleOrUser
        case resourceViaAccount
        case sessionAllow
        case boundaryAllow

        init(_ effect: Effect, _ kind: PolicyKind, _ match: PrincipalMatch) {
            if effect == .deny {
                self = .deny
                return
            }
            switch kind.base {
            case .identity: self = .identityAllow
            case .session: self = .sessionAllow
            case .permissionsBoundary: self = .boundaryAllow
            case .resource, .trust:
                switch match {
                case .viaRoleOrUser: self = .resourceViaRoleOrUser
                case .viaAccount: self = .resourceViaAccount
                default: self = .resourceExact
                }
            }
        }

        var bit: UInt8 { 1 << self.rawValue }
    }

    struct Hit: Sendable {
        var slot: Int32
        var statement: Int32
        var category: Category
    }

    /// How many applicable statements fell in each category.
    struct Tally: Sendable {
        private var present: UInt8 = 0

        mutating func add(_ category: Category) {
            self.present |= category.bit
        }

        func has(_ category: Category) -> Bool {
            self.present & category.bit != 0
        }
    }

    /// References to the hits whose category is in `categories`, in evaluation order.
    func references(_ hits: UnsafeBufferPointer<Hit>, _ categories: UInt8) -> [StatementReference] {
        guard categories != 0 else { return [] }
        var references: [StatementReference] = []
        references.reserveCapacity(hits.reduce(0) { $0 + (categories & $1.category.bit != 0 ? 1 : 0) })
        for hit in hits where categories & hit.category.bit != 0 {
            let slot = self.slots[Int(hit.slot)]
            let statement = slot.policy.statements[Int(hit.statement)]
            references.append(StatementReference(
                policyName: slot.name, policyKind: slot.kind, index: statement.index, sid: statement.sid))
        }
        return references
    }

    /// Why a decision came out as it did, for explanations.
    enum Reason: Sendable {
        case explicitDeny
        case allowedByResourcePolicyNamingCaller
        case allowed
        case allowedCrossAccount
        case anonymousWithoutPublicGrant
        case nothingAllows
        case boundaryDoesNotAllow
        case sessionPolicyDoesNotAllow
        case crossAccountWithoutResourceGrant
        case crossAccountWithoutIdentityGrant
    }

    /// Combines the applicable statements into an outcome, the categories of statements that decided it,
    /// and the reason.
    func combine(_ tally: Tally, _ request: AuthorizationRequest) -> (Decision.Outcome, UInt8, Reason) {
        if tally.has(.deny) {
            return (.explicitDeny, Category.deny.bit, .explicitDeny)
        }
        if request.context.isAnonymous {
            // Anonymous callers have no identity policies; only a public grant helps them.
            if tally.has(.resourceExact) {
                return (.allow, Category.resourceExact.bit, .allowedByResourcePolicyNamingCaller)
            }
            return (.implicitDeny, 0, .anonymousWithoutPublicGrant)
        }
        let boundaryAllows = !self.hasBoundary || tally.has(.boundaryAllow)
        let sessionAllows = !self.hasSessionPolicy || tally.has(.sessionAllow)
        let limits = Category.boundaryAllow.bit | Category.sessionAllow.bit
        if !request.isCrossAccount {
            if tally.has(.resourceExact) {
                return (.allow, Category.resourceExact.bit, .allowedByResourcePolicyNamingCaller)
            }
            guard tally.has(.identityAllow) || tally.has(.resourceViaRoleOrUser) else {
                return (.implicitDeny, 0, .nothingAllows)
            }
            guard boundaryAllows else { return (.implicitDeny, 0, .boundaryDoesNotAllow) }
            guard sessionAllows else { return (.implicitDeny, 0, .sessionPolicyDoesNotAllow) }
            return (.allow, Category.identityAllow.bit | Category.resourceViaRoleOrUser.bit | limits, .allowed)
        }
        let resourceGrants = Category.resourceExact.bit | Category.resourceViaRoleOrUser.bit | Category.resourceViaAccount.bit
        guard tally.has(.resourceExact) || tally.has(.resourceViaRoleOrUser) || tally.has(.resourceViaAccount) else {
            return (.implicitDeny, 0, .crossAccountWithoutResourceGrant)
        }
        guard tally.has(.identityAllow) else { return (.implicitDeny, 0, .crossAccountWithoutIdentityGrant) }
        guard boundaryAllows else { return (.implicitDeny, 0, .boundaryDoesNotAllow) }
        guard sessionAllows else { return (.implicitDeny, 0, .sessionPolicyDoesNotAllow) }
        return (.allow, resourceGrants | Category.identityAllow.bit | limits, .allowedCrossAccount)
    }
}
