/// `Bool`: the request value, `true` or `false` in any case, equals the policy value.
enum BoolConditions {
    static func parse(_ text: String) -> Bool? {
        parse(Array(text.utf8))
    }

    static func parse(_ bytes: [UInt8]) -> Bool? {
        switch lowercasedASCII(String(decoding: bytes, as: UTF8.self)) {
        case Array("true".utf8): return true
        case Array("false".utf8): return false
        default: return nil
        }
    }

    static func firstMatch(_ bools: [Bool], _ requestValue: [UInt8]) -> Int? {
        guard requestValue.count == 4 || requestValue.count == 5, let actual = parse(requestValue) else { return nil }
        return bools.firstIndex(of: actual)
    }
}

/// `Null`: `"true"` holds when the key is absent, `"false"` when it is present.
enum NullCondition {
    static func parse(_ text: String) -> Bool? {
        BoolConditions.parse(text)
    }
}
