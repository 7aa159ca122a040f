/// One element of an S3 XML document: its local name, its text and its child elements.
///
/// S3 documents are small and regular (`ListBucketResult`, `Error`, `DeleteResult`, …), so a compact
/// parser reads them into this tree. It reads the predefined entities and character references,
/// CDATA sections, comments and processing instructions, and skips attributes and namespace
/// prefixes. It never expands other entities and refuses a DOCTYPE with an internal subset.
struct S3XMLElement: Sendable {
    /// The name without a namespace prefix.
    var name: String
    /// The text directly inside the element, entities decoded (not trimmed: keys may start with spaces).
    var text: String
    /// The child elements in document order.
    var children: [S3XMLElement]

    /// The first child with a name.
    func child(_ name: String) -> S3XMLElement? {
        self.children.first { $0.name == name }
    }

    /// Every child with a name.
    func children(_ name: String) -> [S3XMLElement] {
        self.children.filter { $0.name == name }
    }

    /// The text of the first child with a name.
    func text(_ name: String) -> String? {
        self.child(name)?.text
    }

    /// The first element with a name at any depth, this one included.
    func first(_ name: String) -> S3XMLElement? {
        if self.name == name { return self }
        for child in self.children {
            if let found = child.first(name) { return found }
        }
        return nil
    }

    /// Why a document could not be read.
    struct ParseFailure: Error, Sendable {
        var reason: String
    }

    /// The deepest nesting accepted; S3 documents are four levels deep.
    static let maximumDepth = 64

