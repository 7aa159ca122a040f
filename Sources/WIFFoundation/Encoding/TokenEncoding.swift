

/// The encodings of tokens and keys: unpadded base64url (RFC 4648 §5), as JWS and JWK use, and
/// lower-case hexadecimal.
package enum TokenEncoding {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in Self.alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// Encodes bytes as unpadded base64url.
    package static func base64URL<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        withContiguousBytes(bytes) { Self.base64URL(bytes: $0) }
    }

    /// ``base64URL(_:)`` over contiguous bytes.
    package static func base64URL(bytes: UnsafeBufferPointer<UInt8>) -> String {
        var output = [UInt8]()
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            output.append(Self.alphabet[Int(first >> 2)])
            output.append(Self.alphabet[Int((first & 0x03) << 4 | (second ?? 0) >> 4)])
            if let second {
                output.append(Self.alphabet[Int((second & 0x0F) << 2 | (third ?? 0) >> 6)])
                if let third { output.append(Self.alphabet[Int(third & 0x3F)]) }
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes unpadded base64url.
    /// - Returns: The bytes, or `nil` for a character outside the alphabet (padding included), an impossible
    ///   length, or non-zero trailing bits, so that each byte string has exactly one encoding.
    package static func decodeBase64URL<Text: Collection>(_ text: Text) -> [UInt8]? where Text.Element == UInt8 {
        withContiguousBytes(text) { Self.decodeBase64URL(bytes: $0) }
    }

    /// ``decodeBase64URL(_:)`` over contiguous bytes.
    package static func decodeBase64URL(bytes text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let count = text.count
        guard count % 4 != 1 else { return nil }
        return Self.decodeTable.withUnsafeBufferPointer { table -> [UInt8]? in
            var output = [UInt8]()
            output.reserveCapacity(count * 3 / 4)
            var accumulator: UInt32 = 0
            var bits = 0
            for byte in text {
                let value = table[Int(byte)]
                guard value != 0xFF else { return nil }
                accumulator = accumulator << 6 | UInt32(value)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                    accumulator &= (1 << UInt32(bits)) - 1
                }
            }
            guard accumulator == 0 else { return nil }
            return output
        }
    }

    /// Encodes bytes as lower-case hexadecimal.
    package static func hex<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        withContiguousBytes(bytes) { Self.hex(bytes: $0) }
    }

    /// ``hex(_:)`` over contiguous bytes.
    package static func hex(bytes: UnsafeBufferPointer<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var output = [UInt8]()
        output.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes lower-case hexadecimal.
    /// - Returns: The bytes, or `nil` for an odd length or a character that is not a lower-case hex digit.
    package static func decodeHex<Text: Collection>(_ text: Text) -> [UInt8]? where Text.Element == UInt8 {
        guard text.count % 2 == 0 else { return nil }
        func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var output = [UInt8]()
        output.reserveCapacity(text.count / 2)
        var iterator = text.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            guard let high = nibble(high), let low = nibble(low) else { return nil }
            output.append(high << 4 | low)
        }
        return output
    }
}
