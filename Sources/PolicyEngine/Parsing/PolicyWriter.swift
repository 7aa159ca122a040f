import WIFFoundation

/// Renders the policy model back to IAM JSON.
///
/// Package access lets the engine set-up build documents from ``Statement`` values without writing JSON
/// by hand, in the shape each engine wants.
package enum PolicyWriter {
    /// How a list of one value is written.
    package enum Lists: Sendable, Hashable {
        /// One value as a string, more as an array, as IAM writes its own documents.
        case compact
        /// Always an array, for documents compared with files written that way (an engine reads a list
        /// of one the same either way).
        case arrays
    }

    /// A policy document as JSON text.
    /// - Parameters:
    ///   - version: The `Version` element, if any.
    ///   - id: The `Id` element, if any.
    ///   - statements: The statements, written in order.
    ///   - pretty: Whether to indent the output; compact JSON has no whitespace at all.
    ///   - lists: How a list of one value is written.
    /// - Returns: The document.
    package static func json(
        version: PolicyVersion?, id: String?, statements: [Statement], pretty: Bool, lists: Lists = .compact
    ) -> String {
        var writer = JSONWriter(pretty: pretty)
        self.write(version: version, id: id, statements: statements, lists: lists, into: &writer)
        return writer.output
    }

    /// Writes a policy document as one value into a larger JSON document.
    /// - Parameters:
    ///   - version: The `Version` element, if any.
    ///   - id: The `Id` element, if any.
    ///   - statements: The statements, written in order.
    ///   - lists: How a list of one value is written.
    ///   - writer: The writer, positioned where a value may go.
    package static func write(
        version: PolicyVersion?, id: String?, statements: [Statement], lists: Lists = .compact, into writer: inout JSONWriter
    ) {
        writer.beginObject()
        if let version {
            writer.member("Version", version.rawValue)
        }
        if let id {
            writer.member("Id", id)
        }
        writer.key("Statement")
        writer.beginArray()
        for statement in statements {
            self.write(statement, lists: lists, into: &writer)
        }
        writer.endArray()
        writer.endObject()
    }

    private static func write(_ statement: Statement, lists: Lists, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("Sid", ifPresent: statement.sid)
        writer.member("Effect", statement.effect.rawValue)
        switch statement.principal {
        case .principal(let set):
            writer.key("Principal")
            self.write(set, lists: lists, into: &writer)
        case .notPrincipal(let set):
            writer.key("NotPrincipal")
            self.write(set, lists: lists, into: &writer)
        case nil:
            break
        }
        switch statement.action {
        case .action(let values):
            writer.key("Action")
            self.write(values, lists: lists, into: &writer)
        case .notAction(let values):
            writer.key("NotAction")
            self.write(values, lists: lists, into: &writer)
        }
        switch statement.resource {
        case .resource(let values):
            writer.key("Resource")
            self.write(values, lists: lists, into: &writer)
        case .notResource(let values):
            writer.key("NotResource")
            self.write(values, lists: lists, into: &writer)
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
                    self.write(sameOperator.values, lists: lists, into: &writer)
                }
                writer.endObject()
            }
            writer.endObject()
        }
        writer.endObject()
    }

    private static func write(_ values: [String], lists: Lists, into writer: inout JSONWriter) {
        guard lists == .arrays else {
            writer.stringOrArray(values)
            return
        }
        writer.beginArray()
        for value in values { writer.string(value) }
        writer.endArray()
    }

    private static func write(_ set: PrincipalSet, lists: Lists, into writer: inout JSONWriter) {
        if set.isEveryone, set.aws.isEmpty, set.federated.isEmpty, set.service.isEmpty, set.canonicalUser.isEmpty {
            writer.string("*")
            return
        }
        writer.beginObject()
        for (key, values) in [("AWS", set.aws), ("Federated", set.federated), ("Service", set.service),
                              ("CanonicalUser", set.canonicalUser)] where !values.isEmpty {
            writer.key(key)
            self.write(values, lists: lists, into: &writer)
        }
        writer.endObject()
    }
}
