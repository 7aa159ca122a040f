import Foundation

/// Text as a key that matches only the same bytes.
///
/// `String` and `Substring` compare and hash by canonical equivalence, so a token with one character
/// swapped for an equivalent one (`K` for U+212A KELVIN SIGN) equals the original. A cache of work done
/// for a token (a verified signature, an opened session) must find an entry only for the very text it
/// was made for.
///
/// It holds a `Substring`, so a token cut from a header (`Bearer …`) is a key without a copy, and
/// hashes its bytes once, when it is made: a cache looks a token up, stores it, and later evicts it,
/// and each of those would otherwise hash a kilobyte again.
package struct ExactText: Hashable, Sendable {
    package let text: Substring
    /// The hash of the text's bytes, with this process's seed.
    private let digest: Int

    package init(_ text: String) {
        self.init(text[...])
    }

    package init(_ text: Substring) {
        self.text = text
        var hasher = Hasher()
        withContiguousBytes(text.utf8) { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        self.digest = hasher.finalize()
    }

    /// A token whose last bytes are a signature or an authentication tag (a JWT, a sealed session token):
    /// only its length and its last ``sampledSuffixLength`` bytes are hashed, since no two tokens share
    /// those by chance, so a lookup of a kilobyte token does not hash a kilobyte. Equality still compares
    /// every byte. A cache that keeps only tokens it verified holds no two keys with the same ending.
    package init(token: Substring) {
        self.text = token
        var hasher = Hasher()
        withContiguousBytes(token.utf8) { bytes in
            hasher.combine(bytes.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.suffix(Self.sampledSuffixLength))))
        }
        self.digest = hasher.finalize()
    }

    /// How many of a token's last bytes ``init(token:)`` hashes.
    package static let sampledSuffixLength = 64

    /// Byte equality over the two texts' UTF-8, compared as memory: a cache lookup compares whole
    /// tokens of a kilobyte or more, which a byte-at-a-time walk of two UTF-8 views makes costly.
    package static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.digest == rhs.digest, lhs.text.utf8.count == rhs.text.utf8.count else { return false }
        return withContiguousBytes(lhs.text.utf8) { left in
            withContiguousBytes(rhs.text.utf8) { right in
                guard let a = left.baseAddress, let b = right.baseAddress else { return left.count == right.count }
                return memcmp(a, b, left.count) == 0
            }
        }
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(self.digest)
    }
}
