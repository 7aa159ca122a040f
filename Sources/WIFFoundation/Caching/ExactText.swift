/// Text as a key that matches only the same bytes.
///
/// `String` compares and hashes by canonical equivalence, so a token with one character swapped for an
/// equivalent one (`K` for U+212A KELVIN SIGN) equals the original. A cache of work done for a token (a
/// verified signature, an opened session) must find an entry only for the very text it was made for.
package struct ExactText: Hashable, Sendable {
    package let text: String

    package init(_ text: String) {
        self.text = text
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    package func hash(into hasher: inout Hasher) {
        var text = self.text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
