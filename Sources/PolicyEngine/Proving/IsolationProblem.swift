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

    /// Whose folders are at stake when they are not the caller's own role's users: another role's users,
    /// with their own folder template, id key and ids.
    struct Owner: Sendable {
        var template: PartitionTemplate
        var idKey: String
        var alphabet: IdentifierAlphabet
    }

    let prover: PolicyProver
    let policies: PolicyEvaluator
    /// Where the owners' folders are.
    let template: PartitionTemplate
    /// Where the caller's own folder is (the same as ``template`` unless the owners are another role's).
    let callerTemplate: PartitionTemplate
    let idKey: String
    /// The characters of the owners' ids.
    let ownerAlphabet: IdentifierAlphabet
    /// Whether owners and callers are named by the same key, so the same id is the same user and an owner
    /// is any other id; with different keys (two identity providers) every pair of ids is two users.
    let sharesIds: Bool
    let idContextKey: ContextKey
    /// The fixed keys, for resolving variables other than the id.
    let fixed: RequestContext
    /// The keys of ``PolicyProver/fixedContext`` (not the id key): the only keys whose values the prover
    /// knows to be the same for every user. The principal and time keys `fixed` derives from a stand-in
    /// principal and date are not among them.
    let fixedKeys: Set<ContextKey>
    let bucketARN: String
    /// `arn:aws:s3:::bucket/` + template prefix + id + template suffix: the start of every resource in a
    /// user's folder.
    let objectTarget: [SymbolicPrefix.Item]
    /// Template prefix + id + template suffix: the `s3:prefix` that lists a user's folder.
    let prefixTarget: [SymbolicPrefix.Item]
    let statements: [Located]
    let actions: (object: [String], listing: [String], other: [String])

    init(prover: PolicyProver, policies: PolicyEvaluator, template: PartitionTemplate, idKey: String, owner: Owner? = nil) {
        self.prover = prover
        self.policies = policies
        self.template = owner?.template ?? template
        self.callerTemplate = template
        self.idKey = idKey
        self.ownerAlphabet = owner?.alphabet ?? prover.alphabet
        self.sharesIds = owner.map { ContextKey($0.idKey) == ContextKey(idKey) } ?? true
        self.idContextKey = ContextKey(idKey)
        var fixedValues = prover.fixedContext
        fixedValues[idKey] = nil
        self.fixed = RequestContext(principal: prover.principal, time: PolicySimulator.defaultTime, values: fixedValues)
        self.fixedKeys = Set(fixedValues.keys.map(ContextKey.init)).subtracting([ContextKey(idKey)])
        self.bucketARN = "arn:aws:s3:::" + prover.bucket
        let folder = SymbolicPrefix.Item.bytes(self.template.prefix) + [self.sharesIds ? .id : .otherId]
            + SymbolicPrefix.Item.bytes(self.template.suffix)
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
        // With ids of another provider, no request is credited to the caller's own folder, so how folders
        // nest does not matter; with shared ids, the caller's folder must never hold another user's.
        for alphabet in self.sharesIds ? [self.prover.alphabet, self.ownerAlphabet] : [] {
            if let nesting = self.template.nestingExtension(over: alphabet) {
                return blocked(Blocker(
                    construct: "template '\(self.template)'",
                    reason: "over \(alphabet) one folder can lie inside another (ids b and b + '\(nesting)'), "
                        + "so a user's own folder may hold another user's keys"))
            }
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
