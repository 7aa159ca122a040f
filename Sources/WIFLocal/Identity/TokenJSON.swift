import Foundation

/// A JSON value of a token's header or claims.
///
/// Token JSON is small and read on every `AssumeRoleWithWebIdentity`, so it has its own strict reader
/// instead of `JSONDecoder`: it rejects duplicate member names (RFC 7519 §4 lets a reader refuse them,
/// and accepting the last of two `sub` claims is how some forgeries slip past other checks), nesting
/// deeper than ``maximumDepth``, and anything after the value.
enum TokenJSON: Sendable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([TokenJSON])
    case object([String: TokenJSON])

    /// The deepest nesting accepted.
    static let maximumDepth = 16

    /// Why some text is not acceptable JSON; says where, never quotes the text.
    struct SyntaxError: Error, Sendable, Equatable {
        var reason: String
    }

    /// Reads one JSON value that spans all of `bytes`, with surrounding white space.
    static func parse<Bytes: Collection>(_ bytes: Bytes) throws(SyntaxError) -> TokenJSON where Bytes.Element == UInt8 {
        var reader = Reader(bytes: Array(bytes))
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.index == reader.bytes.count else {
            throw SyntaxError(reason: "unexpected content after the value at offset \(reader.index)")
        }
        return value
    }

    /// The members of an object.
    var objectValue: [String: TokenJSON]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// A string's value.
    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// A number's value.
    var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func skipWhitespace() {
            while self.index < self.bytes.count {
                switch self.bytes[self.index] {
                case 0x20, 0x09, 0x0A, 0x0D: self.index += 1
                default: return
                }
            }
        }

        func failure(_ reason: String) -> SyntaxError {
            SyntaxError(reason: "\(reason) at offset \(self.index)")
        }

        mutating func value(depth: Int) throws(SyntaxError) -> TokenJSON {
            guard self.index < self.bytes.count else { throw self.failure("unexpected end") }
            switch self.bytes[self.index] {
            case UInt8(ascii: "{"): return try self.object(depth: depth + 1)
            case UInt8(ascii: "["): return try self.array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try self.string())
            case UInt8(ascii: "t"):
                try self.literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try self.literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try self.literal("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return .number(try self.number())
            default:
                throw self.failure("unexpected character")
            }
        }

        mutating func literal(_ word: StaticString) throws(SyntaxError) {
            let count = word.utf8CodeUnitCount
            guard self.index + count <= self.bytes.count else { throw self.failure("unexpected end") }
            let matches = word.withUTF8Buffer { expected in
                expected.elementsEqual(self.bytes[self.index..<self.index + count])
            }
            guard matches else { throw self.failure("unknown literal") }
            self.index += count
        }

        mutating func object(depth: Int) throws(SyntaxError) -> TokenJSON {
            guard depth <= TokenJSON.maximumDepth else { throw self.failure("nesting too deep") }
            self.index += 1
            var members: [String: TokenJSON] = [:]
            self.skipWhitespace()
            if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "}") {
                self.index += 1
                return .object(members)
            }
            while true {
                self.skipWhitespace()
                guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "\"") else {
                    throw self.failure("expected a member name")
                }
                let name = try self.string()
                self.skipWhitespace()
                guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: ":") else {
                    throw self.failure("expected ':'")
                }
                self.index += 1
                self.skipWhitespace()
                let value = try self.value(depth: depth)
                guard members.updateValue(value, forKey: name) == nil else {
                    throw self.failure("duplicate member '\(name.prefix(64))'")
                }
                self.skipWhitespace()
                guard self.index < self.bytes.count else { throw self.failure("unexpected end") }
                switch self.bytes[self.index] {
                case UInt8(ascii: ","): self.index += 1
                case UInt8(ascii: "}"):
                    self.index += 1
                    return .object(members)
                default: throw self.failure("expected ',' or '}'")
                }
            }
        }

        mutating func array(depth: Int) throws(SyntaxError) -> TokenJSON {
            guard depth <= TokenJSON.maximumDepth else { throw self.failure("nesting too deep") }
            self.index += 1
            var elements: [TokenJSON] = []
            self.skipWhitespace()
            if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "]") {
                self.index += 1
                return .array(elements)
            }
            while true {
                self.skipWhitespace()
                elements.append(try self.value(depth: depth))
                self.skipWhitespace()
                guard self.index < self.bytes.count else { throw self.failure("unexpected end") }
                switch self.bytes[self.index] {
                case UInt8(ascii: ","): self.index += 1
                case UInt8(ascii: "]"):
                    self.index += 1
                    return .array(elements)
                default: throw self.failure("expected ',' or ']'")
                }
            }
        }

        mutating func number() throws(SyntaxError) -> Double {
            let start = self.index
            func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
            if self.bytes[self.index] == UInt8(ascii: "-") { self.index += 1 }
            guard self.index < self.bytes.count, isDigit(self.bytes[self.index]) else { throw self.failure("bad number") }
            if self.bytes[self.index] == UInt8(ascii: "0") {
                self.index += 1
            } else {
                while self.index < self.bytes.count, isDigit(self.bytes[self.index]) { self.index += 1 }
            }
            if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: ".") {
                self.index += 1
                guard self.index < self.bytes.count, isDigit(self.bytes[self.index]) else { throw self.failure("bad number") }
                while self.index < self.bytes.count, isDigit(self.bytes[self.index]) { self.index += 1 }
            }
            if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "e") || self.bytes[self.index] == UInt8(ascii: "E") {
                self.index += 1
                if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "+") || self.bytes[self.index] == UInt8(ascii: "-") {
                    self.index += 1
                }
                guard self.index < self.bytes.count, isDigit(self.bytes[self.index]) else { throw self.failure("bad number") }
                while self.index < self.bytes.count, isDigit(self.bytes[self.index]) { self.index += 1 }
            }
            guard let value = Double(String(decoding: self.bytes[start..<self.index], as: UTF8.self)), value.isFinite else {
                throw self.failure("number out of range")
            }
            return value
        }

        mutating func string() throws(SyntaxError) -> String {
            self.index += 1
            let start = self.index
            // Fast path: no escapes.
            while self.index < self.bytes.count {
                let byte = self.bytes[self.index]
                if byte == UInt8(ascii: "\"") {
                    let text = String(validating: self.bytes[start..<self.index], as: UTF8.self)
                    guard let text else { throw self.failure("invalid UTF-8") }
                    self.index += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") { break }
                guard byte >= 0x20 else { throw self.failure("control character in a string") }
                self.index += 1
            }
            var scalars = [UInt8](self.bytes[start..<self.index])
            while self.index < self.bytes.count {
                let byte = self.bytes[self.index]
                switch byte {
                case UInt8(ascii: "\""):
                    self.index += 1
                    guard let text = String(validating: scalars, as: UTF8.self) else { throw self.failure("invalid UTF-8") }
                    return text
                case UInt8(ascii: "\\"):
                    self.index += 1
                    guard self.index < self.bytes.count else { throw self.failure("unexpected end") }
                    let escape = self.bytes[self.index]
                    self.index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                    case UInt8(ascii: "b"): scalars.append(0x08)
                    case UInt8(ascii: "f"): scalars.append(0x0C)
                    case UInt8(ascii: "n"): scalars.append(0x0A)
                    case UInt8(ascii: "r"): scalars.append(0x0D)
                    case UInt8(ascii: "t"): scalars.append(0x09)
                    case UInt8(ascii: "u"):
                        var code = try self.hex4()
                        if (0xD800...0xDBFF).contains(code) {
                            guard self.index + 1 < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "\\"),
                                self.bytes[self.index + 1] == UInt8(ascii: "u")
                            else { throw self.failure("unpaired surrogate") }
                            self.index += 2
                            let low = try self.hex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw self.failure("unpaired surrogate") }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(code) {
                            throw self.failure("unpaired surrogate")
                        }
                        guard let scalar = Unicode.Scalar(code) else { throw self.failure("bad escape") }
                        scalars.append(contentsOf: String(Character(scalar)).utf8)
                    default:
                        throw self.failure("bad escape")
                    }
                default:
                    guard byte >= 0x20 else { throw self.failure("control character in a string") }
                    scalars.append(byte)
                    self.index += 1
                }
            }
            throw self.failure("unterminated string")
        }

        mutating func hex4() throws(SyntaxError) -> UInt32 {
            guard self.index + 4 <= self.bytes.count else { throw self.failure("unexpected end") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = self.bytes[self.index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw self.failure("bad \\u escape")
                }
                value = value << 4 | digit
                self.index += 1
            }
            return value
        }
    }
}
