/// Writes JSON text without Foundation, for policies and explanations.
///
/// The text is built as UTF-8 bytes in one buffer and becomes a `String` once, when ``output`` is read:
/// a session token's JSON is written on every `AssumeRoleWithWebIdentity`.
package struct JSONWriter {
    private var bytes: [UInt8] = []
    private let pretty: Bool
    private var depth = 0
    private var needsComma: [Bool] = []

    package init(pretty: Bool) {
        self.pretty = pretty
        self.bytes.reserveCapacity(512)
    }

    /// The text written so far.
    package var output: String {
        String(decoding: self.bytes, as: UTF8.self)
    }

    /// The text written so far, as UTF-8, for callers that want bytes.
    package var utf8: [UInt8] { self.bytes }

    package mutating func beginObject() {
        self.valuePrefix()
        self.bytes.append(UInt8(ascii: "{"))
        self.depth += 1
        self.needsComma.append(false)
    }

    package mutating func endObject() {
        self.close(UInt8(ascii: "}"))
    }

    package mutating func beginArray() {
        self.valuePrefix()
        self.bytes.append(UInt8(ascii: "["))
        self.depth += 1
        self.needsComma.append(false)
    }

    package mutating func endArray() {
        self.close(UInt8(ascii: "]"))
    }

    package mutating func key(_ key: String) {
        self.elementPrefix()
        Self.appendQuoted(key, to: &self.bytes)
        self.bytes.append(UInt8(ascii: ":"))
        if self.pretty { self.bytes.append(UInt8(ascii: " ")) }
        self.pendingKey = true
    }

    package mutating func string(_ value: String) {
        self.valuePrefix()
        Self.appendQuoted(value, to: &self.bytes)
    }

    package mutating func bool(_ value: Bool) {
        self.valuePrefix()
        self.bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
    }

    package mutating func int(_ value: Int) {
        self.valuePrefix()
        self.bytes.append(contentsOf: String(value).utf8)
    }

    /// A `"key": "value"` member.
    package mutating func member(_ key: String, _ value: String) {
        self.key(key)
        self.string(value)
    }

    /// A `"key": number` member.
    package mutating func member(_ key: String, _ value: Int) {
        self.key(key)
        self.int(value)
    }

    /// A `"key": true|false` member.
    package mutating func member(_ key: String, _ value: Bool) {
        self.key(key)
        self.bool(value)
    }

    /// A `"key": "value"` member, left out when the value is `nil`.
    package mutating func member(_ key: String, ifPresent value: String?) {
        guard let value else { return }
        self.member(key, value)
    }

    package mutating func null() {
        self.valuePrefix()
        self.bytes.append(contentsOf: "null".utf8)
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
        if self.needsComma.last == true { self.bytes.append(UInt8(ascii: ",")) }
        if !self.needsComma.isEmpty { self.needsComma[self.needsComma.count - 1] = true }
        if self.pretty { self.newline() }
    }

    private mutating func newline() {
        self.bytes.append(UInt8(ascii: "\n"))
        for _ in 0..<self.depth { self.bytes.append(contentsOf: [UInt8(ascii: " "), UInt8(ascii: " ")]) }
    }

    private mutating func close(_ bracket: UInt8) {
        self.depth -= 1
        let hadElements = self.needsComma.removeLast()
        if self.pretty, hadElements { self.newline() }
        self.bytes.append(bracket)
    }

    /// `text` as a JSON string literal, quotes included; shared with the command-line tool.
    package static func quoted(_ text: String) -> String {
        String(utf8Capacity: text.utf8.count + 2) { Self.appendQuoted(text, to: &$0) }
    }

    /// Appends `text` as a JSON string literal, quotes included.
    ///
    /// Runs of bytes that need no escape are copied whole: every byte that does is ASCII, so the
    /// UTF-8 of other characters passes through as it is.
    private static func appendQuoted(_ text: String, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
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
        }
    }
}
