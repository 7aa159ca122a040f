/// A small strict JSON reader (RFC 8259) that keeps positions, so that a policy, a configuration
/// file or a case file can name the line, column and JSON path of what is wrong.
///
/// It rejects what a lenient reader would silently accept: trailing commas, comments, control characters in
/// strings, lone surrogates, invalid UTF-8, and nesting deeper than ``maximumDepth``.
package struct JSONParser {
    package struct SyntaxError: Error, Sendable {
        package var message: String
        package var offset: Int

        package init(message: String, offset: Int) {
            self.message = message
            self.offset = offset
        }
    }

    /// The deepest nesting of objects and arrays accepted by default.
    package static let maximumDepth = 64

    /// What a reader accepts beyond strict JSON's syntax.
    package struct Options: Sendable, Hashable {
        /// The deepest nesting of objects and arrays.
        package var maximumDepth: Int
        /// Refuse an object that names a key twice (a token's claims, a configuration file), instead
        /// of keeping both members for the caller to judge (a policy, whose linter names them).
        package var rejectsDuplicateKeys: Bool

        /// A token's header or claims (JWS, JWT): small, never deep, and no member named twice, since
        /// two `sub` or `aud` claims would leave the token's meaning to whichever reader reads it.
        package static let token = Options(maximumDepth: 16, rejectsDuplicateKeys: true)

        package init(maximumDepth: Int = JSONParser.maximumDepth, rejectsDuplicateKeys: Bool = false) {
            self.maximumDepth = maximumDepth
            self.rejectsDuplicateKeys = rejectsDuplicateKeys
        }
    }

    private let bytes: [UInt8]
    private let options: Options
    private var index = 0
    private var depth = 0

    init(bytes: [UInt8], options: Options) {
        self.bytes = bytes
        self.options = options
    }

    /// The 1-based line and column (in characters) of a byte offset, for messages about a document.
    package static func location(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var locator = SourceLocator(bytes: bytes)
        return locator.location(of: min(max(offset, 0), bytes.count)) ?? (1, 1)
    }

    /// A key as messages quote it: at most 64 Unicode scalars, with anything that would control a terminal
    /// escaped, since keys come from the text being read (a token's claims before its signature is checked).
    static func shown(_ key: String) -> String {
        let scalars = key.unicodeScalars
        let shortened = scalars.count > 64 ? String(String.UnicodeScalarView(scalars.prefix(64))) + "…" : key
        return PrintableText.escaping(shortened)
    }

    /// Parses a whole document: exactly one value, surrounded by optional whitespace.
    /// - Parameters:
    ///   - bytes: The document, UTF-8 with an optional byte order mark.
    ///   - options: Depth and duplicate-key rules.
    /// - Returns: The value, with the byte offsets of every value and key.
    /// - Throws: ``SyntaxError`` naming the first problem and its offset; it never quotes a value.
    package static func parse(_ bytes: [UInt8], options: Options = Options()) throws(SyntaxError) -> JSONNode {
        var parser = JSONParser(bytes: bytes, options: options)
        // Tolerate a UTF-8 byte order mark; editors on some systems add one.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { parser.index = 3 }
        parser.skipWhitespace()
        guard parser.index < bytes.count else {
            throw SyntaxError(message: "the document is empty", offset: parser.index)
        }
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.index < bytes.count {
            throw SyntaxError(message: "unexpected \(parser.describe(at: parser.index)) after the end of the document", offset: parser.index)
        }
        return value
    }

    private mutating func skipWhitespace() {
        while self.index < self.bytes.count {
            switch self.bytes[self.index] {
            case 0x20, 0x09, 0x0A, 0x0D: self.index += 1
            default: return
            }
        }
    }

    private func describe(at offset: Int) -> String {
        guard offset < self.bytes.count else { return "end of input" }
        let byte = self.bytes[offset]
        if byte >= 0x21 && byte < 0x7F { return "character '\(Character(Unicode.Scalar(byte)))'" }
        if byte < 0x20 { return "control character 0x\(String(byte, radix: 16))" }
        return "byte 0x\(String(byte, radix: 16))"
    }

    private mutating func parseValue() throws(SyntaxError) -> JSONNode {
        var node = try self.parseValueStartingHere()
        node.endOffset = self.index
        return node
    }

    private mutating func parseValueStartingHere() throws(SyntaxError) -> JSONNode {
        guard self.index < self.bytes.count else {
            throw SyntaxError(message: "unexpected end of input, expected a value", offset: self.index)
        }
        let start = self.index
        switch self.bytes[self.index] {
        case UInt8(ascii: "{"):
            return try self.parseObject()
        case UInt8(ascii: "["):
            return try self.parseArray()
        case UInt8(ascii: "\""):
            return JSONNode(kind: .string(try self.parseString()), offset: start)
        case UInt8(ascii: "t"):
            try self.expectLiteral("true")
            return JSONNode(kind: .bool(true), offset: start)
        case UInt8(ascii: "f"):
            try self.expectLiteral("false")
            return JSONNode(kind: .bool(false), offset: start)
        case UInt8(ascii: "n"):
            try self.expectLiteral("null")
            return JSONNode(kind: .null, offset: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONNode(kind: .number(try self.parseNumber()), offset: start)
        default:
            throw SyntaxError(message: "unexpected \(self.describe(at: self.index)), expected a value", offset: self.index)
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(SyntaxError) {
        let start = self.index
        let count = literal.utf8CodeUnitCount
        guard self.bytes.count - self.index >= count else {
            throw SyntaxError(message: "invalid literal, expected '\(literal)'", offset: start)
        }
        let pointer = literal.utf8Start
        for offset in 0..<count where self.bytes[self.index + offset] != pointer[offset] {
            throw SyntaxError(message: "invalid literal, expected '\(literal)'", offset: start)
        }
        self.index += count
    }

    private mutating func enter() throws(SyntaxError) {
        self.depth += 1
        if self.depth > self.options.maximumDepth {
            throw SyntaxError(message: "nesting deeper than \(self.options.maximumDepth) levels", offset: self.index)
        }
    }

    private mutating func parseObject() throws(SyntaxError) -> JSONNode {
        let start = self.index
        try self.enter()
        self.index += 1
        var members: [JSONMember] = []
        // The keys so far, kept only when duplicates are refused: a set, so a long object of
        // untrusted keys costs no more than its length.
        var seenKeys = Set<String>()
        self.skipWhitespace()
        if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "}") {
            self.index += 1
            self.depth -= 1
            return JSONNode(kind: .object(members), offset: start)
        }
        while true {
            self.skipWhitespace()
            guard self.index < self.bytes.count else {
                throw SyntaxError(message: "unexpected end of input inside an object", offset: self.index)
            }
            guard self.bytes[self.index] == UInt8(ascii: "\"") else {
                throw SyntaxError(message: "unexpected \(self.describe(at: self.index)), expected a quoted key", offset: self.index)
            }
            let keyOffset = self.index
            let key = try self.parseString()
            if self.options.rejectsDuplicateKeys, !seenKeys.insert(key).inserted {
                throw SyntaxError(message: "the key '\(Self.shown(key))' appears twice in the same object", offset: keyOffset)
            }
            self.skipWhitespace()
            guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: ":") else {
                throw SyntaxError(message: "expected ':' after key \"\(Self.shown(key))\"", offset: self.index)
            }
            self.index += 1
            self.skipWhitespace()
            let value = try self.parseValue()
            members.append(JSONMember(key: key, keyOffset: keyOffset, value: value))
            self.skipWhitespace()
            guard self.index < self.bytes.count else {
                throw SyntaxError(message: "unexpected end of input inside an object", offset: self.index)
            }
            switch self.bytes[self.index] {
            case UInt8(ascii: ","):
                self.index += 1
                self.skipWhitespace()
                if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "}") {
                    throw SyntaxError(message: "trailing comma before '}'", offset: self.index)
                }
            case UInt8(ascii: "}"):
                self.index += 1
                self.depth -= 1
                return JSONNode(kind: .object(members), offset: start)
            default:
                throw SyntaxError(message: "unexpected \(self.describe(at: self.index)), expected ',' or '}'", offset: self.index)
            }
        }
    }

    private mutating func parseArray() throws(SyntaxError) -> JSONNode {
        let start = self.index
        try self.enter()
        self.index += 1
        var elements: [JSONNode] = []
        self.skipWhitespace()
        if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "]") {
            self.index += 1
            self.depth -= 1
            return JSONNode(kind: .array(elements), offset: start)
        }
        while true {
            self.skipWhitespace()
            elements.append(try self.parseValue())
            self.skipWhitespace()
            guard self.index < self.bytes.count else {
                throw SyntaxError(message: "unexpected end of input inside an array", offset: self.index)
            }
            switch self.bytes[self.index] {
            case UInt8(ascii: ","):
                self.index += 1
                self.skipWhitespace()
                if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "]") {
                    throw SyntaxError(message: "trailing comma before ']'", offset: self.index)
                }
            case UInt8(ascii: "]"):
                self.index += 1
                self.depth -= 1
                return JSONNode(kind: .array(elements), offset: start)
            default:
                throw SyntaxError(message: "unexpected \(self.describe(at: self.index)), expected ',' or ']'", offset: self.index)
            }
        }
    }

    private mutating func parseNumber() throws(SyntaxError) -> String {
        let start = self.index
        if self.bytes[self.index] == UInt8(ascii: "-") { self.index += 1 }
        guard self.index < self.bytes.count, isDigit(self.bytes[self.index]) else {
            throw SyntaxError(message: "invalid number", offset: start)
        }
        if self.bytes[self.index] == UInt8(ascii: "0") {
            self.index += 1
            if self.index < self.bytes.count, isDigit(self.bytes[self.index]) {
                throw SyntaxError(message: "invalid number: leading zero", offset: start)
            }
        } else {
            while self.index < self.bytes.count, isDigit(self.bytes[self.index]) { self.index += 1 }
        }
        if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: ".") {
            self.index += 1
            guard self.index < self.bytes.count, isDigit(self.bytes[self.index]) else {
                throw SyntaxError(message: "invalid number: expected a digit after '.'", offset: start)
            }
            while self.index < self.bytes.count, isDigit(self.bytes[self.index]) { self.index += 1 }
        }
        if self.index < self.bytes.count, self.bytes[self.index] | 0x20 == UInt8(ascii: "e") {
            self.index += 1
            if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "+") || self.bytes[self.index] == UInt8(ascii: "-") {
                self.index += 1
            }
            guard self.index < self.bytes.count, isDigit(self.bytes[self.index]) else {
                throw SyntaxError(message: "invalid number: expected a digit in the exponent", offset: start)
            }
            while self.index < self.bytes.count, isDigit(self.bytes[self.index]) { self.index += 1 }
        }
        return String(decoding: self.bytes[start..<self.index], as: UTF8.self)
    }

    private mutating func parseString() throws(SyntaxError) -> String {
        let start = self.index
        self.index += 1
        let contentStart = self.index
        // Fast path: no escapes.
        while self.index < self.bytes.count {
            let byte = self.bytes[self.index]
            if byte == UInt8(ascii: "\"") {
                let slice = self.bytes[contentStart..<self.index]
                self.index += 1
                guard let text = String(validating: slice, as: UTF8.self) else {
                    throw SyntaxError(message: "string is not valid UTF-8", offset: start)
                }
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 {
                throw SyntaxError(message: "unescaped control character in string", offset: self.index)
            }
            self.index += 1
        }
        var buffer: [UInt8] = Array(self.bytes[contentStart..<self.index])
        while self.index < self.bytes.count {
            let byte = self.bytes[self.index]
            switch byte {
            case UInt8(ascii: "\""):
                self.index += 1
                guard let text = String(validating: buffer, as: UTF8.self) else {
                    throw SyntaxError(message: "string is not valid UTF-8", offset: start)
                }
                return text
            case UInt8(ascii: "\\"):
                self.index += 1
                guard self.index < self.bytes.count else { break }
                let escape = self.bytes[self.index]
                self.index += 1
                switch escape {
                case UInt8(ascii: "\""): buffer.append(0x22)
                case UInt8(ascii: "\\"): buffer.append(0x5C)
                case UInt8(ascii: "/"): buffer.append(0x2F)
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"):
                    let escapeOffset = self.index - 2
                    var scalarValue = try self.readHex4(escapeOffset: escapeOffset)
                    if (0xD800...0xDBFF).contains(scalarValue) {
                        guard self.index + 1 < self.bytes.count,
                              self.bytes[self.index] == UInt8(ascii: "\\"),
                              self.bytes[self.index + 1] == UInt8(ascii: "u")
                        else {
                            throw SyntaxError(message: "unpaired UTF-16 surrogate in \\u escape", offset: escapeOffset)
                        }
                        self.index += 2
                        let low = try self.readHex4(escapeOffset: escapeOffset)
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw SyntaxError(message: "unpaired UTF-16 surrogate in \\u escape", offset: escapeOffset)
                        }
                        scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalarValue) {
                        throw SyntaxError(message: "unpaired UTF-16 surrogate in \\u escape", offset: escapeOffset)
                    }
                    guard let scalar = Unicode.Scalar(scalarValue) else {
                        throw SyntaxError(message: "invalid \\u escape", offset: escapeOffset)
                    }
                    buffer.append(contentsOf: String(Character(scalar)).utf8)
                default:
                    throw SyntaxError(message: "invalid escape sequence in string", offset: self.index - 2)
                }
            default:
                if byte < 0x20 {
                    throw SyntaxError(message: "unescaped control character in string", offset: self.index)
                }
                buffer.append(byte)
                self.index += 1
            }
        }
        throw SyntaxError(message: "unterminated string", offset: start)
    }

    private mutating func readHex4(escapeOffset: Int) throws(SyntaxError) -> UInt32 {
        guard self.bytes.count - self.index >= 4 else {
            throw SyntaxError(message: "invalid \\u escape: expected four hex digits", offset: escapeOffset)
        }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = self.bytes[self.index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default:
                throw SyntaxError(message: "invalid \\u escape: expected four hex digits", offset: escapeOffset)
            }
            value = value << 4 | UInt32(digit)
            self.index += 1
        }
        return value
    }
}

@inline(__always)
private func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
}
