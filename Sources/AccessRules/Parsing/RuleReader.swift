import WIFFoundation

/// Reads the `rules` list of an `@auth` directive (or of a JSON rules file) into rules with Amplify's
/// defaults, reporting every problem with its position.
struct RuleReader {
    static let keys = ["allow", "provider", "ownerField", "identityClaim", "groupClaim", "groups", "groupsField", "operations"]

    /// Reads a list of rules.
    /// - Parameters:
    ///   - value: The `rules` value.
    ///   - path: The path of the value, for diagnostics.
    ///   - sink: Where problems go.
    /// - Returns: The rules that could be read; a rule with an error is left out.
    static func readRules(_ value: RawValue, path: String, sink: inout DiagnosticSink) -> [AuthRule] {
        guard case .list(let elements) = value.kind else {
            sink.error(path, "expected a list of rules, found \(value.typeName)", at: value.offset)
            return []
        }
        var rules: [AuthRule] = []
        for (index, element) in elements.enumerated() {
            if let rule = readRule(element, path: "\(path)[\(index)]", sink: &sink) { rules.append(rule) }
        }
        return rules
    }

    private static func readRule(_ value: RawValue, path: String, sink: inout DiagnosticSink) -> AuthRule? {
        guard case .object(let fields) = value.kind else {
            sink.error(path, "expected a rule object such as { allow: owner }, found \(value.typeName)", at: value.offset)
            return nil
        }
        var seen: [String] = []
        var valid = true
        for field in fields {
            if seen.contains(field.name) {
                sink.error("\(path).\(field.name)", "the rule names \(field.name) twice", at: field.offset)
                valid = false
            }
            seen.append(field.name)
            if !keys.contains(field.name) {
                let hint = closestMatch(field.name, in: keys).map { "did you mean \($0)?" }
                sink.error("\(path).\(field.name)", "unknown rule field \"\(field.name)\"", hint: hint, at: field.offset)
                valid = false
            }
        }
        func field(_ name: String) -> RawField? { fields.first { $0.name == name } }

        guard let allowField = field("allow") else {
            sink.error(path, "the rule has no allow field", hint: "allow is one of owner, groups, private, public, custom", at: value.offset)
            return nil
        }
        guard let allowName = word(allowField, path: path, sink: &sink) else { return nil }
        guard let allow = AuthStrategy(rawValue: allowName) else {
            let names = AuthStrategy.allCases.map(\.rawValue)
            let hint = closestMatch(allowName, in: names).map { "did you mean \($0)?" } ?? "allow is one of \(names.joined(separator: ", "))"
            sink.error("\(path).allow", "unknown allow \"\(allowName)\"", hint: hint, at: allowField.value.offset)
            return nil
        }
        var rule = AuthRule(allow: allow, location: sink.position(of: value.offset))

        if let providerField = field("provider"), let name = word(providerField, path: path, sink: &sink) {
            if let provider = AuthProvider(name: name) {
                if allow.supportedProviders.contains(provider) {
                    rule.provider = provider
                } else {
                    let names = allow.supportedProviders.map(\.name).joined(separator: ", ")
                    sink.error(
                        "\(path).provider", "provider \(name) cannot serve { allow: \(allow.rawValue) }: \(Self.whyUnsupported(allow, provider))",
                        hint: "use \(names)", at: providerField.value.offset)
                    valid = false
                }
            } else {
                let hint = closestMatch(name, in: AuthProvider.names).map { "did you mean \($0)?" }
                    ?? "provider is one of \(AuthProvider.names.joined(separator: ", "))"
                sink.error("\(path).provider", "unknown provider \"\(name)\"", hint: hint, at: providerField.value.offset)
                valid = false
            }
        }
        for (name, applies) in [("ownerField", allow == .owner), ("identityClaim", allow == .owner), ("groupClaim", allow == .groups)] {
            guard let raw = field(name), let text = word(raw, path: path, sink: &sink) else { continue }
            if text.isEmpty {
                sink.error("\(path).\(name)", "\(name) is empty", at: raw.value.offset)
                valid = false
                continue
            }
            if !applies {
                sink.warning("\(path).\(name)", "\(name) has no effect on a \(allow.rawValue) rule", at: raw.offset)
            }
            switch name {
            case "ownerField": rule.ownerField = text
            case "identityClaim": rule.identityClaim = text
            default: rule.groupClaim = text
            }
        }
        if let raw = field("groups") {
            if case .list(let elements) = raw.value.kind {
                for element in elements {
                    if let text = element.word, !text.isEmpty {
                        rule.groups.append(text)
                    } else {
                        sink.error("\(path).groups", "expected a group name, found \(element.typeName)", at: element.offset)
                        valid = false
                    }
                }
            } else {
                sink.error("\(path).groups", "expected a list of group names, found \(raw.value.typeName)", at: raw.value.offset)
                valid = false
            }
            if allow != .groups { sink.warning("\(path).groups", "groups has no effect on a \(allow.rawValue) rule", at: raw.offset) }
        }
        if let raw = field("groupsField"), let text = word(raw, path: path, sink: &sink) {
            rule.groupsField = text
            if allow != .groups { sink.warning("\(path).groupsField", "groupsField has no effect on a \(allow.rawValue) rule", at: raw.offset) }
        }
        if allow == .groups, rule.groups.isEmpty, rule.groupsField == nil {
            sink.error(
                path, "a groups rule needs groups (static) or groupsField (dynamic)",
                hint: "for example groups: [\"Admin\"]", at: value.offset)
            valid = false
        }
        if let raw = field("operations") {
            if case .list(let elements) = raw.value.kind {
                var operations: ModelOperations = []
                for element in elements {
                    guard let name = element.word else {
                        sink.error("\(path).operations", "expected an operation name, found \(element.typeName)", at: element.offset)
                        valid = false
                        continue
                    }
                    if let set = ModelOperations.named(name) {
                        operations.formUnion(set)
                    } else {
                        let hint = closestMatch(name, in: ModelOperations.names).map { "did you mean \($0)?" }
                            ?? "operations are \(ModelOperations.names.joined(separator: ", "))"
                        sink.error("\(path).operations", "unknown operation \"\(name)\"", hint: hint, at: element.offset)
                        valid = false
                    }
                }
                if elements.isEmpty {
                    sink.warning("\(path).operations", "an empty operations list allows nothing", at: raw.value.offset)
                }
                rule.operations = operations
            } else {
                sink.error("\(path).operations", "expected a list of operations, found \(raw.value.typeName)", at: raw.value.offset)
                valid = false
            }
        }
        return valid ? rule : nil
    }

    private static func word(_ field: RawField, path: String, sink: inout DiagnosticSink) -> String? {
        if let text = field.value.word { return text }
        sink.error("\(path).\(field.name)", "expected a name, found \(field.value.typeName)", at: field.value.offset)
        return nil
    }

    private static func whyUnsupported(_ allow: AuthStrategy, _ provider: AuthProvider) -> String {
        switch (allow, provider.base) {
        case (_, .apiKey): return "an API key carries no identity"
        case (.owner, .iam), (.groups, .iam): return "an identity pool role carries neither a user's name nor groups"
        case (.public, _): return "\(provider.name) callers are signed in; a public rule uses apiKey or iam"
        case (.custom, _): return "a custom rule is decided by a function"
        case (_, .function): return "a function authorizer decides only custom rules"
        default: return "Amplify does not support this pair"
        }
    }
}
