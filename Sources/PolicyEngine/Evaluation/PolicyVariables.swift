/// A `${key}` or `${key, 'default'}` reference in a policy value.
struct PolicyVariable: Sendable, Hashable {
    /// The key, normalized for lookup (key names are case-insensitive).
    let key: ContextKey
    /// The key as written, without the braces and the default.
    let name: String
    /// The variable as written, for explanations.
    let written: String
    /// The default value's UTF-8, used when the key is absent.
    let defaultValue: [UInt8]?
}

/// The policy variables of a text, read as the policy parser reads them.
package enum PolicyVariableScanner {
    /// The keys of the variables written in `text` (`${key}` and `${key, 'default'}`), each once, in the
    /// order they first appear.
    /// - Parameter text: A policy value, or a whole policy document.
    /// - Returns: The keys as written.
    package static func keys(in text: String) -> [String] {
        var keys: [String] = []
        for variable in PatternCompiler.pattern(text, .init(wildcards: false, variables: true)).0.variables where !keys.contains(variable.name) {
            keys.append(variable.name)
        }
        return keys
    }
}

/// A policy value prepared for matching: tokenised once at parse time into a flat, allocation-free form.
///
/// Literal text, including the value a variable stands for, only ever matches itself; only the `*` and `?`
/// written in the policy are wildcards. Tokens are plain values pointing into ``bytes`` (for literals) or
/// ``variables`` (for variables), so matching does no reference counting.
final class Pattern: Sendable {
    enum Kind: UInt8, Sendable {
        case literal
        /// `?`: exactly one character.
        case anyCharacter
        /// `*`: any sequence of characters, including none.
        case anySequence
        case variable
    }

    struct Token: Sendable {
        let kind: Kind
        /// For a literal, the offset of its bytes in ``Pattern/bytes``; for a variable, its index in
        /// ``Pattern/variables``.
        let start: Int32
        /// For a literal, its length.
        let count: Int32
    }

    let source: String
    let bytes: [UInt8]
    let tokens: [Token]
    let variables: [PolicyVariable]

    init(source: String, bytes: [UInt8], tokens: [Token], variables: [PolicyVariable]) {
        self.source = source
        self.bytes = bytes
        self.tokens = tokens
        self.variables = variables
    }

    /// Whether the pattern is only `*`, so it matches everything without looking.
    var matchesEverything: Bool {
        !self.tokens.isEmpty && self.tokens.allSatisfy { $0.kind == .anySequence }
    }

    var hasWildcards: Bool {
        self.tokens.contains { $0.kind == .anyCharacter || $0.kind == .anySequence }
    }

    /// Whether every literal byte is ASCII.
    var isASCII: Bool {
        self.bytes.allSatisfy { $0 < 0x80 } && self.variables.allSatisfy { $0.defaultValue?.allSatisfy { $0 < 0x80 } ?? true }
    }

    /// The first variable that has neither a value in the context nor a default.
    func unresolvedVariable(in context: RequestContext) -> PolicyVariable? {
        self.variables.first { context.resolve($0) == nil }
    }

