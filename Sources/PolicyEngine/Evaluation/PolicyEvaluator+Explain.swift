extension PolicyEvaluator {
    /// Decides a request and explains the decision statement by statement.
    ///
    /// The decision is computed by the same matching code as ``evaluate(_:)``; the explanation only adds the
    /// values that were compared.
    /// - Parameter request: The request.
    /// - Returns: The explanation, whose ``Explanation/decision`` equals `evaluate(request)`.
    public func explain(_ request: AuthorizationRequest) -> Explanation {
        var tally = Tally()
        var hits: [Hit] = []
        var policies: [PolicyExplanation] = []
        for (slotIndex, slot) in self.slots.enumerated() {
            var statements: [StatementExplanation] = []
            for (statementIndex, statement) in slot.policy.statements.enumerated() {
                let match = Self.applies(statement, principals: slot.namesPrincipals, request, self.hasBoundary)
                if match != .none {
                    let category = Category(statement.effect, slot.kind, match)
                    tally.add(category)
                    hits.append(Hit(slot: Int32(slotIndex), statement: Int32(statementIndex), category: category))
                }
                statements.append(Self.explainStatement(
                    statement, slot, principals: slot.namesPrincipals, request, self.hasBoundary, applies: match != .none))
            }
            policies.append(PolicyExplanation(name: slot.name, kind: slot.kind, statements: statements))
        }
        let (outcome, categories, reason) = self.combine(tally, request)
        let references = hits.withUnsafeBufferPointer { self.references($0, categories) }
        let decision = Decision(outcome: outcome, statements: references)
        return Explanation(
            outcome: decision.outcome,
            summary: Self.summary(decision, reason, request),
            action: request.action,
            resource: request.resource,
            principal: request.context.principal?.arn,
            decidingStatements: decision.statements,
            policies: policies)
    }

    private static func summary(_ decision: Decision, _ reason: Reason, _ request: AuthorizationRequest) -> String {
        let references = decision.statements.map(\.description).joined(separator: ", ")
        let subject = "\(request.action) on \(request.resource)"
        switch reason {
        case .explicitDeny:
            return "Explicitly denied by \(references)."
        case .allowedByResourcePolicyNamingCaller:
            return "Allowed by \(references), which names the caller directly, so session policies and permissions boundaries do not limit it."
        case .allowed:
            return "Allowed by \(references)."
        case .allowedCrossAccount:
            return "Allowed across accounts by \(references)."
        case .anonymousWithoutPublicGrant:
            return "Implicitly denied: the request is anonymous and no resource policy grants \(subject) to everyone."
        case .nothingAllows:
            return "Implicitly denied: no statement allows \(subject)."
        case .boundaryDoesNotAllow:
            return "Implicitly denied: the permissions boundary does not allow \(subject), so identity-based grants do not count."
        case .sessionPolicyDoesNotAllow:
            return "Implicitly denied: no session policy allows \(subject), so the role's grants do not count for this session."
        case .crossAccountWithoutResourceGrant:
            return "Implicitly denied: the resource belongs to account \(request.resourceAccount ?? "?") and its resource policy does not grant the caller \(subject)."
        case .crossAccountWithoutIdentityGrant:
            return "Implicitly denied: cross-account access also needs the caller's identity policies to allow \(subject)."
        }
    }

    private static func explainStatement(
        _ statement: CompiledStatement, _ slot: Slot, principals: Bool, _ request: AuthorizationRequest,
        _ hasBoundary: Bool, applies: Bool
    ) -> StatementExplanation {
        let reference = StatementReference(
            policyName: slot.name, policyKind: slot.kind, index: statement.index, sid: statement.sid)
        return StatementExplanation(
            reference: reference,
            effect: statement.effect,
            applies: applies,
            action: self.explainAction(statement, request),
            resource: self.explainResource(statement, request),
            principal: principals ? self.explainPrincipal(statement, request, hasBoundary) : nil,
            conditions: statement.conditions.map { $0.explain(request.context) })
    }

    private static func list(_ values: [String]) -> String {
        "[" + values.map { "'\($0)'" }.joined(separator: ", ") + "]"
    }

    private static func explainAction(_ statement: CompiledStatement, _ request: AuthorizationRequest) -> ElementExplanation {
        let index = statement.matchingActionIndex(request)
        let sources = statement.actionPatterns.map(\.source)
        let action = "'\(request.action)'"
        let detail: String
        switch (statement.actionNegated, index) {
        case (false, let index?): detail = "\(action) matches '\(sources[index])'"
        case (false, nil): detail = "\(action) matches none of \(self.list(sources))"
        case (true, let index?): detail = "\(action) is excluded by NotAction '\(sources[index])'"
        case (true, nil): detail = "\(action) is not listed in NotAction \(self.list(sources)), so the statement covers it"
        }
        return ElementExplanation(matched: (index != nil) != statement.actionNegated, detail: detail)
    }

    private static func explainResource(_ statement: CompiledStatement, _ request: AuthorizationRequest) -> ElementExplanation {
        guard let patterns = statement.resourcePatterns else {
            return ElementExplanation(matched: true, detail: "no Resource element, so any resource")
        }
        let index = statement.matchingResourceIndex(request)
        let context = request.context
        let rendered = patterns.map { $0.rendered(in: context) }
        let resource = "'\(request.resource)'"
        var detail: String
        switch (statement.resourceNegated, index) {
        case (false, let index?): detail = "\(resource) matches '\(rendered[index])'"
        case (false, nil): detail = "\(resource) matches none of \(self.list(rendered))"
        case (true, let index?): detail = "\(resource) is excluded by NotResource '\(rendered[index])'"
        case (true, nil): detail = "\(resource) is not listed in NotResource \(self.list(rendered)), so the statement covers it"
        }
        var unresolved: [String] = []
        for pattern in patterns {
            for variable in pattern.variables where context.resolve(variable) == nil && !unresolved.contains(variable.written) {
                unresolved.append(variable.written)
            }
        }
        if !unresolved.isEmpty {
            detail += " (\(unresolved.joined(separator: ", ")) has no value in the request and no default, so patterns using it match nothing)"
        }
        return ElementExplanation(matched: (index != nil) != statement.resourceNegated, detail: detail)
    }

    private static func explainPrincipal(
        _ statement: CompiledStatement, _ request: AuthorizationRequest, _ hasBoundary: Bool
    ) -> ElementExplanation {
        guard let principal = statement.principal else {
            return ElementExplanation(matched: false, detail: "no Principal element, so the statement names no one")
        }
        let caller = request.context.principal
        let callerText = caller.map { "the caller '\($0.arn)'" } ?? "the anonymous caller"
        let match = self.principalMatch(statement, request, hasBoundary)
        if principal.negated {
            return self.explainNotPrincipal(principal, statement.effect, caller: caller, callerText: callerText, applies: match != .none)
        }
        switch match {
        case .exact:
            let how = principal.everyone ? "Principal '*' names everyone, including \(callerText)" : "\(callerText) is named directly"
            return ElementExplanation(matched: true, detail: how)
        case .viaRoleOrUser:
            let target = caller?.roleArn ?? caller?.userArn ?? "?"
            return ElementExplanation(
                matched: true,
                detail: "\(callerText) is named through '\(target)'; such grants are limited by session policies and permissions boundaries")
        case .viaAccount:
            return ElementExplanation(
                matched: true,
                detail: "\(callerText) is named through its account \(caller?.accountId ?? "?"); that only delegates to the account's identity policies")
        case .none:
            return ElementExplanation(matched: false, detail: "\(callerText) is not named")
        }
    }

    private static func explainNotPrincipal(
        _ principal: CompiledPrincipal, _ effect: Effect, caller: RequestPrincipal?, callerText: String, applies: Bool
    ) -> ElementExplanation {
        if principal.everyone {
            return ElementExplanation(matched: applies, detail: "NotPrincipal '*' leaves out everyone, including \(callerText)")
        }
        guard let caller else {
            return ElementExplanation(
                matched: applies, detail: "\(callerText) has no identity that NotPrincipal could list, so the statement covers it")
        }
        let identities = principal.identities(of: caller)
        func names(_ list: [(name: String, listed: Bool, neededForDeny: Bool)]) -> String {
            list.map(\.name).joined(separator: ", ")
        }
        if effect == .deny {
            let missing = identities.filter { $0.neededForDeny && !$0.listed }
            if missing.isEmpty {
                if applies {
                    return ElementExplanation(
                        matched: true,
                        detail: "\(callerText) is listed in NotPrincipal, but a NotPrincipal Deny statement always applies to a caller with a permissions boundary")
                }
                return ElementExplanation(
                    matched: false,
                    detail: "\(callerText) is exempt from this Deny: NotPrincipal lists every identity of the caller (\(names(identities.filter(\.neededForDeny))))")
            }
            return ElementExplanation(
                matched: true,
                detail: "\(callerText) is not exempt from this Deny: a NotPrincipal Deny exempts a caller only when every identity of the caller is listed, and NotPrincipal does not list its \(names(missing))")
        }
        let listed = identities.filter(\.listed)
        if listed.isEmpty {
            return ElementExplanation(
                matched: true,
                detail: "\(callerText) is not listed in NotPrincipal by any of its identities (\(names(identities))), so the Allow covers it")
        }
        return ElementExplanation(
            matched: false,
            detail: "\(callerText) is left out of this Allow: NotPrincipal lists its \(names(listed)), and an Allow with NotPrincipal does not cover a caller listed by any of its identities")
    }
}

