/// Decides whether the policies that partition a bucket into per-user folders keep every user out of every
/// other user's folder — for all ids, not for the ids a test happened to try.
///
/// The answer is a proof (with what it covered), a counterexample that ``PolicySimulator`` confirms, or
/// `undecided` naming the statement or construct it could not settle; see <doc:ProvingIsolation> for the
/// method and why a proof holds for every id.
///
/// ```swift
/// let prover = PolicyProver(bucket: "wif-personal", alphabet: try IdentifierAlphabet("[0-9]"))
/// #expect(try prover.isolates(policy, template: "{id}/", idKey: "graph.facebook.com:id"))
/// ```
public struct PolicyProver: Sendable {
    /// The bucket holding the folders.
    public var bucket: String
    /// The characters ids may contain.
    public var alphabet: IdentifierAlphabet
    /// The caller of replayed requests (resource policies match it against their `Principal`).
    public var principal: RequestPrincipal?
    /// Context keys every session carries with the same value, besides the id; any other key is unknown
    /// to the prover (a condition on it is assumed to hold in an `Allow` and not to hold in a `Deny`).
    public var fixedContext: [String: ContextValue]

    /// The session principal used when none is given.
    public static let defaultPrincipal = try? RequestPrincipal.assumedRole(
        sessionArn: "arn:aws:sts::111122223333:assumed-role/personal-store/user")

    /// Creates a prover.
    /// - Parameters:
    ///   - bucket: The bucket holding the folders.
    ///   - alphabet: The characters ids may contain; any character by default.
    ///   - principal: The caller of replayed requests.
    ///   - fixedContext: Keys every session carries with the same value.
    public init(
        bucket: String, alphabet: IdentifierAlphabet = .any, principal: RequestPrincipal? = PolicyProver.defaultPrincipal,
        fixedContext: [String: ContextValue] = [:]
    ) {
        self.bucket = bucket
        self.alphabet = alphabet
        self.principal = principal
        self.fixedContext = fixedContext
    }

    /// Proves or refutes isolation for a set of policies.
    /// - Parameters:
    ///   - policies: The role's identity policies, and any resource policy, session policies and boundary.
    ///   - template: Where each user's folder is.
    ///   - idKey: The context key that carries the id, such as `graph.facebook.com:id`.
    /// - Returns: The proof, a confirmed counterexample, or why there is neither.
    public func proveIsolation(_ policies: PolicyEvaluator, template: PartitionTemplate, idKey: String) -> IsolationResult {
        self.proveIsolation(policies, template: template, idKey: idKey, owner: nil)
    }

    /// Proves or refutes that the users of each role keep out of the folders of every other user, of their
    /// own role and of the others: one answer per ordered pair of roles (caller, owner), the pairs of a role
    /// with itself included.
    ///
    /// Roles that name their users by the same key (the guest, authenticated and group roles of one identity
    /// pool) share their users: the same id is the same user. Roles of different providers do not: user
    /// `123` of one and user `123` of the other are two users, so two roles that both keep folders at
    /// `{id}/` share folders, while `facebook/{id}/` and `google/{id}/` do not.
    /// - Parameter roles: The roles, each with its policies, folder template, id key and id alphabet.
    /// - Returns: The answer for each ordered pair of roles, callers in the order given.
    public func proveIsolation(across roles: [IsolationRole]) -> [RoleIsolationResult] {
        var results: [RoleIsolationResult] = []
        for (callerIndex, caller) in roles.enumerated() {
            var prover = self
            prover.alphabet = caller.alphabet
            for (ownerIndex, owner) in roles.enumerated() {
                var result = prover.proveIsolation(
                    caller.policies, template: caller.template, idKey: caller.idKey,
                    owner: callerIndex == ownerIndex
                        ? nil : IsolationProblem.Owner(template: owner.template, idKey: owner.idKey, alphabet: owner.alphabet))
                if case .counterexample(var found) = result {
                    found.callerRole = caller.name
                    found.ownerRole = owner.name
                    result = .counterexample(found)
                }
                results.append(RoleIsolationResult(caller: caller.name, owner: owner.name, result: result))
            }
        }
        return results
    }

    func proveIsolation(
        _ policies: PolicyEvaluator, template: PartitionTemplate, idKey: String, owner: IsolationProblem.Owner?
    ) -> IsolationResult {
        let problem = IsolationProblem(prover: self, policies: policies, template: template, idKey: idKey, owner: owner)
        // An action that hands out every folder is the caller's role's own finding, reported once.
        if owner == nil, let escalation = problem.escalation() { return .counterexample(escalation) }
        let attempt = problem.prove()
        if case .proved(let proof) = attempt { return .proved(proof) }
        if let counterexample = problem.searchCounterexample() { return .counterexample(counterexample) }
        if case .blocked(let undecided) = attempt { return .undecided(undecided) }
        return .undecided(IsolationUndecided(construct: "policies", reason: "no proof and no counterexample", alphabet: self.alphabet))
    }

    /// Proves or refutes isolation for policies given one by one.
    /// - Parameters:
    ///   - identityPolicies: The role's identity policies.
    ///   - resourcePolicy: The bucket policy.
    ///   - sessionPolicies: Session policies passed with `AssumeRoleWithWebIdentity`.
    ///   - permissionsBoundary: The role's permissions boundary.
    ///   - template: Where each user's folder is.
    ///   - idKey: The context key that carries the id.
    /// - Returns: The proof, a confirmed counterexample, or why there is neither.
    public func proveIsolation(
        identityPolicies: [Policy], resourcePolicy: Policy? = nil, sessionPolicies: [Policy] = [],
        permissionsBoundary: Policy? = nil, template: PartitionTemplate, idKey: String
    ) -> IsolationResult {
        self.proveIsolation(
            PolicyEvaluator(
                identityPolicies: identityPolicies, resourcePolicy: resourcePolicy, sessionPolicies: sessionPolicies,
                permissionsBoundary: permissionsBoundary),
            template: template, idKey: idKey)
    }

    /// Whether one identity policy keeps users apart, for use in tests:
    /// `#expect(try prover.isolates(policy, template: "{id}/", idKey: "graph.facebook.com:id"))`.
    /// - Parameters:
    ///   - policy: The role's identity policy.
    ///   - template: Where each user's folder is, such as `{id}/`.
    ///   - idKey: The context key that carries the id.
    /// - Returns: `true` when isolation is proved, `false` when a confirmed counterexample exists.
    /// - Throws: ``PolicyEngineError/Code/invalidRequest`` for a malformed template, or when the prover
    ///   cannot decide (the error's reason names the construct).
    public func isolates(_ policy: Policy, template: String, idKey: String) throws(PolicyEngineError) -> Bool {
        let result = self.proveIsolation(identityPolicies: [policy], template: try PartitionTemplate(template), idKey: idKey)
        switch result {
        case .proved: return true
        case .counterexample: return false
        case .undecided(let undecided):
            throw PolicyEngineError(
                code: .invalidRequest, reason: "isolation undecided at \(undecided.construct): \(undecided.reason)")
        }
    }
}
