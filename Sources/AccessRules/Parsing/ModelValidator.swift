import WIFFoundation

/// Checks that need a model's fields: owner and group fields exist and hold names, and field rules do
/// not grant more than their type.
enum ModelValidator {
    /// Checks a model and reports through `sink`.
    /// - Parameters:
    ///   - model: The model, with fields and rules.
    ///   - path: The model's path (its name, or `models.Name` in JSON).
    ///   - sink: Where problems go.
    static func check(_ model: ModelRules, path: String, sink: inout DiagnosticSink) {
        for (index, rule) in model.rules.enumerated() {
            checkFields(of: rule, in: model, path: "\(path).@auth.rules[\(index)]", sink: &sink)
        }
        for field in model.fieldRules.keys.sorted() {
            guard let rules = model.fieldRules[field] else { continue }
            for (index, rule) in rules.enumerated() {
                let rulePath = "\(path).\(field).@auth.rules[\(index)]"
                checkFields(of: rule, in: model, path: rulePath, sink: &sink)
                checkNotWider(rule, field: field, in: model, path: rulePath, sink: &sink)
            }
        }
    }

    private static func checkFields(of rule: AuthRule, in model: ModelRules, path: String, sink: inout DiagnosticSink) {
        if rule.allow == .owner {
            checkNameField(rule.ownerField, role: "ownerField", isDefault: rule.ownerField == AuthRule.defaultOwnerField,
                           rule: rule, model: model, path: path, sink: &sink)
        }
        if rule.allow == .groups, let groupsField = rule.groupsField {
            checkNameField(groupsField, role: "groupsField", isDefault: false, rule: rule, model: model, path: path, sink: &sink)
        }
    }

    private static func checkNameField(
        _ name: String, role: String, isDefault: Bool, rule: AuthRule, model: ModelRules, path: String, sink: inout DiagnosticSink
    ) {
        let position = rule.location
        guard let type = model.fields[name] else {
            // Amplify adds a missing `owner` field itself; a named field that is missing is almost always a typo.
            let hint = closestMatch(name, in: Array(model.fields.keys)).map { "did you mean \($0)?" }
            if isDefault {
                sink.add(RuleDiagnostic(
                    severity: .warning, path: "\(path).\(role)",
                    message: "\(model.name) has no field \"\(name)\"; Amplify adds it as String, and clients cannot read or set it unless it is declared",
                    hint: hint, line: position?.line, column: position?.column))
            } else {
                sink.add(RuleDiagnostic(
                    severity: .error, path: "\(path).\(role)", message: "\(role) \"\(name)\" is not a field of \(model.name)",
                    hint: hint, line: position?.line, column: position?.column))
            }
            return
        }
        if !type.holdsNames {
            sink.add(RuleDiagnostic(
                severity: .error, path: "\(path).\(role)",
                message: "\(role) \"\(name)\" is \(type.isList ? "[\(type.name)]" : type.name); it must be String or [String]",
                line: position?.line, column: position?.column))
        }
    }

    /// A field rule reaching callers (a provider, or a broader strategy) that none of the type's rules
    /// reaches grants less than it seems: the type's rules still decide whether the record is reached.
    private static func checkNotWider(_ rule: AuthRule, field: String, in model: ModelRules, path: String, sink: inout DiagnosticSink) {
        guard !model.rules.isEmpty, rule.allow != .custom else { return }
        let covered = model.rules.contains { typeRule in
            typeRule.provider == rule.provider && typeRule.allow.breadth >= rule.allow.breadth
                && typeRule.operations.isSuperset(of: rule.operations)
        }
        guard !covered else { return }
        let position = rule.location
        sink.add(RuleDiagnostic(
            severity: .warning, path: path,
            message: "the rule on \(model.name).\(field) \(rule.summary) is wider than the rules of \(model.name); "
                + "callers it adds still need a rule of the type to reach the record",
            hint: "narrow the field rule or widen the type's rules", line: position?.line, column: position?.column))
    }
}
