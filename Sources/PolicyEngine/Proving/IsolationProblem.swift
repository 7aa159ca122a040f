/// One isolation question: the policies, the bucket, the folder template and the id key, with the
/// targets every proof step compares against.
struct IsolationProblem: Sendable {
    /// A statement of one policy, with the policy's role in evaluation.
    struct Located: Sendable {
        let slot: PolicyEvaluator.Slot
        let statement: CompiledStatement

        /// `identity policy 'name' Statement[2] (Sid)`, for messages.
        var reference: String {
            var text = "\(self.slot.kind) policy '\(self.slot.name)' Statement[\(self.statement.index)]"
            if let sid = self.statement.sid { text += " (\(sid))" }
            return text
        }
    }

    /// Why one statement stops a proof.
    struct Blocker: Sendable {
        var construct: String
        var reason: String
    }

    enum Attempt: Sendable {
        case proved(IsolationProof)
        case blocked(IsolationUndecided)
    }

    let prover: PolicyProver
    let policies: PolicyEvaluator
    let template: PartitionTemplate
    let idKey: String
    let idContextKey: ContextKey
    /// The fixed keys, for resolving variables other than the id.
    let fixed: RequestContext
    let bucketARN: String
    /// `arn:aws:s3:::bucket/` + template prefix + id + template suffix: the start of every resource in a
    /// user's folder.
    let objectTarget: [SymbolicPrefix.Item]
    /// Template prefix + id + template suffix: the `s3:prefix` that lists a user's folder.
    let prefixTarget: [SymbolicPrefix.Item]
    let statements: [Located]
    let actions: (object: [String], listing: [String], other: [String])

    init(prover: PolicyProver, policies: PolicyEvaluator, template: PartitionTemplate, idKey: String) {
        self.prover = prover
        self.policies = policies
        self.template = template
        self.idKey = idKey
        self.idContextKey = ContextKey(idKey)
        var fixedValues = prover.fixedContext
        fixedValues[idKey] = nil
        self.fixed = RequestContext(principal: prover.principal, time: PolicySimulator.defaultTime, values: fixedValues)
        self.bucketARN = "arn:aws:s3:::" + prover.bucket
        let folder = SymbolicPrefix.Item.bytes(template.prefix) + [.id] + SymbolicPrefix.Item.bytes(template.suffix)
        self.objectTarget = SymbolicPrefix.Item.bytes(self.bucketARN + "/") + folder
        self.prefixTarget = folder
        self.statements = policies.slots.flatMap { slot in slot.policy.statements.map { Located(slot: slot, statement: $0) } }
        let modelStatements = policies.identityPolicies + policies.sessionPolicies
            + [policies.resourcePolicy, policies.permissionsBoundary].compactMap { $0 }
        self.actions = S3ActionCatalog.universe(modelStatements.flatMap(\.statements))
    }

    /// The context of a request by the user `id`.
    func sessionContext(_ id: String) -> RequestContext {
        self.fixed.merging([self.idKey: ContextValue(id)])
    }

    /// A request with only an action, for asking which statements name it.
    func actionProbe(_ action: String) -> AuthorizationRequest {
        AuthorizationRequest(action: action, resource: "*", context: RequestContext())
    }

    /// Tries to prove isolation for every object and listing action.
    func prove() -> Attempt {
        func blocked(_ blocker: Blocker) -> Attempt {
            .blocked(IsolationUndecided(construct: blocker.construct, reason: blocker.reason, alphabet: self.prover.alphabet))
        }
        if let nesting = self.template.nestingExtension(over: self.prover.alphabet) {
            return blocked(Blocker(
                construct: "template '\(self.template)'",
                reason: "over \(self.prover.alphabet) one folder can lie inside another (ids b and b + '\(nesting)'), "
                    + "so a user's own folder may hold another user's keys"))
        }
        var reasons: [String] = []
        for action in self.actions.object {
            switch self.proveObjectAction(action) {
            case .success(let reason):
                if let reason { reasons.append("\(action): \(reason)") }
            case .failure(let blocker): return blocked(blocker)
            }
        }
        var provedListing: [String] = []
        for action in self.actions.listing {
            switch self.proveListingAction(action) {
            case .success(let reason):
                if let reason { reasons.append("\(action): \(reason)") }
                provedListing.append(action)
            case .failure(let blocker): return blocked(blocker)
            }
        }
        return .proved(IsolationProof(
            bucket: self.prover.bucket, template: self.template, idKey: self.idKey, alphabet: self.prover.alphabet,
            objectActions: self.actions.object, listingActions: provedListing, reasons: reasons,
            actionsNotConsidered: self.actions.other))
    }
}

extension IsolationProblem {
    /// An action on the bucket itself that hands a user the others' folders indirectly (rewriting the
    /// bucket policy, an inventory of every key, …), allowed to some user and replayed like any other
    /// counterexample; `nil` when none is allowed.
    func escalation() -> IsolationCounterexample? {
        let ids = self.candidateIds()
        guard let caller = ids.first, let owner = ids.dropFirst().first else { return nil }
        for (action, how) in S3ActionCatalog.escalatingBucketActions {
            let request = AuthorizationRequest(action: action, resource: self.bucketARN, context: self.sessionContext(caller))
            if var found = self.confirmed(request, caller: caller, owner: owner, keys: [:]) {
                found.escalation = how
                return found
            }
        }
        return nil
    }
}

extension IsolationProblem.Blocker: Error {}
