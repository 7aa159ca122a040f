/// A condition prepared for evaluation: key lowercased, values parsed once for their family.
final class CompiledCondition: Sendable {
    enum Values: Sendable {
        case strings([Pattern])
        case numbers([Double])
        case dates([Int64])
        case bools([Bool])
        case binaries([[UInt8]])
        case addresses([CIDRBlock])
        case arns([ARNPattern])
        case nulls([Bool])
    }

    let op: ConditionOperator
    /// The key, normalized for lookup.
    let key: ContextKey
    /// The key as written in the policy.
    let keyAsWritten: String
    /// The policy values as written.
    let rawValues: [String]
    let values: Values

    init(op: ConditionOperator, key: String, rawValues: [String], values: Values) {
        self.op = op
        self.key = ContextKey(key)
        self.keyAsWritten = key
        self.rawValues = rawValues
        self.values = values
    }

    /// Whether the condition holds for the request context.
    ///
    /// The rules, from the IAM documentation on condition operators and on multi-valued keys:
    /// - An absent key fails the condition, except that negated operators and `…IfExists` then hold.
    /// - The values of one condition are OR'ed; a negated operator holds when *no* value matches.
    /// - `ForAnyValue:` holds when some request value satisfies the operator; false for an absent key or
    ///   empty set. `ForAllValues:` holds when every request value does; true for an absent key or empty set.
    /// - `Null` holds for `"true"` when the key is absent (or an empty set) and for `"false"` otherwise.
    /// - A plain (unqualified) operator applied to a multi-valued key compares its value only when the set
    ///   has exactly one element; otherwise it does not hold, since AWS requires a set operator there.
    func evaluate(_ context: RequestContext) -> Bool {
        let entry = context.value(for: self.key)
        if case .nulls(let expected) = self.values {
            let isNull = entry.map { $0.isMultiValued && $0.values.isEmpty } ?? true
            return expected.contains(isNull)
        }
        let negated = self.op.isNegated
        guard let qualifier = self.op.qualifier else {
            guard let value = entry else { return self.op.isIfExists || negated }
            guard value.utf8.count == 1 else { return false }
            return self.anyPolicyValueMatches(value.utf8[0], context: context) != negated
        }
        guard let value = entry, !value.utf8.isEmpty else {
            return qualifier == .forAllValues
        }
        if qualifier == .forAnyValue {
            for requestValue in value.utf8 where self.anyPolicyValueMatches(requestValue, context: context) != negated {
                return true
            }
            return false
        }
        for requestValue in value.utf8 where self.anyPolicyValueMatches(requestValue, context: context) == negated {
            return false
        }
        return true
    }

    /// Whether one request value matches at least one policy value under the *positive* form of the
    /// operator (`StringEquals` for `StringNotEquals`, `IpAddress` for `NotIpAddress`, …).
    func anyPolicyValueMatches(_ requestValue: [UInt8], context: RequestContext) -> Bool {
        self.matchingPolicyValueIndex(requestValue, context: context) != nil
    }

    /// The index of the first policy value the request value matches under the positive operator.
    func matchingPolicyValueIndex(_ requestValue: [UInt8], context: RequestContext) -> Int? {
        switch self.values {
        case .strings(let patterns):
            return StringConditions.firstMatch(self.op.base.positive, patterns, requestValue, context: context)
        case .numbers(let numbers):
            return NumericConditions.firstMatch(self.op.base, numbers, requestValue)
        case .dates(let dates):
            return DateConditions.firstMatch(self.op.base, dates, requestValue)
        case .bools(let bools):
            return BoolConditions.firstMatch(bools, requestValue)
        case .binaries(let binaries):
            return BinaryConditions.firstMatch(binaries, requestValue)
        case .addresses(let blocks):
            return IPAddressConditions.firstMatch(blocks, requestValue)
        case .arns(let patterns):
            return ARNConditions.firstMatch(patterns, requestValue, context: context)
        case .nulls:
            return nil
        }
    }

    /// Variables in the policy values that resolve to nothing in this context, as written.
    func unresolvedVariables(in context: RequestContext) -> [String] {
        var names: [String] = []
        switch self.values {
        case .strings(let patterns):
            for pattern in patterns {
                for variable in pattern.variables where context.resolve(variable) == nil { names.append(variable.written) }
            }
        case .arns(let patterns):
            for pattern in patterns {
                for variable in pattern.variables where context.resolve(variable) == nil { names.append(variable.written) }
            }
        default:
            break
        }
        return names
    }

    /// The policy values after variable substitution, for explanations.
    func renderedValues(in context: RequestContext) -> [String] {
        switch self.values {
        case .strings(let patterns):
            return zip(patterns, self.rawValues).map { pattern, raw in
                pattern.variables.isEmpty ? raw : pattern.rendered(in: context)
            }
        case .arns(let patterns):
            return patterns.map { $0.rendered(in: context) }
        default:
            return self.rawValues
        }
    }
}
