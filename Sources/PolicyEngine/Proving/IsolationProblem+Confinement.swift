/// The proof steps: showing, for every id at once, that what a statement grants stays in the caller's
/// folder, or that a deny statement removes everything outside it.
extension IsolationProblem {
    /// Decides, from which allow statements may grant outside the caller's folder, whether the policies
    /// as IAM combines them may: a resource policy grants on its own (a grant naming the session is not
    /// limited by session policies or a boundary), while what identity policies grant must also be allowed
    /// by every session policy set and the boundary, so confining any one of those confines it.
    /// - Parameter blocker: Why a statement may grant outside the folder, or `nil` if it cannot.
    /// - Returns: The policies that confine the grants, or the first statement that stops the proof.
    func combine(_ blocker: (Located) -> Blocker?) -> Result<String, Blocker> {
        let resource = self.statements.lazy.filter { $0.slot.kind.base == .resource && $0.statement.effect == .allow }
            .compactMap(blocker).first
        let identity = self.statements.lazy.filter { $0.slot.kind.base == .identity && $0.statement.effect == .allow }
            .compactMap(blocker).first
        if let resource { return .failure(resource) }
        guard let identity else { return .success("the identity and resource policies grant it only inside the caller's folder") }
        if self.policies.hasSessionPolicy,
           self.statements.lazy.filter({ $0.slot.kind.base == .session && $0.statement.effect == .allow }).compactMap(blocker).first == nil
        {
            return .success("the session policies allow it only inside the caller's folder")
        }
        if self.policies.hasBoundary,
           self.statements.lazy.filter({ $0.slot.kind.base == .permissionsBoundary && $0.statement.effect == .allow })
               .compactMap(blocker).first == nil
        {
            return .success("the permissions boundary allows it only inside the caller's folder")
        }
        return .failure(identity)
    }

    /// Deny statements in policies that name no principal (identity, session, boundary), which apply to
    /// every request of the session.
    var denies: [Located] {
        self.statements.filter { $0.statement.effect == .deny && !$0.slot.namesPrincipals }
    }

    /// Proves an object action: every allowed request on an object in some folder is in the caller's own.
    /// - Returns: Why the action is safe, `nil` if no statement grants it, or the statement that blocks.
    func proveObjectAction(_ action: String) -> Result<String?, Blocker> {
        let probe = self.actionProbe(action)
        let grants = self.statements.filter { $0.statement.effect == .allow && $0.statement.actionApplies(probe) }
        guard !grants.isEmpty else { return .success(nil) }
        for deny in self.denies where deny.statement.actionApplies(probe) && self.denyCoversObjects(deny.statement) {
            return .success("every object outside the caller's folder is denied by \(deny.reference)")
        }
        return self.combine { located in
            located.statement.actionApplies(probe) ? self.objectBlocker(located) : nil
        }.map { Optional($0) }
    }

    /// Why an allow statement may grant an object outside the caller's folder, or `nil` if it cannot.
    func objectBlocker(_ located: Located) -> Blocker? {
        let statement = located.statement
        // Object requests carry no s3:prefix or s3:delimiter: a condition that needs one never holds.
        for condition in statement.conditions where Self.listingKeys.contains(condition.key) {
            if !condition.evaluate(RequestContext()) { return nil }
        }
        if statement.conditions.contains(where: self.neverHoldsForAnId) { return nil }
        if statement.conditions.contains(where: { self.truth(of: $0, listing: false) == false }) { return nil }
        guard let patterns = statement.resourcePatterns else {
            return Blocker(construct: located.reference, reason: "has no Resource, so it covers every object")
        }
        if statement.resourceNegated {
            if patterns.contains(where: { self.prefix($0).coversEverythingFrom(self.objectTarget) }) { return nil }
            return Blocker(
                construct: "\(located.reference) NotResource",
                reason: "an Allow with NotResource grants everything it does not list, including other users' folders")
        }
        for pattern in patterns {
            let prefix = self.prefix(pattern)
            switch self.relation(prefix, to: self.objectTarget) {
            case .extendsTarget, .divergesBeforeId, .endsBeforeId:
                continue
            case .undetermined:
                var reason = "resource '\(pattern.source)' is not confined to '\(self.bucketARN)/\(self.template)'"
                if let variable = prefix.unknownVariable { reason += "; the value of \(variable) is unknown to the prover" }
                return Blocker(construct: "\(located.reference) Resource '\(pattern.source)'", reason: reason)
            }
        }
        return nil
    }

    /// Whether a deny removes every object in other users' folders: its conditions hold for every object
    /// request of every user (they test keys the prover knows, such as the fixed context, or keys that
    /// object requests never carry), and its resources cover the folders.
    func denyCoversObjects(_ statement: CompiledStatement) -> Bool {
        guard statement.conditions.allSatisfy({ self.truth(of: $0, listing: false) == true }),
              let patterns = statement.resourcePatterns
        else { return false }
        if statement.resourceNegated {
            return patterns.allSatisfy {
                switch self.relation(self.prefix($0), to: self.objectTarget) {
                case .extendsTarget, .divergesBeforeId, .endsBeforeId: return true
                case .undetermined: return false
                }
            }
        }
        return patterns.contains { self.prefix($0).coversEverythingFrom(self.objectTarget) }
    }

