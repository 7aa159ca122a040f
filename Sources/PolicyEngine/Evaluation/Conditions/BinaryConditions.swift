/// `BinaryEquals`: the policy value is base64; the request value (also base64 in the context) must decode
/// to the same bytes.
enum BinaryConditions {
    static func firstMatch(_ binaries: [[UInt8]], _ requestValue: [UInt8]) -> Int? {
        guard let actual = Base64.decode(requestValue) else { return nil }
        return binaries.firstIndex(of: actual)
    }
}

/// Standard base64 (RFC 4648 §4); padding is optional, anything else outside the alphabet is rejected.
enum Base64 {
    static func decode(_ text: String) -> [UInt8]? {
        decode(Array(text.utf8))
    }

    static func decode(_ input: [UInt8]) -> [UInt8]? {
        var bytes = input[...]
        while bytes.last == UInt8(ascii: "=") { bytes = bytes.dropLast() }
        guard input.count - bytes.count <= 2, bytes.count % 4 != 1 else { return nil }
        if input.count != bytes.count, input.count % 4 != 0 { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            guard let value = sextet(byte) else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // Canonical encodings leave the unused low bits of the last character zero.
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return output
    }

    static func encode(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << UInt32(16 - 8 * $1.offset) }
            for position in 0..<4 {
                if position <= chunk.count {
                    output.append(alphabet[Int(value >> UInt32(18 - 6 * position) & 0x3F)])
                } else {
                    output.append(UInt8(ascii: "="))
                }
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }
}
