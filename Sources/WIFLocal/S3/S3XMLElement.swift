/// An element of a small XML request body (`Delete`, `CompleteMultipartUpload`, `CreateBucketConfiguration`).
///
/// The parser is deliberately small and strict: no DTDs or entity declarations (so no entity expansion), only
/// the five predefined entities and character references, CDATA, comments and processing instructions
/// skipped, a bounded depth and element count. Namespace prefixes are dropped from names; attributes are
/// read and ignored.
struct S3XMLElement: Sendable, Hashable {
    /// The element's local name.
    var name: String
    /// The element's text, exactly as written once entities are replaced (not trimmed).
    var text: String
    /// The child elements in order.
    var children: [S3XMLElement]

    /// The first child with the given name.
    func child(_ name: String) -> S3XMLElement? {
        self.children.first { $0.name == name }
    }

    /// Every child with the given name.
    func children(named name: String) -> [S3XMLElement] {
        self.children.filter { $0.name == name }
    }

    /// Limits that keep a hostile body from costing much.
    struct Limits: Sendable {
        /// The deepest nesting.
        var maximumDepth = 8
        /// The most elements in the document.
        var maximumElements = 50_000
    }

    /// Parses a document and returns its root element.
    /// - Throws: `MalformedXML` naming what was wrong and where.
    static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(AWSErrorResponse) -> S3XMLElement {
        var parser = Parser(bytes: bytes, limits: limits)
        return try parser.document()
    }

    private struct Parser {
        let bytes: [UInt8]
        let limits: Limits
        var index = 0
        var elementCount = 0

        init(bytes: [UInt8], limits: Limits) {
            self.bytes = bytes
            self.limits = limits
        }

        func failure(_ reason: String) -> AWSErrorResponse {
            ObjectStoreError.malformedXML("\(reason) at byte \(self.index)")
        }

        mutating func document() throws(AWSErrorResponse) -> S3XMLElement {
            // A UTF-8 byte order mark is allowed.
            if self.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { self.index = 3 }
            try self.skipMisc()
            guard self.index < self.bytes.count else {
                throw ObjectStoreError.malformedXML("the document is empty")
            }
            let root = try self.element(depth: 1)
            try self.skipMisc()
            guard self.index == self.bytes.count else { throw self.failure("content after the root element") }
            return root
        }

        /// Skips whitespace, comments and processing instructions (including the XML declaration); refuses DTDs.
        mutating func skipMisc() throws(AWSErrorResponse) {
            while true {
                self.skipWhitespace()
                if self.starts(with: "<?") {
                    try self.skip(past: "?>")
                } else if self.starts(with: "<!--") {
                    try self.skip(past: "-->")
                } else if self.starts(with: "<!") {
                    throw self.failure("document type declarations are not allowed")
                } else {
                    return
                }
            }
        }

        mutating func element(depth: Int) throws(AWSErrorResponse) -> S3XMLElement {
            guard depth <= self.limits.maximumDepth else { throw self.failure("elements nest deeper than \(self.limits.maximumDepth)") }
            self.elementCount += 1
            guard self.elementCount <= self.limits.maximumElements else {
                throw self.failure("more than \(self.limits.maximumElements) elements")
            }
            guard self.consume(UInt8(ascii: "<")) else { throw self.failure("expected an element") }
            let qualified = try self.name()
            try self.attributes()
            var element = S3XMLElement(name: Self.localName(qualified), text: "", children: [])
            if self.consume(UInt8(ascii: "/")) {
                guard self.consume(UInt8(ascii: ">")) else { throw self.failure("expected '>' after '/'") }
                return element
            }
            guard self.consume(UInt8(ascii: ">")) else { throw self.failure("expected '>' to end the start of <\(qualified)>") }
            var text: [UInt8] = []
            while true {
                guard self.index < self.bytes.count else { throw self.failure("<\(qualified)> is not closed") }
                let byte = self.bytes[self.index]
                if byte == UInt8(ascii: "<") {
                    if self.starts(with: "</") {
                        self.index += 2
                        let closing = try self.name()
                        guard closing == qualified else {
                            throw self.failure("</\(closing)> closes <\(qualified)>")
                        }
                        self.skipWhitespace()
                        guard self.consume(UInt8(ascii: ">")) else { throw self.failure("expected '>' after </\(closing)") }
                        break
                    } else if self.starts(with: "<!--") {
                        try self.skip(past: "-->")
                    } else if self.starts(with: "<![CDATA[") {
                        self.index += 9
                        let start = self.index
                        try self.skip(past: "]]>")
                        text.append(contentsOf: self.bytes[start..<(self.index - 3)])
                    } else if self.starts(with: "<?") {
                        try self.skip(past: "?>")
                    } else if self.starts(with: "<!") {
                        throw self.failure("declarations are not allowed inside elements")
                    } else {
                        element.children.append(try self.element(depth: depth + 1))
                    }
                } else if byte == UInt8(ascii: "&") {
                    try self.reference(into: &text)
                } else {
                    text.append(byte)
                    self.index += 1
                }
            }
            guard let decoded = String(validating: text, as: UTF8.self) else {
                throw self.failure("the text of <\(qualified)> is not UTF-8")
            }
            element.text = decoded
            return element
        }

