import AccessRules
import WIFFoundation

/// Reading rules, callers, records and operations for the `rules` commands, from options and case files.
enum RulesInputs {
    /// The operation names accepted; `read` is decided as `get`.
    static let operationNames = ModelOperation.allCases.map(\.rawValue) + ["read"]
    static let authModeNames = AuthProvider.all.map(\.name)

    /// Reads a schema or rules file, refusing one with errors and naming the first with its position.
    static func ruleSet(file: String) throws(CommandFailure) -> RuleSet {
        let bytes = try PolicyInputs.read(file)
        let result = RuleSet.read(text: String(decoding: bytes, as: UTF8.self))
        if let first = result.diagnostics.first(where: { $0.severity == .error }) {
            throw CommandFailure(status: .usage, message: "invalid rules \(first.formatted(sourceName: file))")
        }
        return result.ruleSet
    }

    static func operation(_ name: String) -> ModelOperation? {
        name == "read" ? .get : ModelOperation(rawValue: name)
    }

    /// A JSON object of claims: a string, a list of strings, or any other value taken as its text.
    static func claims(_ node: JSONNode, path: String) throws(PolicyCaseFile.Problem) -> [String: ClaimValue] {
        guard case .object(let members) = node.kind else {
            throw PolicyCaseFile.Problem(path: path, message: "expected an object of claims, found \(node.typeName)")
        }
        var claims: [String: ClaimValue] = [:]
        for member in members {
            switch member.value.kind {
            case .string(let text): claims[member.key] = .string(text)
            case .number(let text): claims[member.key] = .string(text)
            case .bool(let value): claims[member.key] = .string(value ? "true" : "false")
            case .array(let elements):
                var values: [String] = []
                for element in elements {
                    guard let text = element.stringValue else {
                        throw PolicyCaseFile.Problem(path: "\(path).\(member.key)", message: "expected strings, found \(element.typeName)")
                    }
                    values.append(text)
                }
                claims[member.key] = .strings(values)
            case .object, .null:
                throw PolicyCaseFile.Problem(path: "\(path).\(member.key)", message: "expected a string or a list of strings, found \(member.value.typeName)")
            }
        }
        return claims
    }

    /// A JSON object of record fields: owner and group fields are strings or lists of strings.
    static func record(_ node: JSONNode, path: String) throws(PolicyCaseFile.Problem) -> Record {
        guard case .object(let members) = node.kind else {
            throw PolicyCaseFile.Problem(path: path, message: "expected an object of fields, found \(node.typeName)")
        }
        var record: Record = [:]
        for member in members {
            switch member.value.kind {
            case .string(let text): record[member.key] = .string(text)
            case .null: record[member.key] = .null
            case .number(let text): record[member.key] = .other(text)
            case .bool(let value): record[member.key] = .other(value ? "true" : "false")
            case .object: record[member.key] = .other("{…}")
            case .array(let elements):
                let strings = elements.compactMap(\.stringValue)
                record[member.key] = strings.count == elements.count ? .strings(strings) : .other("[…]")
            }
        }
        return record
    }

    /// A caller from its parts; `nil` (no credentials) when there is no auth mode.
    static func caller(
        authMode: String?, claims: [String: ClaimValue], role: String?, groups: [String], path: String
    ) throws(PolicyCaseFile.Problem) -> Caller? {
        guard let authMode else { return nil }
        guard let provider = AuthProvider(name: authMode) else {
            let hint = closestMatch(authMode, in: authModeNames).map { " (did you mean '\($0)'?)" } ?? ""
            throw PolicyCaseFile.Problem(path: path, message: "unknown auth mode '\(authMode)'\(hint); expected one of \(authModeNames.joined(separator: ", "))")
        }
        var callerRole: Caller.Role?
        if let role {
            guard let parsed = Caller.Role(rawValue: role) else {
                throw PolicyCaseFile.Problem(path: path, message: "role must be authenticated or unauthenticated, not '\(role)'")
            }
            guard provider == .iam else { throw PolicyCaseFile.Problem(path: path, message: "a role is for the iam auth mode only") }
            callerRole = parsed
        }
        var all = claims
        if !groups.isEmpty, all[AuthRule.defaultGroupClaim] == nil { all[AuthRule.defaultGroupClaim] = .strings(groups) }
        return Caller(authMode: provider, claims: all, role: callerRole)
    }

    /// The decision as one JSON object: decision, semantics, rule, reason and redacted fields.
    static func decisionObject(_ decision: RuleDecision, explain: Bool) -> PolicyJSONObject {
        var object = PolicyJSONObject()
        object.add("decision", decision.outcome.rawValue)
        object.add("semantics", decision.semantics.rawValue)
        if let rule = decision.rule { object.add("rule", rule.summary) } else { object.add("rule", json: "null") }
        if let field = decision.field { object.add("field", field) }
        if !decision.redactions.isEmpty {
            object.add("redacted", json: PolicyJSONObject.array(decision.redactions.map { PolicyJSONObject.quote($0.field) }))
        }
        if explain { object.add("explanation", decision.explanation) }
        return object
    }
}
