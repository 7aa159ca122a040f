/// A JSON value of a configuration file, with the byte range it came from so that an inline policy can be
/// handed to PolicyEngine exactly as written and every problem can name its line.
struct ConfigurationJSON: Sendable {
    enum Value: Sendable {
        case object([(key: String, value: ConfigurationJSON)])
        case array([ConfigurationJSON])
        case string(String)
        /// The number as written.
        case number(String)
        case bool(Bool)
        case null
    }

    var value: Value
    /// The byte range of the value in the source.
    var range: Range<Int>

    /// What kind of value this is, for messages (`an object`, `a string`, …).
    var typeName: String {
        switch self.value {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }

    /// A syntax error at a byte offset.
    struct SyntaxError: Error, Sendable {
        var offset: Int
        var message: String
    }

    /// Parses a JSON document.
    static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> ConfigurationJSON {
        var parser = Parser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else {
            throw SyntaxError(offset: parser.index, message: "unexpected text after the end of the document")
        }
        return value
    }

    /// The 1-based line and column (in bytes) of an offset.
    static func location(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        for index in 0..<min(offset, bytes.count) where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        return (line, offset - lineStart + 1)
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        static let maximumDepth = 64

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        mutating func skipWhitespace() {
            while self.index < self.bytes.count {
                switch self.bytes[self.index] {
                case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): self.index += 1
                default: return
                }
            }
        }

        private func fail(_ message: String, at offset: Int? = nil) -> SyntaxError {
            SyntaxError(offset: offset ?? self.index, message: message)
        }

        private var found: String {
            guard self.index < self.bytes.count else { return "the end of the file" }
            let byte = self.bytes[self.index]
            return byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte \(byte)"
        }

        mutating func parseValue(depth: Int) throws(SyntaxError) -> ConfigurationJSON {
            guard depth < Self.maximumDepth else { throw self.fail("values are nested more than \(Self.maximumDepth) deep") }
            guard self.index < self.bytes.count else { throw self.fail("expected a value, found the end of the file") }
            let start = self.index
            let value: Value
            switch self.bytes[self.index] {
            case UInt8(ascii: "{"): value = try self.parseObject(depth: depth)
            case UInt8(ascii: "["): value = try self.parseArray(depth: depth)
            case UInt8(ascii: "\""): value = .string(try self.parseString())
            case UInt8(ascii: "t"): try self.literal("true"); value = .bool(true)
            case UInt8(ascii: "f"): try self.literal("false"); value = .bool(false)
            case UInt8(ascii: "n"): try self.literal("null"); value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = .number(try self.parseNumber())
            default: throw self.fail("expected a value, found \(self.found)")
            }
            return ConfigurationJSON(value: value, range: start..<self.index)
        }

        private mutating func literal(_ word: String) throws(SyntaxError) {
            let start = self.index
            for byte in word.utf8 {
                guard self.index < self.bytes.count, self.bytes[self.index] == byte else {
                    throw self.fail("expected '\(word)'", at: start)
                }
                self.index += 1
            }
        }

        private mutating func parseObject(depth: Int) throws(SyntaxError) -> Value {
            self.index += 1
            var members: [(key: String, value: ConfigurationJSON)] = []
            self.skipWhitespace()
            if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "}") {
                self.index += 1
                return .object(members)
            }
            while true {
                self.skipWhitespace()
                guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "\"") else {
                    throw self.fail("expected a key in double quotes, found \(self.found)")
                }
                let keyOffset = self.index
                let key = try self.parseString()
                if members.contains(where: { $0.key == key }) {
                    throw self.fail("the key '\(key)' appears twice in the same object", at: keyOffset)
                }
                self.skipWhitespace()
                guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: ":") else {
                    throw self.fail("expected ':' after the key '\(key)', found \(self.found)")
                }
                self.index += 1
                self.skipWhitespace()
                members.append((key, try self.parseValue(depth: depth + 1)))
                self.skipWhitespace()
                guard self.index < self.bytes.count else { throw self.fail("expected ',' or '}', found the end of the file") }
                if self.bytes[self.index] == UInt8(ascii: ",") {
                    self.index += 1
                    continue
                }
                guard self.bytes[self.index] == UInt8(ascii: "}") else { throw self.fail("expected ',' or '}', found \(self.found)") }
                self.index += 1
                return .object(members)
            }
        }

        private mutating func parseArray(depth: Int) throws(SyntaxError) -> Value {
            self.index += 1
            var elements: [ConfigurationJSON] = []
            self.skipWhitespace()
            if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "]") {
                self.index += 1
                return .array(elements)
            }
            while true {
                self.skipWhitespace()
                elements.append(try self.parseValue(depth: depth + 1))
                self.skipWhitespace()
                guard self.index < self.bytes.count else { throw self.fail("expected ',' or ']', found the end of the file") }
                if self.bytes[self.index] == UInt8(ascii: ",") {
                    self.index += 1
                    continue
                }
                guard self.bytes[self.index] == UInt8(ascii: "]") else { throw self.fail("expected ',' or ']', found \(self.found)") }
                self.index += 1
                return .array(elements)
            }
        }

        private mutating func parseNumber() throws(SyntaxError) -> String {
            let start = self.index
            func digits(_ parser: inout Parser) -> Int {
                var count = 0
                while parser.index < parser.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(parser.bytes[parser.index]) {
                    parser.index += 1
                    count += 1
                }
                return count
            }
            if self.bytes[self.index] == UInt8(ascii: "-") { self.index += 1 }
            let integerStart = self.index
            let integerDigits = digits(&self)
            guard integerDigits > 0 else { throw self.fail("expected digits in a number", at: start) }
            if integerDigits > 1, self.bytes[integerStart] == UInt8(ascii: "0") {
                throw self.fail("numbers must not have leading zeros", at: start)
            }
            if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: ".") {
                self.index += 1
                guard digits(&self) > 0 else { throw self.fail("expected digits after the decimal point", at: start) }
            }
            if self.index < self.bytes.count, self.bytes[self.index] | 0x20 == UInt8(ascii: "e") {
                self.index += 1
                if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "+") || self.bytes[self.index] == UInt8(ascii: "-") {
                    self.index += 1
                }
                guard digits(&self) > 0 else { throw self.fail("expected digits in the exponent", at: start) }
            }
            return String(decoding: self.bytes[start..<self.index], as: UTF8.self)
        }

        private mutating func parseString() throws(SyntaxError) -> String {
            let start = self.index
            self.index += 1
            var scalars = String.UnicodeScalarView()
            var runStart = self.index
            func flush(_ parser: Parser, upTo end: Int, into scalars: inout String.UnicodeScalarView) {
                if end > runStart {
                    scalars.append(contentsOf: String(decoding: parser.bytes[runStart..<end], as: UTF8.self).unicodeScalars)
                }
            }
            while self.index < self.bytes.count {
                let byte = self.bytes[self.index]
                switch byte {
                case UInt8(ascii: "\""):
                    flush(self, upTo: self.index, into: &scalars)
                    self.index += 1
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    flush(self, upTo: self.index, into: &scalars)
                    scalars.append(try self.parseEscape())
                    runStart = self.index
                case 0..<0x20:
                    throw self.fail("control characters must be escaped in strings")
                default:
                    self.index += 1
                }
            }
            throw self.fail("the string is not closed", at: start)
        }

        private mutating func parseEscape() throws(SyntaxError) -> Unicode.Scalar {
            let start = self.index
            self.index += 1
            guard self.index < self.bytes.count else { throw self.fail("the string is not closed", at: start) }
            let byte = self.bytes[self.index]
            self.index += 1
            switch byte {
            case UInt8(ascii: "\""): return "\""
            case UInt8(ascii: "\\"): return "\\"
            case UInt8(ascii: "/"): return "/"
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                let high = try self.hex4(escapeAt: start)
                if (0xD800..<0xDC00).contains(high) {
                    guard self.index + 1 < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "\\"),
                        self.bytes[self.index + 1] == UInt8(ascii: "u")
                    else { throw self.fail("a high surrogate must be followed by a low surrogate", at: start) }
                    self.index += 2
                    let low = try self.hex4(escapeAt: start)
                    guard (0xDC00..<0xE000).contains(low),
                        let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                    else { throw self.fail("a high surrogate must be followed by a low surrogate", at: start) }
                    return scalar
                }
                guard let scalar = Unicode.Scalar(high) else { throw self.fail("a lone low surrogate is not a character", at: start) }
                return scalar
            default:
                throw self.fail("unknown escape '\\\(Character(Unicode.Scalar(byte)))'", at: start)
            }
        }

        private mutating func hex4(escapeAt start: Int) throws(SyntaxError) -> UInt32 {
            guard self.index + 4 <= self.bytes.count else { throw self.fail("expected four hexadecimal digits after \\u", at: start) }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = self.bytes[self.index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw self.fail("expected four hexadecimal digits after \\u", at: start)
                }
                value = value << 4 | UInt32(digit)
                self.index += 1
            }
            return value
        }
    }
}
