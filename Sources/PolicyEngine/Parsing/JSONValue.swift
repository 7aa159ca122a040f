/// A JSON value as read from policy text, keeping key order, duplicate keys and the byte offset of every
/// value so diagnostics can name a line and column.
struct JSONNode: Sendable {
    enum Kind: Sendable {
        case object([JSONMember])
        case array([JSONNode])
        case string(String)
        /// The number exactly as written, so `1.50` stays `1.50` when used as a condition value.
        case number(String)
        case bool(Bool)
        case null
    }

    var kind: Kind
    /// The byte offset of the value's first character in the source, or -1 for synthesized values.
    var offset: Int

    var typeName: String {
        switch self.kind {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        }
    }

    var stringValue: String? {
        if case .string(let value) = self.kind { return value }
        return nil
    }
}

/// One `"key": value` pair of a JSON object.
struct JSONMember: Sendable {
    var key: String
    var keyOffset: Int
    var value: JSONNode
}

/// Maps byte offsets in the source to 1-based line and column numbers (columns count characters).
///
/// Line starts are found on first use, since most documents produce no diagnostics at all.
struct SourceLocator: Sendable {
    private let bytes: [UInt8]
    private var lineStarts: [Int] = []

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func location(of offset: Int) -> (line: Int, column: Int)? {
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
