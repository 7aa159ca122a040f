/// Reads the small XML documents of AWS's query and REST APIs (`AssumeRoleWithWebIdentityResponse`,
/// `ListBucketResult`, `Error`, `Delete`, `CompleteMultipartUpload`, …) into a tree of elements.
///
/// The reader is strict where strictness is cheap protection and lenient nowhere else: no document
/// type declarations (so no entity expansion, and an HTML page is recognised at once), only the five
/// predefined entities and character references, quoted attribute values, UTF-8 text, a bounded
/// depth and element count. Comments and processing instructions are skipped, CDATA is text, and
/// namespace prefixes are resolved to their URIs and dropped from names.
package enum XMLReader {
    /// Bounds that keep a hostile document from costing much.
    package struct Limits: Sendable, Hashable {
        /// The deepest nesting accepted.
        package var maximumDepth: Int
        /// The most elements in one document.
        package var maximumElements: Int
        /// Whether `&#0;` is read as U+0000. XML 1.0 has no such character, but S3-compatible servers
        /// write it for keys that hold one, so a client reads it; a server refuses it.
        package var acceptsNullCharacterReference: Bool

        package init(maximumDepth: Int = 64, maximumElements: Int = 50_000, acceptsNullCharacterReference: Bool = true) {
            self.maximumDepth = maximumDepth
            self.maximumElements = maximumElements
            self.acceptsNullCharacterReference = acceptsNullCharacterReference
        }
    }

    /// Why a document could not be read, and where.
    package struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// What was wrong, in words.
        package var reason: String
        /// The byte offset at which it was found.
        package var offset: Int

        package init(reason: String, offset: Int) {
            self.reason = reason
            self.offset = offset
        }

        package var description: String { "\(self.reason) at byte \(self.offset)" }
    }

    /// Parses a whole document.
    /// - Parameters:
    ///   - bytes: The document, UTF-8 with an optional byte order mark.
    ///   - limits: The bounds to enforce.
    /// - Returns: The root element.
    /// - Throws: ``Failure`` naming the first problem and its byte offset.
    package static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(Failure) -> XMLTreeElement {
        var parser = Parser(bytes: bytes, limits: limits)
        return try parser.document()
    }

    /// The 1-based line and column (in characters) of a byte offset in `bytes`.
    package static func location(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        JSONParser.location(of: offset, in: bytes)
    }

    private struct Parser {
        let bytes: [UInt8]
        let limits: Limits
        var index = 0
        var elementCount = 0
        /// In-scope namespace declarations, innermost last: (prefix or "" for the default, URI).
        var namespaces: [(prefix: String, uri: String)] = []

        init(bytes: [UInt8], limits: Limits) {
            self.bytes = bytes
            self.limits = limits
        }

        func failure(_ reason: String, at offset: Int? = nil) -> Failure {
            Failure(reason: reason, offset: offset ?? self.index)
        }

        mutating func document() throws(Failure) -> XMLTreeElement {
            if self.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { self.index = 3 }
            try self.skipMisc()
            guard self.index < self.bytes.count else {
                throw self.failure("the document is empty: it has no element")
            }
            guard self.bytes[self.index] == UInt8(ascii: "<") else {
                throw self.failure("expected an element, found text outside the root element")
            }
            let root = try self.element(depth: 1)
            try self.skipMisc()
            guard self.index == self.bytes.count else {
                throw self.failure("content after the root element (more than one root element, or text)")
            }
            return root
        }

        /// Skips whitespace, comments and processing instructions (the XML declaration among them).
        mutating func skipMisc() throws(Failure) {
            while true {
                self.skipWhitespace()
                if self.starts(with: "<?") {
                    try self.skip(past: "?>")
                } else if self.starts(with: "<!--") {
                    try self.skip(past: "-->")
                } else if self.starts(with: "<!") {
                    throw self.failure(
                        "a document type declaration, which is refused (an internal subset could declare entities; an HTML page starts with one)"
                    )
                } else {
                    return
                }
            }
        }

        mutating func element(depth: Int) throws(Failure) -> XMLTreeElement {
            guard depth <= self.limits.maximumDepth else {
                throw self.failure("elements nest deeper than \(self.limits.maximumDepth) levels")
            }
            self.elementCount += 1
            guard self.elementCount <= self.limits.maximumElements else {
                throw self.failure("more than \(self.limits.maximumElements) elements")
            }
            guard self.consume(UInt8(ascii: "<")) else { throw self.failure("expected an element") }
            let qualified = try self.name()
            let scopeDepth = self.namespaces.count
            defer { self.namespaces.removeLast(self.namespaces.count - scopeDepth) }
            try self.attributes(of: qualified)
            let (prefix, local) = Self.split(qualified)
            var element = XMLTreeElement(name: local, namespace: self.resolve(prefix), text: "", children: [])
            if self.consume(UInt8(ascii: "/")) {
                guard self.consume(UInt8(ascii: ">")) else { throw self.failure("expected '>' after '/' in <\(qualified)") }
                return element
            }
            guard self.consume(UInt8(ascii: ">")) else { throw self.failure("expected '>' to end the start of <\(qualified)>") }
            var text: [UInt8] = []
            while true {
                guard self.index < self.bytes.count else {
                    throw self.failure("the document ends inside <\(qualified)>: it is not closed")
                }
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
                        throw self.failure("a declaration inside an element; document type declarations are refused")
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

        /// Reads the attributes of a start tag, keeping namespace declarations in scope.
        mutating func attributes(of qualified: String) throws(Failure) {
            while true {
                let hadSpace = self.skipWhitespace()
                guard self.index < self.bytes.count else { throw self.failure("the tag <\(qualified) is not closed") }
                let byte = self.bytes[self.index]
                if byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") { return }
                guard hadSpace else { throw self.failure("expected whitespace before an attribute of <\(qualified)>") }
                let attribute = try self.name()
                self.skipWhitespace()
                guard self.consume(UInt8(ascii: "=")) else { throw self.failure("expected '=' after the attribute \(attribute)") }
                self.skipWhitespace()
                guard self.index < self.bytes.count else { throw self.failure("the tag <\(qualified) is not closed") }
                let quote = self.bytes[self.index]
                guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                    throw self.failure("attribute values must be quoted (\(attribute) is not)")
                }
                self.index += 1
                var value: [UInt8] = []
                while self.index < self.bytes.count, self.bytes[self.index] != quote {
                    let byte = self.bytes[self.index]
                    guard byte != UInt8(ascii: "<") else {
                        throw self.failure("the value of the attribute \(attribute) is not closed ('<' inside it)")
                    }
                    if byte == UInt8(ascii: "&") {
                        try self.reference(into: &value)
                    } else {
                        value.append(byte)
                        self.index += 1
                    }
                }
                guard self.consume(quote) else { throw self.failure("the value of the attribute \(attribute) is not closed") }
                if attribute == "xmlns" {
                    self.namespaces.append((prefix: "", uri: String(decoding: value, as: UTF8.self)))
                } else if attribute.hasPrefix("xmlns:") {
                    self.namespaces.append((prefix: String(attribute.dropFirst(6)), uri: String(decoding: value, as: UTF8.self)))
                }
            }
        }

        func resolve(_ prefix: String) -> String? {
            guard let uri = self.namespaces.last(where: { $0.prefix == prefix })?.uri, !uri.isEmpty else { return nil }
            return uri
        }

        mutating func reference(into text: inout [UInt8]) throws(Failure) {
            let start = self.index
            while self.index < self.bytes.count, self.bytes[self.index] != UInt8(ascii: ";"), self.index - start < 12 {
                self.index += 1
            }
            guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: ";") else {
                throw self.failure("an unterminated entity reference", at: start)
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
                guard body.hasPrefix("#") else {
                    throw self.failure(
                        "the unknown entity &\(body); (XML predefines only &amp; &lt; &gt; &quot; &apos;)", at: start)
                }
                let digits = body.dropFirst()
                let value =
                    digits.hasPrefix("x") || digits.hasPrefix("X")
                    ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
                guard let value, value != 0 || self.limits.acceptsNullCharacterReference, let scalar = Unicode.Scalar(value) else {
                    throw self.failure(
                        "the character reference &\(body); is not a character (only characters and the entities XML predefines are allowed)",
                        at: start)
                }
                text.append(contentsOf: Array(String(Character(scalar)).utf8))
            }
        }

        mutating func name() throws(Failure) -> String {
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
            guard self.index > start else { throw self.failure("expected a name: an element without a name") }
            return String(decoding: self.bytes[start..<self.index], as: UTF8.self)
        }

        static func split(_ qualified: String) -> (prefix: String, local: String) {
            guard let colon = qualified.lastIndex(of: ":") else { return ("", qualified) }
            return (String(qualified[..<colon]), String(qualified[qualified.index(after: colon)...]))
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

        mutating func skip(past terminator: StaticString) throws(Failure) {
            let start = self.index
            while self.index < self.bytes.count {
                if self.starts(with: terminator) {
                    self.index += terminator.utf8CodeUnitCount
                    return
                }
                self.index += 1
            }
            throw self.failure("the document ends before '\(terminator)'", at: start)
        }
    }
}
