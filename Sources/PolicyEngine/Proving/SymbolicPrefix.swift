/// The part of a pattern that every string it matches must start with, with the user id kept as a symbol.
///
/// A pattern's leading literal text and id variables fix the first characters of everything it matches,
/// whatever the id: `arn:aws:s3:::b/${k}/*` matches only strings that start with `arn:aws:s3:::b/`, then
/// the id, then `/`. Comparing that prefix with a user's folder, id symbol against id symbol, is a proof
/// about every id at once, since the id is substituted as literal text (an id of `*` is a star, not a
/// wildcard).
struct SymbolicPrefix: Sendable, Equatable {
    enum Item: Sendable, Equatable {
        case byte(UInt8)
        /// The whole id, once.
        case id
        /// The whole id of a user of another identity provider, whose ids are unrelated to the caller's:
        /// only a target holds it.
        case otherId
    }

    /// The fixed start of every match.
    var items: [Item]
    /// Whether the pattern is exactly ``items``, with no wildcard or unknown variable after them.
    var isComplete: Bool
    /// The variable that ended the prefix, when one did: its value is unknown to the prover.
    var unknownVariable: String?
    /// Whether the pattern is ``items`` followed by a single `*` and nothing else, so it matches every
    /// string that starts with them.
    var restIsStar = false

    /// The prefix of a pattern (variables other than `idKey` take their value from `fixed`, when their key
    /// is one of `known`, or any key when `known` is `nil`).
    init(_ pattern: Pattern, tokens: Range<Int>? = nil, idKey: ContextKey, fixed: RequestContext, known: Set<ContextKey>? = nil) {
        self.items = []
        self.isComplete = true
        self.unknownVariable = nil
        self.append(pattern, tokens: tokens ?? pattern.tokens.indices, idKey: idKey, fixed: fixed, known: known)
    }

    /// The prefix of an ARN pattern, with the colons between its parts put back.
    init(_ pattern: ARNPattern, idKey: ContextKey, fixed: RequestContext, known: Set<ContextKey>? = nil) {
        self.items = []
        self.isComplete = true
        self.unknownVariable = nil
        for (index, segment) in pattern.segments.enumerated() {
            if index > 0 { self.items.append(.byte(UInt8(ascii: ":"))) }
            self.append(pattern.pattern, tokens: segment, idKey: idKey, fixed: fixed, known: known)
            guard self.isComplete else { return }
        }
    }

    init(items: [Item]) {
        self.items = items
        self.isComplete = true
        self.unknownVariable = nil
    }

    private mutating func append(
        _ pattern: Pattern, tokens: Range<Int>, idKey: ContextKey, fixed: RequestContext, known: Set<ContextKey>?
    ) {
        for tokenIndex in tokens {
            let token = pattern.tokens[tokenIndex]
            switch token.kind {
            case .literal:
                let start = Int(token.start)
                self.items += pattern.bytes[start..<(start + Int(token.count))].map { .byte($0) }
            case .variable:
                let variable = pattern.variables[Int(token.start)]
                if variable.key == idKey {
                    self.items.append(.id)
                } else if known?.contains(variable.key) ?? true, let value = fixed.resolve(variable) {
                    self.items += value.map { .byte($0) }
                } else {
                    self.isComplete = false
                    self.unknownVariable = variable.written
                    return
                }
            case .anyCharacter, .anySequence:
                self.isComplete = false
                self.restIsStar = token.kind == .anySequence && tokenIndex == pattern.tokens.count - 1
                return
            }
        }
    }

    /// How a pattern relates to a target of the form `literal + id + literal`.
    enum Relation: Sendable, Equatable {
        /// Everything the pattern matches starts with the whole target.
        case extendsTarget
        /// The pattern differs from the target in a literal character before the target's id: nothing it
        /// matches starts with the target's first part.
        case divergesBeforeId
        /// The pattern is a complete string no longer than the target's text before the id.
        case endsBeforeId
        /// Anything else: the relation depends on the id or on what the wildcards match.
        case undetermined
    }

    /// Compares the prefix with `target`, whose id (the caller's, or another provider's user's) is at
    /// `idIndex`.
    /// - Parameters:
    ///   - target: Literal text around one id.
    ///   - idAlphabet: The characters of the caller's ids, when known: the first character of the caller's
    ///     id, where the target has a literal ASCII character that no id starts with, is a difference.
    ///   - targetIdAlphabet: The characters of the target's ids, when known: a literal ASCII character
    ///     where the target's id starts, that no such id starts with, is a difference too.
    func relation(
        to target: [Item], idAlphabet: IdentifierAlphabet? = nil, targetIdAlphabet: IdentifierAlphabet? = nil
    ) -> Relation {
        let idIndex = Self.idIndex(of: target)
        for index in target.indices {
            guard index < self.items.count else {
                return self.isComplete && index <= idIndex ? .endsBeforeId : .undetermined
            }
            switch (self.items[index], target[index]) {
            case (.byte(let mine), .byte(let theirs)):
                if mine != theirs { return index < idIndex ? .divergesBeforeId : .undetermined }
            case (.id, .id):
                continue
            case (.id, .byte(let theirs)):
                // Ids are never empty, so the id's first character sits here; an ASCII character the
                // alphabet lacks is never that character (nor the first byte of a longer one).
                if index < idIndex, theirs < 0x80, let idAlphabet, !idAlphabet.contains(Unicode.Scalar(theirs)) {
                    return .divergesBeforeId
                }
                return .undetermined
            case (.byte(let mine), .id), (.byte(let mine), .otherId):
                if mine < 0x80, let alphabet = targetIdAlphabet ?? idAlphabet, !alphabet.contains(Unicode.Scalar(mine)) {
                    return .divergesBeforeId
                }
                return .undetermined
            default:
                return .undetermined
            }
        }
        return .extendsTarget
    }

    /// Where the target's id is: the caller's or another provider's user's.
    static func idIndex(of target: [Item]) -> Int {
        target.firstIndex { $0 == .id || $0 == .otherId } ?? target.count
    }

    /// Whether the pattern matches every string that starts with `target`'s text before its id: it is a
    /// part of that text followed by a single `*`.
    func coversEverythingFrom(_ target: [Item]) -> Bool {
        let idIndex = Self.idIndex(of: target)
        return self.restIsStar && self.items.count <= idIndex && self.items == Array(target[0..<self.items.count])
    }

    /// Whether the prefix, as a complete string, is exactly `target`.
    func equals(_ target: [Item]) -> Bool {
        self.isComplete && self.items == target
    }
}

extension SymbolicPrefix.Item {
    /// The items of literal text.
    static func bytes(_ text: String) -> [SymbolicPrefix.Item] {
        text.utf8.map { .byte($0) }
    }

    /// The items with ASCII letters in lowercase, as `…IgnoreCase` compares them; `nil` when the text has a
    /// character beyond ASCII, whose case the prover does not fold.
    static func lowercasedASCII(_ items: [SymbolicPrefix.Item]) -> [SymbolicPrefix.Item]? {
        var folded: [SymbolicPrefix.Item] = []
        folded.reserveCapacity(items.count)
        for item in items {
            guard case .byte(let byte) = item else {
                folded.append(item)
                continue
            }
            guard byte < 0x80 else { return nil }
            folded.append(.byte(byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte))
        }
        return folded
    }
}
