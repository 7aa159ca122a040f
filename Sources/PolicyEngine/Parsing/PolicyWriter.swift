import WIFFoundation

/// Renders the policy model back to IAM JSON.
enum PolicyWriter {
    static func json(version: PolicyVersion?, id: String?, statements: [Statement], pretty: Bool) -> String {
        var writer = JSONWriter(pretty: pretty)
        writer.beginObject()
        if let version {
            writer.key("Version")
            writer.string(version.rawValue)
        }
        if let id {
            writer.key("Id")
            writer.string(id)
        }
        writer.key("Statement")
        writer.beginArray()
        for statement in statements {
            self.write(statement, into: &writer)
        }
        writer.endArray()
        writer.endObject()
        return writer.output
    }

    private static func write(_ statement: Statement, into writer: inout JSONWriter) {
        writer.beginObject()
        if let sid = statement.sid {
            writer.key("Sid")
            writer.string(sid)
        }
        writer.key("Effect")
        writer.string(statement.effect.rawValue)
        switch statement.principal {
        case .principal(let set):
            writer.key("Principal")
            self.write(set, into: &writer)
        case .notPrincipal(let set):
            writer.key("NotPrincipal")
            self.write(set, into: &writer)
        case nil:
            break
        }
        switch statement.action {
        case .action(let values):
            writer.key("Action")
            writer.stringOrArray(values)
        case .notAction(let values):
            writer.key("NotAction")
            writer.stringOrArray(values)
        }
        switch statement.resource {
        case .resource(let values):
            writer.key("Resource")
            writer.stringOrArray(values)
        case .notResource(let values):
            writer.key("NotResource")
            writer.stringOrArray(values)
        case nil:
            break
        }
        if !statement.conditions.isEmpty {
            writer.key("Condition")
            writer.beginObject()
            var seen: [String] = []
            for condition in statement.conditions where !seen.contains(condition.operator.name) {
                seen.append(condition.operator.name)
                writer.key(condition.operator.name)
                writer.beginObject()
                for sameOperator in statement.conditions where sameOperator.operator == condition.operator {
                    writer.key(sameOperator.key)
                    writer.stringOrArray(sameOperator.values)
                }
                writer.endObject()
            }
            writer.endObject()
        }
        writer.endObject()
    }

    private static func write(_ set: PrincipalSet, into writer: inout JSONWriter) {
        if set.isEveryone, set.aws.isEmpty, set.federated.isEmpty, set.service.isEmpty, set.canonicalUser.isEmpty {
            writer.string("*")
            return
        }
        writer.beginObject()
        for (key, values) in [("AWS", set.aws), ("Federated", set.federated), ("Service", set.service),
                              ("CanonicalUser", set.canonicalUser)] where !values.isEmpty {
            writer.key(key)
            writer.stringOrArray(values)
        }
        writer.endObject()
    }
}
