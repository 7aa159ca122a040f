/// Writes the XML documents of AWS requests and responses, and escapes text for XML and HTML.
package struct XMLWriter: Sendable {
    /// The document so far.
    package private(set) var document: String

    /// Starts a document, with the XML declaration unless `declaration` is `false`.
    package init(declaration: Bool = true) {
        self.document = declaration ? "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" : ""
    }

    /// Opens an element with attributes (values escaped).
    package mutating func open(_ name: String, attributes: [(String, String)] = []) {
        self.document += "<" + name
        for (key, value) in attributes { self.document += " \(key)=\"\(Self.escape(value))\"" }
        self.document += ">"
    }

    /// Closes an element.
    package mutating func close(_ name: String) {
        self.document += "</" + name + ">"
    }

    /// An element holding text (escaped).
    package mutating func element(_ name: String, _ value: String) {
        self.document += "<\(name)>\(Self.escape(value))</\(name)>"
    }

    /// Text escaped for XML or HTML element content and attribute values.
    ///
    /// The markup characters become entities; whitespace other than space and every control
    /// character become character references, so that XML's line-end and attribute normalisation
    /// cannot change the text (an S3 key may hold a carriage return).
    package static func escape(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.contains(where: Self.needsEscape) else { return String(decoding: bytes, as: UTF8.self) }
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count + 16)
            var runStart = 0
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                // 0xC2 0x80–0x9F is a C1 control; 0xC2 before anything else is an ordinary character.
                let isC1 = byte == 0xC2 && index + 1 < bytes.count && (0x80...0x9F).contains(bytes[index + 1])
                guard Self.needsEscape(byte), byte != 0xC2 || isC1 else {
                    index += 1
                    continue
                }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                let replacement: String
                switch byte {
                case UInt8(ascii: "&"): replacement = "&amp;"
                case UInt8(ascii: "<"): replacement = "&lt;"
                case UInt8(ascii: ">"): replacement = "&gt;"
                case UInt8(ascii: "\""): replacement = "&quot;"
                case UInt8(ascii: "'"): replacement = "&apos;"
                default:
                    let value = isC1 ? UInt32(bytes[index + 1]) : UInt32(byte)
                    replacement = "&#x" + String(value, radix: 16, uppercase: true) + ";"
                }
                output.append(contentsOf: replacement.utf8)
                index += isC1 ? 2 : 1
                runStart = index
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
            return String(decoding: output, as: UTF8.self)
        }
    }

    /// Whether a scalar is a C0 or C1 control character or DEL.
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value <= 0x9F)
    }

    @inline(__always)
    private static func needsEscape(_ byte: UInt8) -> Bool {
        // 0xC2 leads the UTF-8 form of every C1 control (U+0080–U+009F).
        byte < 0x20 || byte == 0x7F || byte == 0xC2 || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<")
            || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }
}
