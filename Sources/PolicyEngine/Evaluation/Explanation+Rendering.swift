import WIFFoundation

extension Explanation {
    /// The explanation as indented text for terminals and test failure messages.
    public var text: String {
        var lines: [String] = []
        let label: String
        switch self.outcome {
        case .allow: label = "ALLOW"
        case .explicitDeny: label = "EXPLICIT DENY"
        case .implicitDeny: label = "IMPLICIT DENY"
        }
        lines.append("\(label): \(self.summary)")
        lines.append("request: \(self.action) on \(self.resource)")
        lines.append("principal: \(self.principal ?? "anonymous")")
        for policy in self.policies {
            lines.append("\(policy.kind.displayName) '\(policy.name)':")
            for statement in policy.statements {
                var header = "  Statement[\(statement.reference.index)]"
                if let sid = statement.reference.sid, !sid.isEmpty { header += " (Sid \(sid))" }
                header += " \(statement.effect.rawValue): " + (statement.applies ? "applies" : "does not apply")
                lines.append(header)
                lines.append("    action     \(Self.mark(statement.action.matched)) \(statement.action.detail)")
                lines.append("    resource   \(Self.mark(statement.resource.matched)) \(statement.resource.detail)")
                if let principal = statement.principal {
                    lines.append("    principal  \(Self.mark(principal.matched)) \(principal.detail)")
                }
                for condition in statement.conditions {
                    lines.append("    condition  \(Self.mark(condition.matched)) \(condition.operator) \(condition.key): \(condition.detail)")
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func mark(_ matched: Bool) -> String {
        matched ? "[yes]" : "[no] "
    }

    /// The explanation as JSON, with the same fields as the `Codable` form.
    /// - Parameter pretty: Whether to indent the output.
    /// - Returns: A JSON object.
    public func json(pretty: Bool = true) -> String {
        var writer = JSONWriter(pretty: pretty)
        writer.beginObject()
        writer.member("outcome", self.outcome.rawValue)
        writer.member("summary", self.summary)
        writer.member("action", self.action)
        writer.member("resource", self.resource)
        writer.key("principal")
        if let principal = self.principal { writer.string(principal) } else { writer.null() }
        writer.key("decidingStatements")
        writer.beginArray()
        for reference in self.decidingStatements { Self.write(reference, &writer) }
        writer.endArray()
        writer.key("policies")
        writer.beginArray()
        for policy in self.policies {
            writer.beginObject()
            writer.member("name", policy.name)
            writer.member("kind", policy.kind.description)
            writer.key("statements")
            writer.beginArray()
            for statement in policy.statements {
                writer.beginObject()
                writer.key("reference")
                Self.write(statement.reference, &writer)
                writer.member("effect", statement.effect.rawValue)
                writer.member("applies", statement.applies)
                writer.key("action")
                Self.write(statement.action, &writer)
                writer.key("resource")
                Self.write(statement.resource, &writer)
                if let principal = statement.principal {
                    writer.key("principal")
                    Self.write(principal, &writer)
                }
                writer.key("conditions")
                writer.beginArray()
                for condition in statement.conditions {
                    writer.beginObject()
                    writer.member("operator", condition.operator)
                    writer.member("key", condition.key)
                    writer.key("policyValues")
                    writer.beginArray()
                    for value in condition.policyValues { writer.string(value) }
                    writer.endArray()
                    writer.key("requestValues")
                    if let values = condition.requestValues {
                        writer.beginArray()
                        for value in values { writer.string(value) }
                        writer.endArray()
                    } else {
                        writer.null()
                    }
                    writer.member("matched", condition.matched)
                    writer.member("detail", condition.detail)
                    writer.endObject()
                }
                writer.endArray()
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.output
    }

    private static func write(_ reference: StatementReference, _ writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("policyName", reference.policyName)
        writer.member("policyKind", reference.policyKind.description)
        writer.member("index", reference.index)
        writer.member("sid", ifPresent: reference.sid)
        writer.endObject()
    }

    private static func write(_ element: ElementExplanation, _ writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("matched", element.matched)
        writer.member("detail", element.detail)
        writer.endObject()
    }
}
