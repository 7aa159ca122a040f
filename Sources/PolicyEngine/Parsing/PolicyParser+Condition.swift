import WIFFoundation

extension PolicyParser {
    mutating func parseConditionBlock(_ node: JSONNode, path: String) -> ([Condition], [CompiledCondition]) {
        guard case .object(let members) = node.kind else {
            self.error(path, node.offset, "Condition must be an object mapping operators to {key: value} objects, not \(node.typeName)")
            return ([], [])
        }
        self.checkDuplicates(members, path: path)
        var conditions: [Condition] = []
        var compiled: [CompiledCondition] = []
        for member in members {
            let operatorPath = Self.member(path, member.key)
            self.offsets[operatorPath] = member.keyOffset
            let op: ConditionOperator
            switch ConditionOperator.parse(member.key) {
            case .success(let parsed):
                op = parsed
            case .failure(.unknown(let suggestion)):
                self.error(operatorPath, member.keyOffset, "unknown condition operator", hint: suggestion.map { "did you mean '\($0)'?" })
                continue
            case .failure(.unknownQualifier(let suggestion)):
                self.error(
                    operatorPath, member.keyOffset, "unknown set qualifier; use ForAnyValue: or ForAllValues:",
                    hint: suggestion.map { "did you mean '\($0)'?" })
                continue
            case .failure(.invalidCombination(let message)):
                self.error(operatorPath, member.keyOffset, message)
                continue
            }
            guard case .object(let keyMembers) = member.value.kind else {
                self.error(operatorPath, member.value.offset, "must be an object mapping condition keys to values, not \(member.value.typeName)")
                continue
            }
            guard !keyMembers.isEmpty else {
                self.error(operatorPath, member.value.offset, "must name at least one condition key")
                continue
            }
            self.checkDuplicates(keyMembers, path: operatorPath)
            for keyMember in keyMembers {
                let keyPath = Self.member(operatorPath, keyMember.key)
                self.offsets[keyPath] = keyMember.keyOffset
                if keyMember.key.isEmpty {
                    self.error(keyPath, keyMember.keyOffset, "a condition key must not be empty")
                    continue
                }
                guard let values = self.conditionValues(keyMember.value, path: keyPath) else { continue }
                if let compiledCondition = self.compileCondition(op, key: keyMember.key, values: values) {
                    conditions.append(Condition(op, key: keyMember.key, values: values.map(\.0)))
                    compiled.append(compiledCondition)
                }
            }
        }
        return (conditions, compiled)
    }

    /// A condition value: a string, number or boolean, or a non-empty array of them; all become strings.
    mutating func conditionValues(_ node: JSONNode, path: String) -> [(String, String, Int)]? {
        func scalar(_ node: JSONNode) -> String? {
            switch node.kind {
            case .string(let value): return value
            case .number(let value): return value
            case .bool(let value): return value ? "true" : "false"
            default: return nil
            }
        }
        if let value = scalar(node) { return [(value, path, node.offset)] }
        guard case .array(let elements) = node.kind else {
            self.error(path, node.offset, "a condition value must be a string, number, boolean or an array of them, not \(node.typeName)")
            return nil
        }
        guard !elements.isEmpty else {
            self.error(path, node.offset, "a condition needs at least one value")
            return nil
        }
        var values: [(String, String, Int)] = []
        var failed = false
        for (index, element) in elements.enumerated() {
            let elementPath = Self.element(path, index)
            if let value = scalar(element) {
                values.append((value, elementPath, element.offset))
            } else {
                self.error(elementPath, element.offset, "a condition value must be a string, number or boolean, not \(element.typeName)")
                failed = true
            }
        }
        return failed ? nil : values
    }

    mutating func compileCondition(_ op: ConditionOperator, key: String, values: [(String, String, Int)]) -> CompiledCondition? {
        let errorsBefore = self.errorCount
        let variables = self.variablesEnabled && op.acceptsPolicyVariables
        if !self.variablesEnabled, op.acceptsPolicyVariables, let (_, path, offset) = values.first(where: { $0.0.containsVariableMarker }) {
            self.warning(
                path, offset, "policy variables are substituted only under Version 2012-10-17; here '${' is literal text",
                hint: "add \"Version\": \"2012-10-17\"")
        }
        let compiledValues: CompiledCondition.Values
        switch op.family.base {
        case .string:
            var patterns: [Pattern] = []
            for (value, path, offset) in values {
                let (pattern, issues) = StringConditions.compile(op, value, variables: variables)
                for issue in issues { self.warning(path, offset, issue) }
                patterns.append(pattern)
            }
            compiledValues = .strings(patterns)
        case .numeric:
            compiledValues = .numbers(values.compactMap { value, path, offset in
                guard let number = NumericConditions.parse(value) else {
                    self.error(path, offset, "'\(value)' is not a number")
                    return nil
                }
                return number
            })
        case .date:
            compiledValues = .dates(values.compactMap { value, path, offset in
                guard let date = DateConditions.parse(value) else {
                    self.error(path, offset, "'\(value)' is not an ISO 8601 date or date-time, or epoch seconds")
                    return nil
                }
                return date
            })
        case .bool:
            compiledValues = .bools(values.compactMap { value, path, offset in
                guard let bool = BoolConditions.parse(value) else {
                    self.error(path, offset, "'\(value)' is not true or false")
                    return nil
                }
                return bool
            })
        case .binary:
            compiledValues = .binaries(values.compactMap { value, path, offset in
                guard let bytes = Base64.decode(value) else {
                    self.error(path, offset, "'\(value)' is not base64")
                    return nil
                }
                return bytes
            })
        case .ipAddress:
            compiledValues = .addresses(values.compactMap { value, path, offset in
                guard let block = CIDRBlock.parse(value) else {
                    self.error(path, offset, "'\(value)' is not an IPv4 or IPv6 address or CIDR range")
                    return nil
                }
                return block
            })
        case .arn:
            var patterns: [ARNPattern] = []
            for (value, path, offset) in values {
                let (pattern, issues) = ARNConditions.compile(value, variables: variables)
                for issue in issues { self.warning(path, offset, issue) }
                if pattern.segments.count != 6 {
                    self.warning(path, offset, "'\(value)' is not a six-part ARN (arn:partition:service:region:account:resource), so it matches nothing")
                }
                patterns.append(pattern)
            }
            compiledValues = .arns(patterns)
        case .null:
            compiledValues = .nulls(values.compactMap { value, path, offset in
                guard let bool = NullCondition.parse(value) else {
                    self.error(path, offset, "Null takes \"true\" (the key is absent) or \"false\" (it is present), not '\(value)'")
                    return nil
                }
                return bool
            })
        }
        guard self.errorCount == errorsBefore else { return nil }
        return CompiledCondition(op: op, key: key, rawValues: values.map(\.0), values: compiledValues)
    }
}
