/// Reading `name=value&name=value` text: a URL's query or an `application/x-www-form-urlencoded` body.
enum QueryString {
    /// The parameters of a query or form, decoded, in order. A parameter without `=` has an empty value;
    /// empty pairs are skipped.
    /// - Parameters:
    ///   - text: The encoded text, without `?`.
    ///   - plusIsSpace: Whether `+` stands for a space, as in form bodies and AWS query APIs.
    /// - Returns: Name–value pairs.
    static func parse(_ text: some StringProtocol, plusIsSpace: Bool) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for part in text.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            if let separator = part.firstIndex(of: UInt8(ascii: "=")) {
                pairs.append((
                    decode(part[part.startIndex..<separator], plusIsSpace: plusIsSpace),
                    decode(part[part.index(after: separator)...], plusIsSpace: plusIsSpace)
                ))
            } else {
                pairs.append((decode(part, plusIsSpace: plusIsSpace), ""))
            }
        }
        return pairs
    }

    /// The decoded value of the first parameter with an exact (case-sensitive) name, without decoding the
    /// rest of the query.
    /// - Parameters:
    ///   - name: The parameter's name, which must need no decoding (`X-Amz-Signature`).
    ///   - text: The encoded query.
    /// - Returns: The value, or `nil` when the parameter is absent.
    static func value(of name: String, in text: some StringProtocol) -> String? {
        let nameBytes = Array(name.utf8)
        for part in text.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let separator = part.firstIndex(of: UInt8(ascii: "=")) ?? part.endIndex
            guard part[part.startIndex..<separator].elementsEqual(nameBytes) else { continue }
            if separator == part.endIndex { return "" }
            return decode(part[part.index(after: separator)...], plusIsSpace: false)
        }
        return nil
    }

    /// Percent-decodes UTF-8 bytes; an escape that is not `%` and two hex digits is kept as written, and
    /// bytes that are not UTF-8 become U+FFFD.
    static func decode(_ bytes: some Collection<UInt8>, plusIsSpace: Bool) -> String {
        var needsWork = false
        for byte in bytes where byte == UInt8(ascii: "%") || (plusIsSpace && byte == UInt8(ascii: "+")) {
            needsWork = true
            break
        }
        guard needsWork else { return String(decoding: bytes, as: UTF8.self) }
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "%"), index + 2 < input.count, let high = hexValue(input[index + 1]),
                let low = hexValue(input[index + 2])
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

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
