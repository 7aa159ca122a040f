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

    /// The bytes a name is made of: ASCII letters, digits, `_ - . :`, and every byte of a character
    /// beyond ASCII. One bit per ASCII byte, in two words, as a name is read byte by byte.
    package static func isNameByte(_ byte: UInt8) -> Bool {
        if byte >= 0x80 { return true }
        // 0x00–0x3F: `-` (0x2D), `.` (0x2E), `0`–`9` (0x30–0x39), `:` (0x3A).
        let low: UInt64 = 0x07FF_6000_0000_0000
        // 0x40–0x7F: `A`–`Z` (0x41–0x5A), `_` (0x5F), `a`–`z` (0x61–0x7A).
        let high: UInt64 = 0x07FF_FFFE_87FF_FFFE
        return (byte < 0x40 ? low : high) & (1 << UInt64(byte & 0x3F)) != 0
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
            let qualified = try self.nameRange()
            let scopeDepth = self.namespaces.count
            defer { self.namespaces.removeLast(self.namespaces.count - scopeDepth) }
            try self.attributes(of: qualified)
            let (prefix, local) = self.split(qualified)
            var element = XMLTreeElement(name: local, namespace: self.resolve(prefix), text: "", children: [])
            if self.consume(UInt8(ascii: "/")) {
                guard self.consume(UInt8(ascii: ">")) else {
                    throw self.failure("expected '>' after '/' in <\(self.string(qualified))")
                }
                return element
            }
            guard self.consume(UInt8(ascii: ">")) else {
                throw self.failure("expected '>' to end the start of <\(self.string(qualified))>")
            }
            var text = PendingText()
            while true {
                guard self.index < self.bytes.count else {
                    throw self.failure("the document ends inside <\(self.string(qualified))>: it is not closed")
                }
                let byte = self.bytes[self.index]
                if byte == UInt8(ascii: "<") {
                    if self.starts(with: "</") {
                        self.index += 2
                        let closing = try self.nameRange()
                        guard self.sameName(closing, qualified) else {
                            throw self.failure("</\(self.string(closing))> closes <\(self.string(qualified))>")
                        }
                        self.skipWhitespace()
                        guard self.consume(UInt8(ascii: ">")) else {
                            throw self.failure("expected '>' after </\(self.string(closing))")
                        }
                        break
                    } else if self.starts(with: "<!--") {
                        try self.skip(past: "-->")
                    } else if self.starts(with: "<![CDATA[") {
                        self.index += 9
                        let start = self.index
                        try self.skip(past: "]]>")
                        text.append(start..<(self.index - 3), of: self.bytes)
                    } else if self.starts(with: "<?") {
                        try self.skip(past: "?>")
                    } else if self.starts(with: "<!") {
                        throw self.failure("a declaration inside an element; document type declarations are refused")
                    } else {
                        element.children.append(try self.element(depth: depth + 1))
                    }
                } else if byte == UInt8(ascii: "&") {
                    text.copy(from: self.bytes)
                    try self.reference(into: &text.copied)
                } else {
                    // A run of plain text, taken whole up to the next markup or reference.
                    let start = self.index
                    repeat {
                        self.index += 1
                    } while self.index < self.bytes.count && self.bytes[self.index] != UInt8(ascii: "<")
                        && self.bytes[self.index] != UInt8(ascii: "&")
                    text.append(start..<self.index, of: self.bytes)
                }
            }
            guard let decoded = text.decoded(from: self.bytes) else {
                throw self.failure("the text of <\(self.string(qualified))> is not UTF-8")
            }
            element.text = decoded
            return element
        }

        /// An element's text as it is read. A single run of the document, the usual case, stays a place
        /// in it and is decoded from there; the bytes are copied only when a second piece joins it.
        struct PendingText {
            var run: Range<Int>?
            var copied: [UInt8] = []
            var isCopied = false

            mutating func append(_ range: Range<Int>, of bytes: [UInt8]) {
                if !self.isCopied && self.run == nil {
                    self.run = range
                } else {
                    self.copy(from: bytes)
                    self.copied.append(contentsOf: bytes[range])
                }
            }

            /// Moves the text into ``copied``, to append what the document does not hold as it is.
            mutating func copy(from bytes: [UInt8]) {
                guard !self.isCopied else { return }
                if let run = self.run { self.copied.append(contentsOf: bytes[run]) }
                self.run = nil
                self.isCopied = true
            }

            /// The text, or `nil` when it is not UTF-8.
            func decoded(from bytes: [UInt8]) -> String? {
                if self.isCopied { return self.copied.withUnsafeBufferPointer(Self.decoded) }
                guard let run = self.run else { return "" }
                return bytes[run].withUnsafeBufferPointer(Self.decoded)
            }

            /// ASCII, the text of nearly every element, needs no validation beyond a look at each byte;
            /// the standard library's validating initialiser costs several times that.
            static func decoded(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
                if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
                return String(validating: bytes, as: UTF8.self)
            }
        }

        /// Reads the attributes of a start tag, keeping namespace declarations in scope.
        mutating func attributes(of element: Range<Int>) throws(Failure) {
            while true {
                let hadSpace = self.skipWhitespace()
                guard self.index < self.bytes.count else { throw self.failure("the tag <\(self.string(element)) is not closed") }
                let byte = self.bytes[self.index]
                if byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") { return }
                guard hadSpace else { throw self.failure("expected whitespace before an attribute of <\(self.string(element))>") }
                let attribute = try self.name()
                self.skipWhitespace()
                guard self.consume(UInt8(ascii: "=")) else { throw self.failure("expected '=' after the attribute \(attribute)") }
                self.skipWhitespace()
                guard self.index < self.bytes.count else { throw self.failure("the tag <\(self.string(element)) is not closed") }
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
            self.string(try self.nameRange())
        }

        /// Reads a name and returns where it stands in the document.
        mutating func nameRange() throws(Failure) -> Range<Int> {
            let start = self.index
            while self.index < self.bytes.count, XMLReader.isNameByte(self.bytes[self.index]) {
                self.index += 1
            }
            guard self.index > start else { throw self.failure("expected a name: an element without a name") }
            return start..<self.index
        }

        func string(_ range: Range<Int>) -> String {
            String(decoding: self.bytes[range], as: UTF8.self)
        }

        /// Whether a closing tag's name is the opening tag's: the same bytes, or failing that the same
        /// string as Swift compares them.
        func sameName(_ closing: Range<Int>, _ opening: Range<Int>) -> Bool {
            self.bytes[closing].elementsEqual(self.bytes[opening]) || self.string(closing) == self.string(opening)
        }

        /// A qualified name's prefix ("" when it has none) and local part.
        func split(_ qualified: Range<Int>) -> (prefix: String, local: String) {
            guard let colon = self.bytes[qualified].lastIndex(of: UInt8(ascii: ":")) else {
                return ("", self.string(qualified))
            }
            return (self.string(qualified.lowerBound..<colon), self.string((colon + 1)..<qualified.upperBound))
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