    /// Whether a condition on the id key holds for no id of the alphabet: it compares the id, equal or
    /// alike, only with fixed strings that are not ids (such as the empty string, or letters when ids are
    /// digits).
    func neverHoldsForAnId(_ condition: CompiledCondition) -> Bool {
        guard condition.key == self.idContextKey, condition.op.qualifier == nil,
              condition.op.base == .stringEquals || condition.op.base == .stringLike,
              case .strings(let patterns) = condition.values
        else { return false }
        return patterns.allSatisfy { pattern in
            let prefix = SymbolicPrefix(pattern, idKey: self.idContextKey, fixed: self.fixed, known: self.fixedKeys)
            guard prefix.isComplete, !prefix.items.contains(.id) else { return false }
            let bytes = prefix.items.compactMap { item -> UInt8? in
                if case .byte(let byte) = item { return byte }
                return nil
            }
            return !self.prover.alphabet.admits(String(decoding: bytes, as: UTF8.self))
        }
    }

    static let listingKeys: Set<ContextKey> = [.s3Prefix, .s3Delimiter, .s3MaxKeys]

    /// Whether a condition holds, the same for every user's requests of a kind, when that can be known: it
    /// tests a key of the fixed context (with values whose variables name only such keys), or, for object
    /// requests, a listing key, which they never carry. `nil` when it depends on the id, on the listing's
    /// own keys, or on a key the prover is not given (whose value it does not know: the principal's and
    /// the time's keys included, which replayed requests take from a stand-in).
    /// - Parameters:
    ///   - condition: The condition.
    ///   - listing: Whether the requests are listings (which carry `s3:prefix` and `s3:delimiter`).
    func truth(of condition: CompiledCondition, listing: Bool) -> Bool? {
        guard condition.key != self.idContextKey else { return nil }
        if Self.listingKeys.contains(condition.key) {
            if listing { return nil }
        } else if !self.fixedKeys.contains(condition.key) {
            return nil
        }
        let unknown = { (variable: PolicyVariable) in !self.fixedKeys.contains(variable.key) }
        switch condition.values {
        case .strings(let patterns) where patterns.contains(where: { $0.variables.contains(where: unknown) }):
            return nil
        case .arns(let patterns) where patterns.contains(where: { $0.variables.contains(where: unknown) }):
            return nil
        default:
            break
        }
        return condition.evaluate(self.fixed)
    }

    /// How a pattern's prefix relates to a target, knowing which characters the caller's and the owners'
    /// ids may start with.
    func relation(_ prefix: SymbolicPrefix, to target: [SymbolicPrefix.Item]) -> SymbolicPrefix.Relation {
        prefix.relation(to: target, idAlphabet: self.prover.alphabet, targetIdAlphabet: self.ownerAlphabet)
    }

    func prefix(_ pattern: ARNPattern) -> SymbolicPrefix {
        SymbolicPrefix(pattern, idKey: self.idContextKey, fixed: self.fixed, known: self.fixedKeys)
    }

    // MARK: Listing

    /// Proves a listing action: every allowed listing of the bucket has a prefix inside the caller's folder
    /// (or one that no folder starts with).
    func proveListingAction(_ action: String) -> Result<String?, Blocker> {
        let probe = self.actionProbe(action)
        let grants = self.statements.filter {
            $0.statement.effect == .allow && $0.statement.actionApplies(probe) && self.mayApplyToBucket($0.statement)
        }
        guard !grants.isEmpty else { return .success(nil) }
        for deny in self.denies where deny.statement.actionApplies(probe) && self.denyCoversListing(deny.statement) {
            return .success("every prefix outside the caller's folder is denied by \(deny.reference)")
        }
        return self.combine { located in
            let statement = located.statement
            guard statement.actionApplies(probe), self.mayApplyToBucket(statement),
                  !statement.conditions.contains(where: {
                      self.confinesPrefix($0) || self.neverHoldsForAnId($0) || self.truth(of: $0, listing: true) == false
                  })
            else { return nil }
            return Blocker(
                construct: "\(located.reference) \(action)",
                reason: "lists '\(self.bucketARN)' with no s3:prefix condition confined to '\(self.template)' "
                    + "(a listing without a prefix, or with a shorter one, reveals other users' keys)")
        }.map { Optional($0) }
    }

    /// Whether a condition holds only when `s3:prefix` is present and inside the caller's folder (or outside
    /// every folder): a positive string operator whose every value starts with the folder.
    func confinesPrefix(_ condition: CompiledCondition) -> Bool {
        guard condition.key == .s3Prefix, !condition.op.isIfExists, condition.op.qualifier != .forAllValues,
              [.stringEquals, .stringLike, .stringEqualsIgnoreCase].contains(condition.op.base),
              case .strings(let patterns) = condition.values
        else { return false }
        let ignoringCase = condition.op.base == .stringEqualsIgnoreCase
        return patterns.allSatisfy { self.prefixValueConfined($0, ignoringCase: ignoringCase) }
    }

