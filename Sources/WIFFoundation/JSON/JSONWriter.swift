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

