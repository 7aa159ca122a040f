/// `NumericEquals`, `NumericNotEquals`, `NumericLessThan`, `NumericLessThanEquals`, `NumericGreaterThan`,
/// `NumericGreaterThanEquals`. A request value that is not a number matches no policy value.
enum NumericConditions {
    /// Parses a decimal number (`42`, `-1.5`, `2e3`); rejects `nan`, `inf`, hex and empty text.
    static func parse(_ text: String) -> Double? {
        parse(Array(text.utf8))
    }

    static func parse(_ bytes: [UInt8]) -> Double? {
        guard !bytes.isEmpty, bytes.count <= 64 else { return nil }
        // Fast path for plain integers, the common case (s3:max-keys).
        var index = 0
        var negative = false
        if bytes[0] == UInt8(ascii: "-") || bytes[0] == UInt8(ascii: "+") {
            negative = bytes[0] == UInt8(ascii: "-")
            index = 1
        }
        guard index < bytes.count else { return nil }
        if bytes.count - index <= 15, bytes[index...].allSatisfy({ digitValue($0) != nil }) {
            var value: Int64 = 0
            for byte in bytes[index...] { value = value * 10 + Int64(byte - UInt8(ascii: "0")) }
            return Double(negative ? -value : value)
        }
        // Validate the grammar before handing the text to the standard library.
        var digits = 0
        while index < bytes.count, digitValue(bytes[index]) != nil { index += 1; digits += 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < bytes.count, digitValue(bytes[index]) != nil { index += 1; digits += 1 }
        }
        guard digits > 0 else { return nil }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            var exponentDigits = 0
            while index < bytes.count, digitValue(bytes[index]) != nil { index += 1; exponentDigits += 1 }
            guard exponentDigits > 0 else { return nil }
        }
        guard index == bytes.count, let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite else {
            return nil
        }
        return value
    }

    static func firstMatch(_ base: ConditionOperator.Base, _ numbers: [Double], _ requestValue: [UInt8]) -> Int? {
        guard let actual = parse(requestValue) else { return nil }
        return numbers.firstIndex { compare(base, actual, $0) }
    }

    /// `actual` is the request value, `expected` the policy value.
    static func compare(_ base: ConditionOperator.Base, _ actual: Double, _ expected: Double) -> Bool {
        switch base {
        case .numericEquals, .numericNotEquals: return actual == expected
        case .numericLessThan: return actual < expected
        case .numericLessThanEquals: return actual <= expected
        case .numericGreaterThan: return actual > expected
        case .numericGreaterThanEquals: return actual >= expected
        default: return false
        }
    }
}
