/// The white space that ``Swift/StringProtocol/trimming(_:)`` removes: the three sets of Foundation's
/// `CharacterSet` that this package trims with, member for member.
package enum TrimmedCharacters: Sendable {
    /// `CharacterSet.whitespaces`: the space separators (General Category Zs), tab, and U+200B ZERO
    /// WIDTH SPACE, which Foundation's tables still count as a space.
    case whitespaces
    /// `CharacterSet.newlines`: U+000A–U+000D, U+0085, U+2028 and U+2029.
    case newlines
    /// `CharacterSet.whitespacesAndNewlines`: both of the above.
    case whitespacesAndNewlines

    /// Whether `scalar` is in the set.
    package func contains(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x80 {
            switch self {
            case .whitespaces: return value == 0x20 || value == 0x09
            case .newlines: return value >= 0x0A && value <= 0x0D
            case .whitespacesAndNewlines: return value == 0x20 || (value >= 0x09 && value <= 0x0D)
            }
        }
        let isNewline = value == 0x85 || value == 0x2028 || value == 0x2029
        switch self {
        case .whitespaces: return Self.isSpaceSeparator(scalar)
        case .newlines: return isNewline
        case .whitespacesAndNewlines: return isNewline || Self.isSpaceSeparator(scalar)
        }
    }

    static func isSpaceSeparator(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x200B || scalar.properties.generalCategory == .spaceSeparator
    }
}

extension StringProtocol {
    /// The text without the characters of `set` at either end, as Foundation's
    /// `trimmingCharacters(in:)` gives it for the same set.
    ///
    /// It works on Unicode scalars, as Foundation does, so a combining mark after a trimmed space stays.
    /// Foundation's version goes through `NSString` on Linux: its first call in a process cost about
    /// 1.6 million instructions, most of them the runtime's protocol-conformance lookups, and every
    /// command that opens the encrypted store made one.
    /// - Parameter set: What to remove.
    /// - Returns: The trimmed text.
    package func trimming(_ set: TrimmedCharacters) -> String {
        let scalars = self.unicodeScalars
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start < end, set.contains(scalars[start]) {
            start = scalars.index(after: start)
        }
        while end > start {
            let before = scalars.index(before: end)
            guard set.contains(scalars[before]) else { break }
            end = before
        }
        return String(self[start..<end])
    }
}