extension CompiledCondition {
    func explain(_ context: RequestContext) -> ConditionExplanation {
        let matched = self.evaluate(context)
        let entry = context.value(for: self.key)
        let policyValues = self.renderedValues(in: context)
        let key = "'\(self.keyAsWritten)'"
        let verdict = matched ? "holds" : "fails"
        var detail: String
        if case .nulls = self.values {
            let state: String
            if let entry {
                state = entry.isMultiValued && entry.values.isEmpty ? "an empty set, which Null treats as null" : "present"
            } else {
                state = "absent"
            }
            detail = "\(key) is \(state); Null \(policyValues.joined(separator: " or ")) \(verdict)"
        } else if entry == nil {
            if self.op.qualifier == .forAllValues {
                detail = "\(key) is absent; ForAllValues holds when the request has no values"
            } else if self.op.qualifier == .forAnyValue {
                detail = "\(key) is absent; ForAnyValue fails when the request has no values"
            } else if self.op.isIfExists {
                detail = "\(key) is absent, and IfExists makes the condition hold"
            } else if self.op.isNegated {
                detail = "\(key) is absent, and a negated operator holds when the key is absent"
            } else {
                detail = "\(key) is absent, so the condition fails"
            }
        } else if let value = entry, self.op.qualifier == nil, value.utf8.count != 1 {
            detail = "\(key) is multi-valued (\(value.values.count) values); a plain operator does not match it, use ForAnyValue: or ForAllValues:"
        } else if let value = entry, value.utf8.isEmpty {
            detail = "\(key) is an empty set; \(self.op.qualifier?.description ?? "") \(verdict) when the request has no values"
        } else {
            var parts: [String] = []
            for requestValue in entry?.utf8 ?? [] {
                let text = "'\(String(decoding: requestValue, as: UTF8.self))'"
                if let index = self.matchingPolicyValueIndex(requestValue, context: context) {
                    parts.append("\(text) matches '\(policyValues[index])'")
                } else {
                    parts.append("\(text) matches none of [\(policyValues.map { "'\($0)'" }.joined(separator: ", "))]")
                }
            }
            detail = parts.joined(separator: "; ")
            var rule = ""
            if self.op.isNegated { rule = "\(self.op.name) holds only when no value matches" }
            if self.op.qualifier == .forAllValues {
                rule += (rule.isEmpty ? "" : "; ") + "ForAllValues requires every request value to satisfy it"
            } else if self.op.qualifier == .forAnyValue {
                rule += (rule.isEmpty ? "" : "; ") + "ForAnyValue requires one request value to satisfy it"
            }
            if !rule.isEmpty { detail += " (\(rule))" }
            detail += "; the condition \(verdict)"
        }
        let unresolved = self.unresolvedVariables(in: context)
        if !unresolved.isEmpty {
            detail += " (\(unresolved.joined(separator: ", ")) has no value in the request and no default, so values using it match nothing)"
        }
        return ConditionExplanation(
            operator: self.op.name, key: self.keyAsWritten, policyValues: policyValues,
            requestValues: entry?.values, matched: matched, detail: detail)
    }
}
