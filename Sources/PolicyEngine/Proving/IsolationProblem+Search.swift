/// The refutation step: concrete requests by one user on another user's folder, built from ids that are
/// known to break partitions and from the text of the policies themselves, each decided by the evaluator.
extension IsolationProblem {
    /// Ids that have broken partitions: a prefix of another id, ids with wildcards, slashes, variables,
    /// dots and another case, and the digits of numeric ids.
    static let trapIds = [
        "alice", "al", "Alice", "bob", "x", "x/y", "12", "123", "12/", "123/", "1001", "10012", "*", "?", "a*",
        "${x}", "..", "../x", "us-east-1:alice", "a b",
    ]

    /// Candidate ids, in a fixed order: the traps, ids built from the alphabet, words the policies name
    /// where an id would go, and each of those followed by what nests one folder inside another.
    func candidateIds() -> [String] {
        self.candidateIds(alphabet: self.prover.alphabet, template: self.callerTemplate)
    }

    /// Candidate ids of one alphabet, extended by what nests the folders of one template.
    func candidateIds(alphabet: IdentifierAlphabet, template: PartitionTemplate) -> [String] {
        var ids: [String] = []
        func add(_ id: String) {
            if alphabet.admits(id), !ids.contains(id) { ids.append(id) }
        }
        Self.trapIds.forEach(add)
        let characters = alphabet.sampleCharacters(preferring: Array("/*?$.".unicodeScalars)).prefix(4).map { String($0) }
        for first in characters {
            add(first)
            for second in characters { add(first + second) }
        }
        if characters.count >= 3 { add(characters[0] + characters[1] + characters[2]) }
        for word in self.policyWords() { add(word) }
        if let nesting = template.nestingExtension(over: alphabet) {
            for base in Array(ids.prefix(6)) {
                add(base + nesting)
                if let extra = characters.first { add(base + nesting + extra) }
            }
        }
        return Array(ids.prefix(48))
    }

    /// Words in resource patterns and `s3:prefix` values where a literal id would sit after the template's
    /// prefix, such as `alice` in `arn:aws:s3:::bucket/alice/*`, and the values conditions compare the id
    /// with.
    func policyWords() -> [String] {
        var texts: [String] = []
        for located in self.statements {
            for pattern in located.statement.resourcePatterns ?? [] {
                let source = pattern.rendered(in: self.fixed)
                let start = self.bucketARN + "/" + self.template.prefix
                if source.hasPrefix(start) { texts.append(String(source.dropFirst(start.count))) }
            }
            for condition in located.statement.conditions {
                if condition.key == .s3Prefix {
                    for value in condition.rawValues where value.hasPrefix(self.template.prefix) {
                        texts.append(String(value.dropFirst(self.template.prefix.count)))
                    }
                } else if condition.key == self.idContextKey {
                    // The ids a condition singles out, such as an administrator's.
                    texts += condition.rawValues
                }
            }
        }
        return texts.compactMap { text in
            let word = text.prefix { !"/*?$".contains($0) }
            return word.isEmpty ? nil : String(word)
        }
    }

    /// One action per group of actions that exactly the same statements name: the evaluator cannot tell
    /// the others of a group apart.
    func representatives(_ actions: [String]) -> [String] {
        var seen: Set<[Bool]> = []
        var chosen: [String] = []
        for action in actions {
            let probe = self.actionProbe(action)
            let signature = self.statements.map { $0.statement.actionApplies(probe) }
            guard signature.contains(true), seen.insert(signature).inserted else { continue }
            chosen.append(action)
        }
        return chosen
    }

    /// Searches for a request by one user that is allowed on another user's folder, and replays it.
    func searchCounterexample() -> IsolationCounterexample? {
        let ids = self.candidateIds()
        let owners = self.sharesIds && self.ownerAlphabet == self.prover.alphabet
            ? ids : self.candidateIds(alphabet: self.ownerAlphabet, template: self.template)
        let objectActions = self.representatives(self.actions.object)
        let listingActions = self.representatives(self.actions.listing)
        for caller in ids + self.callersOwningOthersFolders(owners) {
            let context = self.sessionContext(caller)
            let granted = self.grantedKeys(context)
            // The same id of another provider is another user.
            for owner in owners where owner != caller || !self.sharesIds {
                let folder = self.template.folder(for: owner)
                for action in objectActions {
                    let own = self.callerTemplate.folder(for: caller)
                    let keys = [folder + "f", folder, folder + "*", own + "f", own] + granted
                    for key in keys where key.hasPrefix(folder) {
                        let request = AuthorizationRequest.s3Object(
                            String(action.dropFirst(3)), bucket: self.prover.bucket, key: key, context: context)
                        if let found = self.confirmed(request, caller: caller, owner: owner, keys: [:]) { return found }
                    }
                }
                for action in listingActions {
                    for prefix in self.listingPrefixes(caller: caller, owner: owner) {
                        for delimiter in [nil, "/"] as [String?] {
                            var keys: [String: String] = [:]
                            var listingContext = context
                            if let prefix {
                                keys["s3:prefix"] = prefix
                                listingContext.setValue(ContextValue(prefix), forKey: .s3Prefix, name: "s3:prefix")
                            }
                            if let delimiter {
                                keys["s3:delimiter"] = delimiter
                                listingContext.setValue(ContextValue(delimiter), forKey: .s3Delimiter, name: "s3:delimiter")
                            }
                            let request = AuthorizationRequest(action: action, resource: self.bucketARN, context: listingContext)
                            if let found = self.confirmed(request, caller: caller, owner: owner, keys: keys) { return found }
                        }
                    }
                }
            }
        }
        return nil
    }

