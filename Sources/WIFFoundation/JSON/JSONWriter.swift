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
    ///
    /// Runs of bytes that need no escape are copied whole: every byte that does is ASCII, so the
    /// UTF-8 of other characters passes through as it is.
    package static func quoted(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes in
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count + 2)
            output.append(UInt8(ascii: "\""))
            var runStart = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                runStart = index + 1
                output.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
                case UInt8(ascii: "\n"): output.append(UInt8(ascii: "n"))
                case UInt8(ascii: "\r"): output.append(UInt8(ascii: "r"))
                case UInt8(ascii: "\t"): output.append(UInt8(ascii: "t"))
                default:
                    let digits = Array("0123456789abcdef".utf8)
                    output.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
            output.append(UInt8(ascii: "\""))
            return String(decoding: output, as: UTF8.self)
        }
    }
}