    /// Whether every `s3:prefix` a value matches starts with the caller's folder or with no folder at all.
    ///
    /// Ignoring case, a value also matches the prefixes that differ from it in case only. Those reach no
    /// other user's folder when no two ids differ in case only (the alphabet has no letter in both cases)
    /// and the folder's start compares the same in either case: both are compared in lowercase, and any
    /// other letter leaves the value unconfined.
    func prefixValueConfined(_ pattern: Pattern, ignoringCase: Bool = false) -> Bool {
        var prefix = SymbolicPrefix(pattern, idKey: self.idContextKey, fixed: self.fixed, known: self.fixedKeys)
        guard ignoringCase else {
            switch self.relation(prefix, to: self.prefixTarget) {
            case .extendsTarget, .divergesBeforeId: return true
            case .endsBeforeId, .undetermined: return false
            }
        }
        // Ignoring case: no caller's id and owner's id may differ in case only, the text after the id must
        // have no letters (folding them could nest folders the exact check keeps apart), and the alphabets'
        // rule about characters no id starts with does not apply to folded text.
        guard !self.prover.alphabet.hasCaseVariants(against: self.ownerAlphabet),
              self.template.suffix.utf8.allSatisfy({ $0 < 0x80 && !(0x41...0x5A).contains($0 & ~0x20) }),
              let folded = SymbolicPrefix.Item.lowercasedASCII(prefix.items),
              let target = SymbolicPrefix.Item.lowercasedASCII(self.prefixTarget)
        else { return false }
        prefix.items = folded
        switch prefix.relation(to: target) {
        case .extendsTarget, .divergesBeforeId: return true
        case .endsBeforeId, .undetermined: return false
        }
    }

    /// Whether a deny removes every listing whose prefix is outside the caller's folder: it surely covers
    /// the bucket and is unconditional, or its only conditions are negated string tests of `s3:prefix`
    /// against values inside the folder.
    func denyCoversListing(_ statement: CompiledStatement) -> Bool {
        guard self.surelyAppliesToBucket(statement) else { return false }
        return statement.conditions.allSatisfy { condition in
            // A condition that holds for every listing of every user leaves the rest to decide.
            if let truth = self.truth(of: condition, listing: true) { return truth }
            guard condition.key == .s3Prefix, condition.op.qualifier == nil,
                  [.stringNotEquals, .stringNotLike, .stringNotEqualsIgnoreCase].contains(condition.op.base),
                  case .strings(let patterns) = condition.values
            else { return false }
            let ignoringCase = condition.op.base == .stringNotEqualsIgnoreCase
            return patterns.allSatisfy { self.prefixValueConfined($0, ignoringCase: ignoringCase) }
        }
    }

    /// Whether a statement's resource element may match the bucket ARN for some id.
    func mayApplyToBucket(_ statement: CompiledStatement) -> Bool {
        guard let patterns = statement.resourcePatterns else { return true }
        if statement.resourceNegated {
            return !patterns.contains { self.surelyMatchesBucket($0) }
        }
        return patterns.contains { self.mayMatchBucket($0) }
    }

    func surelyAppliesToBucket(_ statement: CompiledStatement) -> Bool {
        guard let patterns = statement.resourcePatterns else { return true }
        if statement.resourceNegated {
            return !patterns.contains { self.mayMatchBucket($0) }
        }
        return patterns.contains { self.surelyMatchesBucket($0) }
    }

    /// Whether the pattern has a variable that is neither the id nor a fixed key.
    func hasUnknownVariable(_ pattern: ARNPattern) -> Bool {
        pattern.variables.contains { $0.key != self.idContextKey && !self.fixedKeys.contains($0.key) }
    }

    func mayMatchBucket(_ pattern: ARNPattern) -> Bool {
        if self.hasUnknownVariable(pattern) { return true }
        if !pattern.variables.contains(where: { $0.key == self.idContextKey }) {
            return pattern.matchesResource(AuthorizationRequest(action: "s3:ListBucket", resource: self.bucketARN, context: self.fixed))
        }
        let prefix = self.prefix(pattern)
        let target = SymbolicPrefix.Item.bytes(self.bucketARN)
        switch self.relation(prefix, to: target) {
        case .divergesBeforeId, .endsBeforeId: return false
        case .extendsTarget: return prefix.items.count == target.count
        case .undetermined: return true
        }
    }

    func surelyMatchesBucket(_ pattern: ARNPattern) -> Bool {
        !pattern.variables.contains(where: { $0.key == self.idContextKey }) && !self.hasUnknownVariable(pattern)
            && pattern.matchesResource(AuthorizationRequest(action: "s3:ListBucket", resource: self.bucketARN, context: self.fixed))
    }
}