        mutating func attributes() throws(AWSErrorResponse) {
            while true {
                let hadSpace = self.skipWhitespace()
                guard self.index < self.bytes.count else { throw self.failure("the document ends inside a tag") }
                let byte = self.bytes[self.index]
                if byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") { return }
                guard hadSpace else { throw self.failure("expected whitespace before an attribute") }
                _ = try self.name()
                self.skipWhitespace()
                guard self.consume(UInt8(ascii: "=")) else { throw self.failure("expected '=' in an attribute") }
                self.skipWhitespace()
                guard self.index < self.bytes.count else { throw self.failure("the document ends inside a tag") }
                let quote = self.bytes[self.index]
                guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                    throw self.failure("attribute values must be quoted")
                }
                self.index += 1
                while self.index < self.bytes.count, self.bytes[self.index] != quote {
                    guard self.bytes[self.index] != UInt8(ascii: "<") else { throw self.failure("'<' in an attribute value") }
                    self.index += 1
                }
                guard self.consume(quote) else { throw self.failure("an attribute value is not closed") }
            }
        }

        mutating func reference(into text: inout [UInt8]) throws(AWSErrorResponse) {
            let start = self.index
            while self.index < self.bytes.count, self.bytes[self.index] != UInt8(ascii: ";"), self.index - start < 12 {
                self.index += 1
            }
            guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: ";") else {
                self.index = start
                throw self.failure("a malformed entity reference")
            }
            let body = String(decoding: self.bytes[(start + 1)..<self.index], as: UTF8.self)
            self.index += 1
            switch body {
            case "lt": text.append(UInt8(ascii: "<"))
            case "gt": text.append(UInt8(ascii: ">"))
            case "amp": text.append(UInt8(ascii: "&"))
            case "quot": text.append(UInt8(ascii: "\""))
            case "apos": text.append(UInt8(ascii: "'"))
            default:
                var scalarValue: UInt32?
                if body.hasPrefix("#x") {
                    scalarValue = UInt32(body.dropFirst(2), radix: 16)
                } else if body.hasPrefix("#") {
                    scalarValue = UInt32(body.dropFirst(), radix: 10)
                }
                guard let scalarValue, scalarValue != 0, let scalar = Unicode.Scalar(scalarValue) else {
                    self.index = start
                    throw self.failure("the entity '&\(body);' is not one XML predefines")
                }
                text.append(contentsOf: Array(String(Character(scalar)).utf8))
            }
        }

        mutating func name() throws(AWSErrorResponse) -> String {
            let start = self.index
            while self.index < self.bytes.count {
                let byte = self.bytes[self.index]
                let isNameByte =
                    byte >= 0x80 || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                    || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: ":")
                guard isNameByte else { break }
                self.index += 1
            }
            guard self.index > start else { throw self.failure("expected a name") }
            return String(decoding: self.bytes[start..<self.index], as: UTF8.self)
        }

        static func localName(_ qualified: String) -> String {
            guard let colon = qualified.lastIndex(of: ":") else { return qualified }
            return String(qualified[qualified.index(after: colon)...])
        }

        @discardableResult
        mutating func skipWhitespace() -> Bool {
            let start = self.index
            while self.index < self.bytes.count {
                switch self.bytes[self.index] {
                case 0x20, 0x09, 0x0A, 0x0D: self.index += 1
                default: return self.index > start
                }
            }
            return self.index > start
        }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard self.index < self.bytes.count, self.bytes[self.index] == byte else { return false }
            self.index += 1
            return true
        }

        func starts(with text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard self.index + count <= self.bytes.count else { return false }
            let pointer = text.utf8Start
            for offset in 0..<count where self.bytes[self.index + offset] != pointer[offset] {
                return false
            }
            return true
        }

        mutating func skip(past terminator: StaticString) throws(AWSErrorResponse) {
            while self.index < self.bytes.count {
                if self.starts(with: terminator) {
                    self.index += terminator.utf8CodeUnitCount
                    return
                }
                self.index += 1
            }
            throw self.failure("'\(terminator)' is missing")
        }
    }
}
