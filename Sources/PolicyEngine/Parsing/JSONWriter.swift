/// Writes JSON text without Foundation, for policies and explanations.
package struct JSONWriter {
    package private(set) var output = ""
    private let pretty: Bool
    private var depth = 0
    private var needsComma: [Bool] = []

    package init(pretty: Bool) {
        self.pretty = pretty
    }

    package mutating func beginObject() {
        self.valuePrefix()
        self.output += "{"
        self.depth += 1
        self.needsComma.append(false)
    }

    package mutating func endObject() {
        self.close("}")
    }

    package mutating func beginArray() {
        self.valuePrefix()
        self.output += "["
        self.depth += 1
        self.needsComma.append(false)
    }

    package mutating func endArray() {
        self.close("]")
    }

    package mutating func key(_ key: String) {
        self.elementPrefix()
        self.output += Self.quoted(key)
        self.output += self.pretty ? ": " : ":"
        self.pendingKey = true
    }

    package mutating func string(_ value: String) {
        self.valuePrefix()
        self.output += Self.quoted(value)
    }

    package mutating func bool(_ value: Bool) {
        self.valuePrefix()
        self.output += value ? "true" : "false"
    }

    package mutating func int(_ value: Int) {
        self.valuePrefix()
        self.output += String(value)
    }

    package mutating func null() {
        self.valuePrefix()
        self.output += "null"
    }

    package mutating func stringOrArray(_ values: [String]) {
        if values.count == 1 {
            self.string(values[0])
        } else {
            self.beginArray()
            for value in values { self.string(value) }
            self.endArray()
        }
    }

    private var pendingKey = false

    private mutating func valuePrefix() {
        if self.pendingKey {
            self.pendingKey = false
            return
        }
        if !self.needsComma.isEmpty { self.elementPrefix() }
    }

    private mutating func elementPrefix() {
        if self.needsComma.last == true { self.output += "," }
        if !self.needsComma.isEmpty { self.needsComma[self.needsComma.count - 1] = true }
        if self.pretty {
            self.output += "\n" + String(repeating: "  ", count: self.depth)
        }
    }

    private mutating func close(_ bracket: String) {
        self.depth -= 1
        let hadElements = self.needsComma.removeLast()
        if self.pretty, hadElements {
            self.output += "\n" + String(repeating: "  ", count: self.depth)
        }
        self.output += bracket
    }

    /// `text` as a JSON string literal, quotes included; shared with the command-line tool.
    package static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

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
