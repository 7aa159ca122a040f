/// A JSON value as read from policy text, keeping key order, duplicate keys and the byte offset of every
/// value so diagnostics can name a line and column.
package struct JSONNode: Sendable {
    package enum Kind: Sendable {
        case object([JSONMember])
        case array([JSONNode])
        case string(String)
        /// The number exactly as written, so `1.50` stays `1.50` when used as a condition value.
        case number(String)
        case bool(Bool)
        case null
    }

    package var kind: Kind
    /// The byte offset of the value's first character in the source, or -1 for synthesized values.
    package var offset: Int
    /// The byte offset just past the value's last character, or -1 for synthesized values.
    package var endOffset: Int

    package init(kind: Kind, offset: Int, endOffset: Int = -1) {
        self.kind = kind
        self.offset = offset
        self.endOffset = endOffset
    }

    /// The bytes the value was read from, so that an embedded document (an inline policy) can be
    /// handed on exactly as written; empty for synthesized values.
    package var range: Range<Int> {
        self.offset >= 0 && self.endOffset >= self.offset ? self.offset..<self.endOffset : 0..<0
    }

    package var typeName: String {
        switch self.kind {
        case .object: return TypeName.object
        case .array: return TypeName.array
        case .string: return TypeName.string
        case .number: return TypeName.number
        case .bool: return TypeName.bool
        case .null: return TypeName.null
        }
    }

    /// How messages name each kind of value (`expected a string, found an object`).
    package enum TypeName {
        package static let object = "an object"
        package static let array = "an array"
        package static let string = "a string"
        package static let number = "a number"
        package static let bool = "a boolean"
        package static let null = "null"
    }

    package var stringValue: String? {
        if case .string(let value) = self.kind { return value }
        return nil
    }

    /// The elements of an array; `nil` for another kind of value.
    package var arrayValue: [JSONNode]? {
        if case .array(let elements) = self.kind { return elements }
        return nil
    }

    /// The number as a `Double`, `nil` for another kind of value or one too large for a `Double`.
    package var doubleValue: Double? {
        guard case .number(let text) = self.kind, let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// The number as a whole number of 64 bits, written without a fraction or exponent; `nil` for
    /// another kind of value or a number that is not such.
    package var int64Value: Int64? {
        guard case .number(let text) = self.kind else { return nil }
        return Int64(text)
    }

    /// ``int64Value`` as an `Int`.
    package var intValue: Int? { self.int64Value.flatMap { Int(exactly: $0) } }

    /// The members of an object by key, `nil` for another kind of value. Of a key named twice the last
    /// member is kept, as most readers do; a reader that must refuse duplicates asks the parser to.
    package var objectMembers: [String: JSONNode]? {
        guard case .object(let members) = self.kind else { return nil }
        var result: [String: JSONNode] = [:]
        result.reserveCapacity(members.count)
        for member in members { result[member.key] = member.value }
        return result
    }

    /// The value of an object's first member named `key`; `nil` when there is none or this is not an
    /// object.
    package func member(_ key: String) -> JSONNode? {
        guard case .object(let members) = self.kind else { return nil }
        return members.first { $0.key == key }?.value
    }
}

/// One `"key": value` pair of a JSON object.
package struct JSONMember: Sendable {
    package var key: String
    package var keyOffset: Int
    package var value: JSONNode

    package init(key: String, keyOffset: Int, value: JSONNode) {
        self.key = key
        self.keyOffset = keyOffset
        self.value = value
    }
}

/// Maps byte offsets in the source to 1-based line and column numbers (columns count characters).
///
/// Line starts are found on first use, since most documents produce no diagnostics at all.
package struct SourceLocator: Sendable {
    private let bytes: [UInt8]
    private var lineStarts: [Int] = []

    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    package mutating func location(of offset: Int) -> (line: Int, column: Int)? {
        guard offset >= 0, offset <= self.bytes.count else { return nil }
        if self.lineStarts.isEmpty {
            var starts = [0]
            var index = 0
            while index < self.bytes.count {
                if self.bytes[index] == 0x0A { starts.append(index + 1) }
                index += 1
            }
            self.lineStarts = starts
        }
        // Binary search for the last line start <= offset.
        var low = 0
        var high = self.lineStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if self.lineStarts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        let start = self.lineStarts[low]
        var column = 1
        var index = start
        while index < offset && index < self.bytes.count {
            // Count scalars, not bytes: skip UTF-8 continuation bytes.
            if self.bytes[index] & 0xC0 != 0x80 { column += 1 }
            index += 1
        }
        return (low + 1, column)
    }
}
