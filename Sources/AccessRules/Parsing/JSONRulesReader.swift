import WIFFoundation

/// Reads the JSON form of the rules:
///
/// ```json
/// {"semantics": "v2",
///  "models": {"Todo": {"fields": {"id": "ID!", "owner": "String"},
///                      "rules": [{"allow": "owner"}],
///                      "fieldRules": {"content": [{"allow": "owner", "operations": ["read"]}]}}}}
/// ```
enum JSONRulesReader {
    static let topKeys = ["semantics", "models"]
    static let modelKeys = ["fields", "rules", "fieldRules"]

    static func read(_ bytes: [UInt8]) -> (RuleSet, [RuleDiagnostic]) {
        var sink = DiagnosticSink(bytes: bytes)
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes, options: JSONParser.Options(maximumDepth: 32))
        } catch {
            sink.error("", error.message, at: error.offset)
            return (RuleSet(models: []), sink.sorted)
        }
        guard case .object(let members) = root.kind else {
            sink.error("", "expected an object with models, found \(root.typeName)", at: root.offset)
            return (RuleSet(models: []), sink.sorted)
        }
        sink.unknownKeys(members, allowed: topKeys, path: "")
        var semantics = RuleSemantics.v2
        if let node = root.member("semantics") {
            if let name = node.stringValue, let value = RuleSemantics(rawValue: name) {
                semantics = value
            } else {
                sink.error("semantics", "semantics is \"v1\" or \"v2\"", at: node.offset)
            }
        }
        var models: [ModelRules] = []
        guard let modelsNode = root.member("models") else {
            sink.error("", "the rules file has no models", hint: "write {\"models\": {\"Todo\": {\"rules\": [...]}}}", at: root.offset)
            return (RuleSet(models: [], semantics: semantics), sink.sorted)
        }
        guard case .object(let modelMembers) = modelsNode.kind else {
            sink.error("models", "expected an object of models by name, found \(modelsNode.typeName)", at: modelsNode.offset)
            return (RuleSet(models: [], semantics: semantics), sink.sorted)
        }
        for member in modelMembers {
            let path = "models.\(member.key)"
            if models.contains(where: { $0.name == member.key }) {
                sink.error(path, "the model \(member.key) is named twice", at: member.keyOffset)
                continue
            }
            if let model = readModel(member.key, member.value, path: path, sink: &sink) { models.append(model) }
        }
        return (RuleSet(models: models, semantics: semantics), sink.sorted)
    }

    private static func readModel(_ name: String, _ node: JSONNode, path: String, sink: inout DiagnosticSink) -> ModelRules? {
        guard case .object(let members) = node.kind else {
            sink.error(path, "expected a model object, found \(node.typeName)", at: node.offset)
            return nil
        }
        sink.unknownKeys(members, allowed: modelKeys, path: path)
        var fields: [String: ModelRules.FieldType] = [:]
        if let fieldsNode = node.member("fields") {
            if case .object(let fieldMembers) = fieldsNode.kind {
                for field in fieldMembers {
                    if let text = field.value.stringValue, let type = parseType(text) {
                        fields[field.key] = type
                    } else {
                        sink.error("\(path).fields.\(field.key)", "expected a GraphQL type such as \"String\" or \"[String]\"", at: field.value.offset)
                    }
                }
            } else {
                sink.error("\(path).fields", "expected an object of field types, found \(fieldsNode.typeName)", at: fieldsNode.offset)
            }
        }
        var rules: [AuthRule] = []
        if let rulesNode = node.member("rules") {
            rules = RuleReader.readRules(raw(rulesNode), path: "\(path).rules", sink: &sink)
        }
        var fieldRules: [String: [AuthRule]] = [:]
        if let fieldRulesNode = node.member("fieldRules") {
            if case .object(let fieldMembers) = fieldRulesNode.kind {
                for field in fieldMembers {
                    fieldRules[field.key] = RuleReader.readRules(raw(field.value), path: "\(path).fieldRules.\(field.key)", sink: &sink)
                }
            } else {
                sink.error("\(path).fieldRules", "expected an object of rule lists by field, found \(fieldRulesNode.typeName)", at: fieldRulesNode.offset)
            }
        }
        let model = ModelRules(name: name, rules: rules, fieldRules: fieldRules, fields: fields, location: sink.position(of: node.offset))
        // Without declared fields there is nothing to check owner and group fields against.
        if !fields.isEmpty { ModelValidator.check(model, path: path, sink: &sink) }
        return model
    }

    /// `String`, `String!`, `[String]`, `[String!]!`.
    static func parseType(_ text: String) -> ModelRules.FieldType? {
        var body = Substring(text)
        if body.hasSuffix("!") { body = body.dropLast() }
        var isList = false
        if body.hasPrefix("["), body.hasSuffix("]") {
            isList = true
            body = body.dropFirst().dropLast()
            if body.hasSuffix("!") { body = body.dropLast() }
        }
        guard let first = body.first, first.isLetter || first == "_",
              body.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
        else { return nil }
        return ModelRules.FieldType(name: String(body), isList: isList)
    }

    private static func raw(_ node: JSONNode) -> RawValue {
        switch node.kind {
        case .string(let text): return RawValue(kind: .string(text), offset: node.offset)
        case .array(let elements): return RawValue(kind: .list(elements.map(raw)), offset: node.offset)
        case .object(let members):
            return RawValue(kind: .object(members.map { RawField(name: $0.key, offset: $0.keyOffset, value: raw($0.value)) }), offset: node.offset)
        case .null: return RawValue(kind: .null, offset: node.offset)
        case .bool: return RawValue(kind: .other("a boolean"), offset: node.offset)
        case .number: return RawValue(kind: .other("a number"), offset: node.offset)
        }
    }
}
