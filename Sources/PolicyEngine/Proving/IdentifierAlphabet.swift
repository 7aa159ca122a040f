/// The characters a user id may contain, for ``PolicyProver``: any character, or a class such as `[0-9]`.
///
/// Ids are always non-empty. The alphabet changes the answer: a Facebook id is digits only, so
/// `${graph.facebook.com:id}/` keeps every user's folder apart, while an OpenID Connect `sub` may contain
/// `/`, and then the folder of `x` contains the folder of `x/y`.
///
/// ```swift
/// let digits = try IdentifierAlphabet("[0-9]")
/// digits.contains("7")  // true
/// try IdentifierAlphabet("[^/]").contains("/")  // false
/// ```
public struct IdentifierAlphabet: Sendable, Hashable, CustomStringConvertible {
    /// Inclusive scalar ranges; with ``negated`` the alphabet is every scalar outside them.
    let ranges: [ClosedRange<UInt32>]
    let negated: Bool
    /// The class as written, or `nil` for any character.
    public let written: String?

    /// Every Unicode scalar.
    public static let any = IdentifierAlphabet(ranges: [], negated: true, written: nil)

    init(ranges: [ClosedRange<UInt32>], negated: Bool, written: String?) {
        self.ranges = ranges
        self.negated = negated
        self.written = written
    }

    /// Parses a character class: `[` then an optional `^`, single characters and ranges `a-z`, and `]`.
    /// A `-` first or last, and any character after a backslash, stand for themselves.
    /// - Parameter text: The class, such as `[0-9]`, `[A-Za-z0-9_-]` or `[^/]`.
    /// - Throws: ``PolicyEngineError/Code/invalidRequest`` naming what is wrong with the class.
    public init(_ text: String) throws(PolicyEngineError) {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count >= 3, scalars.first == "[", scalars.last == "]" else {
            throw PolicyEngineError(
                code: .invalidRequest, reason: "id alphabet '\(text)' must be a character class in brackets, such as [0-9]")
        }
        var body = Array(scalars[1..<(scalars.count - 1)])
        var negated = false
        if body.first == "^" {
            negated = true
            body.removeFirst()
        }
        guard !body.isEmpty else {
            throw PolicyEngineError(code: .invalidRequest, reason: "id alphabet '\(text)' names no characters")
        }
        var items: [UInt32] = []
        var escaped: [Bool] = []
        var index = 0
        while index < body.count {
            if body[index] == "\\", index + 1 < body.count {
                items.append(body[index + 1].value)
                escaped.append(true)
                index += 2
            } else {
                items.append(body[index].value)
                escaped.append(false)
                index += 1
            }
        }
        var ranges: [ClosedRange<UInt32>] = []
        index = 0
        while index < items.count {
            let isRange = index + 2 < items.count && items[index + 1] == UInt32(UInt8(ascii: "-")) && !escaped[index + 1]
            if isRange {
                guard items[index] <= items[index + 2] else {
                    throw PolicyEngineError(
                        code: .invalidRequest, reason: "id alphabet '\(text)' has a range whose end comes before its start")
                }
                ranges.append(items[index]...items[index + 2])
                index += 3
            } else {
                ranges.append(items[index]...items[index])
                index += 1
            }
        }
        self.init(ranges: ranges, negated: negated, written: text)
    }

    /// Whether ids may contain `scalar`.
    public func contains(_ scalar: Unicode.Scalar) -> Bool {
        self.ranges.contains { $0.contains(scalar.value) } != self.negated
    }

    /// Whether `id` is a possible id: non-empty and made of the alphabet's characters.
    public func admits(_ id: String) -> Bool {
        !id.isEmpty && id.unicodeScalars.allSatisfy(self.contains)
    }

    /// Whether an id of this alphabet and a different id of `other` can differ in case only: some letter is
    /// in one alphabet in one case and in the other in the other case. An alphabet with characters beyond
    /// ASCII is assumed to, since its case pairs are not enumerated.
    func hasCaseVariants(against other: IdentifierAlphabet) -> Bool {
        for alphabet in [self, other] where alphabet.negated || alphabet.ranges.contains(where: { $0.upperBound >= 0x80 }) {
            return true
        }
        return (UInt32(0x41)...UInt32(0x5A)).contains { upper in
            let lower = upper + 0x20
            let mine = (self.ranges.contains { $0.contains(upper) }, self.ranges.contains { $0.contains(lower) })
            let theirs = (other.ranges.contains { $0.contains(upper) }, other.ranges.contains { $0.contains(lower) })
            return (mine.0 && theirs.1) || (mine.1 && theirs.0)
        }
    }

    /// The alphabet as the prover states it in its answers.
    public var description: String {
        guard let written else { return "any non-empty string" }
        return "non-empty strings of \(written)"
    }

    /// A few characters of the alphabet, in a stable order, for building candidate ids: letters and digits
    /// first, then the characters that matter to folders and patterns.
    func sampleCharacters(preferring preferred: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var chosen: [Unicode.Scalar] = []
        let ordinary: [Unicode.Scalar] = Array("abx12AZ09_-.:".unicodeScalars)
        for scalar in preferred + ordinary where self.contains(scalar) && !chosen.contains(scalar) {
            chosen.append(scalar)
        }
        if chosen.isEmpty, let range = self.ranges.first, !self.negated, let scalar = Unicode.Scalar(range.lowerBound) {
            chosen.append(scalar)
        }
        return chosen
    }
}