    /// The text after substitution, for explanations; unresolved variables stay as written.
    func rendered(in context: RequestContext, tokens range: Range<Int>? = nil) -> String {
        var output: [UInt8] = []
        for token in self.tokens[range ?? self.tokens.indices] {
            switch token.kind {
            case .literal: output += self.bytes[Int(token.start)..<Int(token.start + token.count)]
            case .anyCharacter: output.append(UInt8(ascii: "?"))
            case .anySequence: output.append(UInt8(ascii: "*"))
            case .variable:
                let variable = self.variables[Int(token.start)]
                if let value = context.resolve(variable) { output += value } else { output += Array(variable.written.utf8) }
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}

extension RequestContext {
    /// The UTF-8 value a variable stands for: the key's single value, else the default, else `nil`.
    /// Multi-valued keys cannot be policy variables, so they resolve to the default.
    @inline(__always)
    func resolve(_ variable: PolicyVariable) -> [UInt8]? {
        if let value = self.value(for: variable.key), !value.isMultiValued {
            return value.utf8[0]
        }
        return variable.defaultValue
    }
}

/// Turns policy text into a ``Pattern``.
enum PatternCompiler {
    struct Options {
        /// Whether `*` and `?` are wildcards (Action, Resource, `StringLike`, ARN operators).
        var wildcards: Bool
        /// Whether `${…}` is substituted (Version 2012-10-17, in Resource and string/ARN condition values).
        var variables: Bool
        /// Whether to lowercase ASCII literal text (actions, `…IgnoreCase`).
        var foldCase: Bool = false
        /// Whether to end a literal token at each of the first five colons, so the tokens can be grouped
        /// into the parts of an ARN. The colons themselves are not kept.
        var splitARN: Bool = false
    }

    /// Compiles `text`, returning the pattern, the token index at which each ARN part starts (when
    /// `splitARN` is set), and any problems with `${…}` syntax (the offending text is then kept literally).
    static func compile(_ text: String, _ options: Options) -> (Pattern, [Int], [String]) {
        let input = Array(text.utf8)
        var bytes: [UInt8] = []
        var tokens: [Pattern.Token] = []
        var variables: [PolicyVariable] = []
        var issues: [String] = []
        var segmentStarts = [0]
        var literalStart = 0
        func flush() {
            if bytes.count > literalStart {
                tokens.append(Pattern.Token(kind: .literal, start: Int32(literalStart), count: Int32(bytes.count - literalStart)))
            }
            literalStart = bytes.count
        }
        func appendLiteral(_ byte: UInt8) {
            bytes.append(options.foldCase && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
        }
        var index = 0
        while index < input.count {
            let byte = input[index]
            if options.variables, byte == UInt8(ascii: "$"), index + 1 < input.count, input[index + 1] == UInt8(ascii: "{") {
                switch parseVariable(input, from: index) {
                case .literalCharacter(let character, let end):
                    bytes.append(character)
                    index = end
                case .variable(let variable, let end):
                    flush()
                    tokens.append(Pattern.Token(kind: .variable, start: Int32(variables.count), count: 0))
                    variables.append(variable)
                    index = end
                case .invalid(let message):
                    issues.append(message)
                    appendLiteral(byte)
                    appendLiteral(input[index + 1])
                    index += 2
                }
                continue
            }
            if options.splitARN, byte == UInt8(ascii: ":"), segmentStarts.count < 6 {
                flush()
                segmentStarts.append(tokens.count)
            } else if options.wildcards, byte == UInt8(ascii: "*") {
                flush()
                // Consecutive stars are one star.
                if tokens.last?.kind != .anySequence || segmentStarts.last == tokens.count {
                    tokens.append(Pattern.Token(kind: .anySequence, start: 0, count: 0))
                }
            } else if options.wildcards, byte == UInt8(ascii: "?") {
                flush()
                tokens.append(Pattern.Token(kind: .anyCharacter, start: 0, count: 0))
            } else {
                appendLiteral(byte)
            }
            index += 1
        }
        flush()
        return (Pattern(source: text, bytes: bytes, tokens: tokens, variables: variables), segmentStarts, issues)
    }

    /// Compiles `text` with no ARN splitting.
    static func pattern(_ text: String, _ options: Options) -> (Pattern, [String]) {
        let (pattern, _, issues) = self.compile(text, options)
        return (pattern, issues)
    }

    private enum VariableParse {
        case literalCharacter(UInt8, end: Int)
        case variable(PolicyVariable, end: Int)
        case invalid(String)
    }

    /// Parses `${…}` starting at `start` (which points at `$`).
    private static func parseVariable(_ bytes: [UInt8], from start: Int) -> VariableParse {
        var close = start + 2
        while close < bytes.count, bytes[close] != UInt8(ascii: "}") {
            close += 1
        }
        guard close < bytes.count else {
            return .invalid("'${' without a closing '}' is treated as literal text")
        }
        let written = String(decoding: bytes[start...close], as: UTF8.self)
        let trimmed = trim(bytes[(start + 2)..<close])
        if trimmed.count == 1 {
            switch trimmed[trimmed.startIndex] {
            case UInt8(ascii: "*"), UInt8(ascii: "?"), UInt8(ascii: "$"):
                return .literalCharacter(trimmed[trimmed.startIndex], end: close + 1)
            default: break
            }
        }
        var keyBytes = trimmed
        var defaultValue: [UInt8]?
        if let comma = trimmed.firstIndex(of: UInt8(ascii: ",")) {
            keyBytes = trim(trimmed[..<comma])
            let rest = trim(trimmed[(comma + 1)...])
            guard rest.count >= 2, rest.first == UInt8(ascii: "'"), rest.last == UInt8(ascii: "'") else {
                return .invalid("\(written): a default value must be in single quotes, as in ${key, 'default'}; treated as literal text")
            }
            let inner = rest.dropFirst().dropLast()
            guard !inner.contains(UInt8(ascii: "'")) else {
                return .invalid("\(written): a default value cannot contain a single quote; treated as literal text")
            }
            defaultValue = Array(inner)
        }
        guard !keyBytes.isEmpty else {
            return .invalid("\(written): empty policy variable name; treated as literal text")
        }
        for byte in keyBytes {
            let valid = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "=") || byte == UInt8(ascii: "@") || byte == UInt8(ascii: " ")
            guard valid else {
                return .invalid("\(written): invalid character in policy variable name; treated as literal text")
            }
        }
        let key = String(decoding: keyBytes, as: UTF8.self)
        return .variable(PolicyVariable(key: ContextKey(key), name: key, written: written, defaultValue: defaultValue), end: close + 1)
    }

    private static func trim(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }
}