    /// Parses a document and returns its root element.
    static func parse(_ bytes: [UInt8]) throws(ParseFailure) -> S3XMLElement {
        var parser = S3XMLParser()
        let result: Result<S3XMLElement, ParseFailure> = bytes.withUnsafeBufferPointer { buffer in
            do throws(ParseFailure) {
                return .success(try parser.parse(buffer))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

/// The parser behind ``S3XMLElement/parse(_:)``.
private struct S3XMLParser {
    struct Frame {
        var name: String
        var text: [UInt8] = []
        var children: [S3XMLElement] = []
    }

    var stack: [Frame] = []
    var root: S3XMLElement?

    mutating func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(S3XMLElement.ParseFailure) -> S3XMLElement {
        var index = 0
        let count = bytes.count
        while index < count {
            if bytes[index] != UInt8(ascii: "<") {
                index = try self.readText(bytes, from: index)
                continue
            }
            if Self.matches(bytes, at: index, "<?") {
                index = try Self.skip(bytes, from: index + 2, past: "?>")
            } else if Self.matches(bytes, at: index, "<!--") {
                index = try Self.skip(bytes, from: index + 4, past: "-->")
            } else if Self.matches(bytes, at: index, "<![CDATA[") {
                let start = index + 9
                let end = try Self.skip(bytes, from: start, past: "]]>")
                guard !self.stack.isEmpty else { throw .init(reason: "CDATA outside the root element") }
                self.stack[self.stack.count - 1].text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<(end - 3)]))
                index = end
            } else if Self.matches(bytes, at: index, "<!") {
                index = try Self.skipDeclaration(bytes, from: index + 2)
            } else if Self.matches(bytes, at: index, "</") {
                index = try self.closeTag(bytes, from: index + 2)
            } else {
                index = try self.openTag(bytes, from: index + 1)
            }
        }
        guard self.stack.isEmpty else { throw .init(reason: "the document ends inside <\(self.stack[self.stack.count - 1].name)>") }
        guard let root else { throw .init(reason: "the document has no element") }
        return root
    }

    private mutating func readText(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws(S3XMLElement.ParseFailure) -> Int {
        var index = start
        while index < bytes.count, bytes[index] != UInt8(ascii: "<") { index += 1 }
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
        if self.stack.isEmpty {
            guard slice.allSatisfy({ Self.isWhitespace($0) }) else { throw .init(reason: "text outside the root element") }
            return index
        }
        try Self.appendDecoded(slice, to: &self.stack[self.stack.count - 1].text)
        return index
    }

    private mutating func openTag(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws(S3XMLElement.ParseFailure) -> Int {
        var index = start
        while index < bytes.count, !Self.isWhitespace(bytes[index]), bytes[index] != UInt8(ascii: ">"),
            bytes[index] != UInt8(ascii: "/")
        {
            index += 1
        }
        guard index > start else { throw .init(reason: "an element without a name") }
        let name = Self.localName(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        // Attributes are skipped; quoted values may contain '>' and '/'.
        var quote: UInt8?
        var selfClosing = false
        while index < bytes.count {
            let byte = bytes[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                selfClosing = index > start && bytes[index - 1] == UInt8(ascii: "/")
                break
            }
            index += 1
        }
        guard index < bytes.count else { throw .init(reason: "the tag <\(name) is not closed") }
        if self.root != nil { throw .init(reason: "more than one root element") }
        guard self.stack.count < S3XMLElement.maximumDepth else {
            throw .init(reason: "elements nest deeper than \(S3XMLElement.maximumDepth) levels")
        }
        self.stack.append(Frame(name: name))
        if selfClosing { self.pop() }
        return index + 1
    }

    private mutating func closeTag(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws(S3XMLElement.ParseFailure) -> Int {
        var index = start
        while index < bytes.count, bytes[index] != UInt8(ascii: ">") { index += 1 }
        guard index < bytes.count else { throw .init(reason: "a closing tag is not closed") }
        var end = index
        while end > start, Self.isWhitespace(bytes[end - 1]) { end -= 1 }
        let name = Self.localName(UnsafeBufferPointer(rebasing: bytes[start..<end]))
        guard let top = self.stack.last else { throw .init(reason: "</\(name)> closes nothing") }
        guard top.name == name else { throw .init(reason: "</\(name)> closes <\(top.name)>") }
        self.pop()
        return index + 1
    }

    private mutating func pop() {
        let frame = self.stack.removeLast()
        let element = S3XMLElement(name: frame.name, text: String(decoding: frame.text, as: UTF8.self), children: frame.children)
        if self.stack.isEmpty {
            self.root = element
        } else {
            self.stack[self.stack.count - 1].children.append(element)
        }
    }

    private static func localName(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if let colon = bytes.lastIndex(of: UInt8(ascii: ":")) {
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[(colon + 1)...]), as: UTF8.self)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendDecoded(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) throws(S3XMLElement.ParseFailure) {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "&") else {
                output.append(byte)
                index += 1
                continue
            }
            var end = index + 1
            while end < bytes.count, bytes[end] != UInt8(ascii: ";"), end - index < 12 { end += 1 }
            guard end < bytes.count, bytes[end] == UInt8(ascii: ";") else { throw .init(reason: "an unterminated entity reference") }
            let entity = String(decoding: UnsafeBufferPointer(rebasing: bytes[(index + 1)..<end]), as: UTF8.self)
            switch entity {
            case "lt": output.append(UInt8(ascii: "<"))
            case "gt": output.append(UInt8(ascii: ">"))
            case "amp": output.append(UInt8(ascii: "&"))
            case "quot": output.append(UInt8(ascii: "\""))
            case "apos": output.append(UInt8(ascii: "'"))
            default:
                guard entity.hasPrefix("#") else { throw .init(reason: "the unknown entity &\(entity);") }
                let digits = entity.dropFirst()
                let value: UInt32?
                if digits.hasPrefix("x") || digits.hasPrefix("X") {
                    value = UInt32(digits.dropFirst(), radix: 16)
                } else {
                    value = UInt32(digits, radix: 10)
                }
                guard let value, let scalar = Unicode.Scalar(value) else {
                    throw .init(reason: "the character reference &\(entity); is not a character")
                }
                output.append(contentsOf: String(Character(scalar)).utf8)
            }
            index = end + 1
        }
    }

    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, _ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let pointer = text.utf8Start
        for offset in 0..<count where bytes[index + offset] != pointer[offset] { return false }
        return true
    }

    /// The index just past the first occurrence of `terminator` at or after `start`.
    private static func skip(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, past terminator: StaticString) throws(S3XMLElement.ParseFailure) -> Int {
        var index = start
        while index < bytes.count {
            if Self.matches(bytes, at: index, terminator) { return index + terminator.utf8CodeUnitCount }
            index += 1
        }
        throw .init(reason: "the document ends before '\(terminator)'")
    }

    /// Skips `<!DOCTYPE …>` and similar; a bracketed internal subset (which can declare entities) is
    /// refused.
    private static func skipDeclaration(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws(S3XMLElement.ParseFailure) -> Int {
        var index = start
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "[") { throw .init(reason: "a DOCTYPE with an internal subset") }
            if bytes[index] == UInt8(ascii: ">") { return index + 1 }
            index += 1
        }
        throw .init(reason: "the document ends inside a declaration")
    }

    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}

/// Writes the few XML documents S3 requests carry.
enum S3XMLWriter {
    /// `text` escaped for element content: markup characters as entities, and whitespace and control
    /// characters other than space as character references so that XML's line-end normalisation
    /// cannot change a key.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default:
                if NameRules.isControl(scalar) {
                    result += "&#x" + String(scalar.value, radix: 16, uppercase: true) + ";"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
