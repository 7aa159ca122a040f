/// Writes the XML documents of AWS requests and responses, and escapes text for XML and HTML.
///
/// The document is built as UTF-8 bytes in one buffer and becomes a `String` when ``document`` is read.
package struct XMLWriter: Sendable {
    private var bytes: [UInt8] = []

    /// The document so far.
    package var document: String {
        String(decoding: self.bytes, as: UTF8.self)
    }

    /// Starts a document, with the XML declaration unless `declaration` is `false`.
    package init(declaration: Bool = true) {
        self.bytes.reserveCapacity(1024)
        if declaration { self.bytes.append(contentsOf: "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n".utf8) }
    }

    /// Opens an element with attributes (values escaped).
    package mutating func open(_ name: String, attributes: [(String, String)] = []) {
        self.bytes.append(UInt8(ascii: "<"))
        self.bytes.append(contentsOf: name.utf8)
        for (key, value) in attributes {
            self.bytes.append(UInt8(ascii: " "))
            self.bytes.append(contentsOf: key.utf8)
            self.bytes.append(contentsOf: "=\"".utf8)
            Self.appendEscaped(value, to: &self.bytes)
            self.bytes.append(UInt8(ascii: "\""))
        }
        self.bytes.append(UInt8(ascii: ">"))
    }

    /// Closes an element.
    package mutating func close(_ name: String) {
        self.bytes.append(contentsOf: "</".utf8)
        self.bytes.append(contentsOf: name.utf8)
        self.bytes.append(UInt8(ascii: ">"))
    }

    /// An element holding text (escaped).
    package mutating func element(_ name: String, _ value: String) {
        self.bytes.append(UInt8(ascii: "<"))
        self.bytes.append(contentsOf: name.utf8)
        self.bytes.append(UInt8(ascii: ">"))
        Self.appendEscaped(value, to: &self.bytes)
        self.close(name)
    }

    /// Text escaped for XML or HTML element content and attribute values.
    ///
    /// The markup characters become entities; whitespace other than space and every control
    /// character become character references, so that XML's line-end and attribute normalisation
    /// cannot change the text (an S3 key may hold a carriage return).
    package static func escape(_ text: String) -> String {
        var text = text
        let needed = text.withUTF8 { bytes in bytes.contains(where: Self.needsEscape) }
        guard needed else { return text }
        return String(utf8Capacity: text.utf8.count + 16) { Self.appendEscaped(text, to: &$0) }
    }

    /// Appends `text` escaped as ``escape(_:)`` escapes it; runs that need no escape are copied whole.
    private static func appendEscaped(_ text: String, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
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
                switch byte {
                case UInt8(ascii: "&"): output.append(contentsOf: "&amp;".utf8)
                case UInt8(ascii: "<"): output.append(contentsOf: "&lt;".utf8)
                case UInt8(ascii: ">"): output.append(contentsOf: "&gt;".utf8)
                case UInt8(ascii: "\""): output.append(contentsOf: "&quot;".utf8)
                case UInt8(ascii: "'"): output.append(contentsOf: "&apos;".utf8)
                default:
                    let value = isC1 ? UInt32(bytes[index + 1]) : UInt32(byte)
                    output.append(contentsOf: ("&#x" + String(value, radix: 16, uppercase: true) + ";").utf8)
                }
                index += isC1 ? 2 : 1
                runStart = index
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        }
    }

    /// Whether a scalar is a C0 or C1 control character or DEL.
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value <= 0x9F)
    }

    @inline(__always)
    private static func needsEscape(_ byte: UInt8) -> Bool {
        // Below 0x40, one bit per byte: every control character and `"`, `&`, `'`, `<`, `>`.
        let escapedBelow64: UInt64 = 0xFFFF_FFFF | (1 << 0x22) | (1 << 0x26) | (1 << 0x27) | (1 << 0x3C) | (1 << 0x3E)
        // 0xC2 leads the UTF-8 form of every C1 control (U+0080–U+009F).
        return byte < 0x40 ? (escapedBelow64 >> UInt64(byte)) & 1 == 1 : (byte == 0x7F || byte == 0xC2)
    }
}