    /// Callers whose own folder is another role's user's folder: with `{id}/` for the caller and
    /// `google/{id}/` for the owner, the caller `google/12` owns the folder of the owner `12`.
    func callersOwningOthersFolders(_ owners: [String]) -> [String] {
        guard self.callerTemplate != self.template else { return [] }
        let prefix = self.callerTemplate.prefix, suffix = self.callerTemplate.suffix
        var callers: [String] = []
        for owner in owners.prefix(8) {
            let folder = self.template.folder(for: owner)
            guard folder.count > prefix.count + suffix.count, folder.hasPrefix(prefix), folder.hasSuffix(suffix) else { continue }
            let id = String(folder.dropFirst(prefix.count).dropLast(suffix.count))
            if self.prover.alphabet.admits(id), !callers.contains(id) { callers.append(id) }
        }
        return callers
    }

    /// Keys the allow statements' resource patterns name for the caller, with each wildcard matching `f`.
    func grantedKeys(_ context: RequestContext) -> [String] {
        let start = Array((self.bucketARN + "/").utf8)
        var keys: [String] = []
        for located in self.statements where located.statement.effect == .allow && !located.statement.resourceNegated {
            for pattern in located.statement.resourcePatterns ?? [] {
                var bytes: [UInt8] = []
                for (index, segment) in pattern.segments.enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ":")) }
                    for token in pattern.pattern.tokens[segment] {
                        switch token.kind {
                        case .literal:
                            bytes += pattern.pattern.bytes[Int(token.start)..<Int(token.start + token.count)]
                        case .variable:
                            bytes += context.resolve(pattern.pattern.variables[Int(token.start)]) ?? []
                        case .anyCharacter, .anySequence:
                            bytes.append(UInt8(ascii: "f"))
                        }
                    }
                }
                if bytes.starts(with: start) { keys.append(String(decoding: bytes.dropFirst(start.count), as: UTF8.self)) }
            }
        }
        return keys
    }

    /// Prefixes that reveal the owner's keys (a prefix of the owner's folder, or one inside it), `nil`
    /// standing for a listing without `s3:prefix`.
    func listingPrefixes(caller: String, owner: String) -> [String?] {
        let folder = self.template.folder(for: owner)
        var prefixes: [String?] = [nil, "", self.template.prefix, folder, folder + "f", String(folder.dropLast())]
        prefixes.append(self.template.prefix + String(owner.prefix(1)))
        // What the policies' own prefix values become for the caller, with wildcards matching nothing.
        let context = self.sessionContext(caller)
        for located in self.statements {
            for condition in located.statement.conditions where condition.key == .s3Prefix {
                if case .strings(let patterns) = condition.values {
                    for pattern in patterns {
                        prefixes.append(String(pattern.rendered(in: context).filter { $0 != "*" && $0 != "?" }))
                    }
                }
            }
        }
        var unique: [String?] = []
        for prefix in prefixes where !unique.contains(prefix) {
            guard let prefix else {
                unique.append(nil)
                continue
            }
            if folder.hasPrefix(prefix) || prefix.hasPrefix(folder) { unique.append(prefix) }
        }
        return unique
    }

    /// The counterexample for `request` if the evaluator allows it and a fresh ``PolicySimulator`` over
    /// the same policies, replaying it, allows it too.
    func confirmed(
        _ request: AuthorizationRequest, caller: String, owner: String, keys: [String: String]
    ) -> IsolationCounterexample? {
        guard self.policies.evaluate(request).outcome == .allow else { return nil }
        let simulator = PolicySimulator(
            identityPolicies: self.policies.identityPolicies, resourcePolicy: self.policies.resourcePolicy,
            sessionPolicies: self.policies.sessionPolicies, permissionsBoundary: self.policies.permissionsBoundary)
        let replay = simulator.decide(request)
        guard replay.outcome == .allow else { return nil }
        return IsolationCounterexample(
            callerId: caller, ownerId: owner, action: request.action, resource: request.resource, requestKeys: keys,
            allowedBy: replay.statements, alphabet: self.prover.alphabet)
    }
}
