import Foundation

/// RFC 2047 encoded-words (`=?UTF-8?B?…?=`), the form S3 uses to carry user metadata that is not
/// printable US-ASCII in HTTP headers: its values are decoded before they are stored and encoded when
/// they are sent back. Charsets UTF-8, ISO-8859-1 and US-ASCII, encodings B (base64) and Q.
package enum EncodedWords {
    /// The header value that carries `value`: the value itself when it is printable US-ASCII (and
    /// tabs), else one `=?UTF-8?B?…?=` word over its UTF-8 bytes.
    package static func encodeIfNeeded(_ value: String) -> String {
        if value.utf8.allSatisfy({ $0 == 0x09 || (0x20..<0x7F).contains($0) }) { return value }
        return "=?UTF-8?B?" + Data(value.utf8).base64EncodedString() + "?="
    }

    /// Decodes a value made only of encoded-words separated by whitespace (which RFC 2047 §6.2 drops
    /// between adjacent words).
    /// - Returns: The decoded text; `nil` when the value is not made of encoded-words, names a charset
    ///   other than UTF-8, ISO-8859-1 or US-ASCII, or does not decode.
    package static func decode(_ value: String) -> String? {
        let words = value.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard !words.isEmpty else { return nil }
        var decoded = ""
        for word in words {
            guard let text = Self.decodeWord(word) else { return nil }
            decoded += text
        }
        return decoded
    }

    /// Decodes one `=?charset?encoding?text?=` word.
    private static func decodeWord(_ word: Substring) -> String? {
        guard word.hasPrefix("=?"), word.hasSuffix("?="), word.count >= 8 else { return nil }
        let inner = word.dropFirst(2).dropLast(2)
        let fields = inner.split(separator: "?", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3, !fields[2].contains("?") else { return nil }
        let bytes: [UInt8]
        switch fields[1].lowercased() {
        case "b":
            guard let data = Data(base64Encoded: String(fields[2])) else { return nil }
            bytes = Array(data)
        case "q":
            guard let text = Self.decodeQ(fields[2]) else { return nil }
            bytes = text
        default:
            return nil
        }
        // RFC 2231 allows a language after '*' in the charset (`UTF-8*en`).
        let charset = fields[0].split(separator: "*", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        switch charset {
        case "utf-8", "utf8":
            return String(validating: bytes, as: UTF8.self)
        case "iso-8859-1", "latin1", "us-ascii":
            if charset == "us-ascii", bytes.contains(where: { $0 >= 0x80 }) { return nil }
            return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        default:
            return nil
        }
    }

    /// The Q encoding: `_` is a space, `=XX` a byte in hex, other printable ASCII itself.
    private static func decodeQ(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "_"):
                bytes.append(0x20)
            case UInt8(ascii: "="):
                guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue) else { return nil }
                bytes.append(high << 4 | low)
            case 0x21..<0x7F:
                bytes.append(byte)
            default:
                return nil
            }
        }
        return bytes
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
