/// Percent-encoding as AWS and OAuth expect it, and reading `name=value&…` queries and forms.
///
/// Every byte of the UTF-8 outside RFC 3986's unreserved set `A–Z a–z 0–9 - . _ ~` becomes `%XX`
/// (upper-case hex); a space is `%20`, never `+`. SigV4, STS's query API, S3 keys and OAuth forms
/// all use this one encoding.
package enum PercentEncoding {
    /// Whether a byte is RFC 3986 unreserved: `A-Z a-z 0-9 - . _ ~`.
    @inlinable @inline(__always)
    package static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2D, 0x2E, 0x5F, 0x7E: return true
        default: return false
        }
    }

    /// The upper-case hex digit of a nibble.
    @inlinable @inline(__always)
    package static func upperHexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 &+ nibble : 0x37 &+ nibble
    }

    /// The value of a hex digit in either case, or `nil`.
    @inlinable @inline(__always)
    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte &- 0x30
        case 0x41...0x46: return byte &- 0x37
        case 0x61...0x66: return byte &- 0x57
        default: return nil
        }
    }

    /// Appends `%XX` for one byte.
    @inlinable @inline(__always)
    package static func appendEscape(_ byte: UInt8, to buffer: inout [UInt8]) {
        buffer.append(0x25)
        buffer.append(Self.upperHexDigit(byte >> 4))
        buffer.append(Self.upperHexDigit(byte & 0x0F))
    }

    /// Percent-encodes every byte that is not unreserved (and, with `keepingSlash`, not `/`). A `%`
    /// is encoded too.
    @inlinable
    package static func append(_ bytes: UnsafeBufferPointer<UInt8>, keepingSlash: Bool, to buffer: inout [UInt8]) {
        var runStart = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if Self.isUnreserved(byte) || (keepingSlash && byte == 0x2F) {
                index += 1
                continue
            }
            if runStart < index { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
            Self.appendEscape(byte, to: &buffer)
            index += 1
            runStart = index
        }
        if runStart < bytes.count { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count])) }
    }

    /// ``append(_:keepingSlash:to:)`` for a string's UTF-8.
    @inlinable
    package static func append(_ text: String, keepingSlash: Bool, to buffer: inout [UInt8]) {
        var text = text
        text.withUTF8 { Self.append($0, keepingSlash: keepingSlash, to: &buffer) }
    }

    /// Percent-encodes text: an S3 key in a path (`keepingSlashes: true`, so `a b/c+d` becomes
    /// `a%20b/c%2Bd`), or a query or form name or value.
    package static func encode(_ text: String, keepingSlashes: Bool = false) -> String {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(text.utf8.count + 8)
        Self.append(text, keepingSlash: keepingSlashes, to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Joins name–value pairs as `name=value&name=value`, each percent-encoded.
    package static func form(_ parameters: [(name: String, value: String)]) -> String {
        parameters.map { Self.encode($0.name) + "=" + Self.encode($0.value) }.joined(separator: "&")
    }

    // MARK: Reading

    /// The parameters of a query or form, decoded, in order. A parameter without `=` has an empty
    /// value; empty pairs are skipped.
    /// - Parameters:
    ///   - text: The encoded text, without `?`.
    ///   - plusIsSpace: Whether `+` stands for a space, as in form bodies and AWS query APIs.
    package static func parameters(_ text: some StringProtocol, plusIsSpace: Bool) -> [(name: String, value: String)] {
        var text = String(text)
        return text.withUTF8 { Self.parameters(bytes: $0, plusIsSpace: plusIsSpace) }
    }

    /// ``parameters(_:plusIsSpace:)`` over contiguous UTF-8: the work of every query and form read, in
    /// code that needs no generic specialisation from its callers.
    package static func parameters(bytes: UnsafeBufferPointer<UInt8>, plusIsSpace: Bool) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        Self.forEachPair(in: bytes) { name, value in
            pairs.append((
                Self.decode(bytes: name, plusIsSpace: plusIsSpace),
                value.map { Self.decode(bytes: $0, plusIsSpace: plusIsSpace) } ?? ""
            ))
            return true
        }
        return pairs
    }

    /// The decoded value of the first parameter with an exact (case-sensitive) name, without
    /// decoding the rest of the query.
    /// - Parameters:
    ///   - name: The parameter's name, which must need no decoding (`X-Amz-Signature`).
    ///   - text: The encoded query.
    /// - Returns: The value, or `nil` when the parameter is absent.
    package static func value(of name: String, in text: some StringProtocol) -> String? {
        let nameBytes = Array(name.utf8)
        var text = String(text)
        return text.withUTF8 { bytes -> String? in
            var found: String?
            Self.forEachPair(in: bytes) { candidate, value in
                guard candidate.elementsEqual(nameBytes) else { return true }
                found = value.map { Self.decode(bytes: $0, plusIsSpace: false) } ?? ""
                return false
            }
            return found
        }
    }

    /// Calls `body` with the encoded name and value (`nil` without `=`) of each non-empty `&`-separated
    /// pair, in order, until it returns `false`.
    private static func forEachPair(
        in bytes: UnsafeBufferPointer<UInt8>,
        _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>?) -> Bool
    ) {
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "&") { end += 1 }
            if end > start {
                var separator = start
                while separator < end, bytes[separator] != UInt8(ascii: "=") { separator += 1 }
                let name = UnsafeBufferPointer(rebasing: bytes[start..<separator])
                let value = separator < end ? UnsafeBufferPointer(rebasing: bytes[(separator + 1)..<end]) : nil
                guard body(name, value) else { return }
            }
            start = end + 1
        }
    }

    /// Percent-decodes UTF-8 bytes; an escape that is not `%` and two hex digits is kept as written,
    /// and bytes that are not UTF-8 become U+FFFD.
    package static func decode(_ bytes: some Collection<UInt8>, plusIsSpace: Bool) -> String {
        withContiguousBytes(bytes) { Self.decode(bytes: $0, plusIsSpace: plusIsSpace) }
    }

    /// ``decode(_:plusIsSpace:)`` over contiguous bytes.
    package static func decode(bytes input: UnsafeBufferPointer<UInt8>, plusIsSpace: Bool) -> String {
        var needsWork = false
        for byte in input where byte == UInt8(ascii: "%") || (plusIsSpace && byte == UInt8(ascii: "+")) {
            needsWork = true
            break
        }
        guard needsWork else { return String(decoding: input, as: UTF8.self) }
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "%"), index + 2 < input.count, let high = Self.hexValue(input[index + 1]),
                let low = Self.hexValue(input[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
                continue
            }
            output.append(plusIsSpace && byte == UInt8(ascii: "+") ? 0x20 : byte)
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// ``decode(_:plusIsSpace:)`` for text.
    package static func decode(_ text: some StringProtocol, plusIsSpace: Bool = false) -> String {
        var text = String(text)
        return text.withUTF8 { Self.decode(bytes: $0, plusIsSpace: plusIsSpace) }
    }
}
