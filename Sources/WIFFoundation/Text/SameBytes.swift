extension StringProtocol {
    /// Whether two texts have the same UTF-8 bytes.
    ///
    /// Swift's `==` treats canonically equivalent strings as equal: `"é"` (U+00E9) and `"e"` followed
    /// by U+0301 compare equal, though they are different user names, group names and keys to the
    /// services this package stands in for, which compare code units. Identities are compared with this.
    /// - Parameter other: The other text.
    /// - Returns: `true` when the bytes are the same.
    @inlinable
    package func hasSameBytes(as other: some StringProtocol) -> Bool {
        self.utf8.elementsEqual(other.utf8)
    }
}

extension Sequence where Element: StringProtocol {
    /// Whether an element has the same UTF-8 bytes as `text`; see ``StringProtocol/hasSameBytes(as:)``.
    @inlinable
    package func containsSameBytes(as text: some StringProtocol) -> Bool {
        self.contains { $0.hasSameBytes(as: text) }
    }
}
