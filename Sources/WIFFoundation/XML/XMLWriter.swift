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
        guard text.utf8.contains(where: { Self.needsEscape($0) }) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default:
                if Self.isControl(scalar) {
                    result += "&#x" + String(scalar.value, radix: 16, uppercase: true) + ";"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
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
