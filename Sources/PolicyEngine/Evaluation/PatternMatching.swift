/// Glob matching over UTF-8 without regular expressions or allocation.
///
/// `*` matches any sequence and `?` one character (a whole Unicode scalar). Literal text, including the
/// value a variable stands for, matches only itself: a user id of `*` never acts as a wildcard.
enum Glob {
    /// Whether the tokens `range` of `pattern` match `subject[from..<to]` entirely. `foldCase` compares ASCII
    /// case-insensitively. Unresolvable variables never match.
    static func match(
        _ pattern: Pattern, tokens range: Range<Int>, _ subject: UnsafeBufferPointer<UInt8>, from: Int, to: Int,
        foldCase: Bool, context: RequestContext
    ) -> Bool {
        pattern.tokens.withUnsafeBufferPointer { tokens in
            pattern.bytes.withUnsafeBufferPointer { literals in
                var tokenIndex = range.lowerBound
                let end = range.upperBound
                var position = from
                var starToken = -1
                var starPosition = 0
                while true {
                    if tokenIndex < end {
                        let token = tokens[tokenIndex]
                        switch token.kind {
                        case .anySequence:
                            starToken = tokenIndex
                            starPosition = position
                            tokenIndex += 1
                            continue
                        case .anyCharacter:
                            if position < to {
                                position = nextScalar(subject, after: position, limit: to)
                                tokenIndex += 1
                                continue
                            }
                        case .literal:
                            let start = Int(token.start)
                            let length = Int(token.count)
                            let literal = UnsafeBufferPointer(rebasing: literals[start..<(start + length)])
                            if bytesMatch(literal, subject, at: position, limit: to, foldCase: foldCase) {
                                position += length
                                tokenIndex += 1
                                continue
                            }
                        case .variable:
                            guard let value = context.resolve(pattern.variables[Int(token.start)]) else { return false }
                            let matched = value.withUnsafeBufferPointer {
                                bytesMatch($0, subject, at: position, limit: to, foldCase: foldCase)
                            }
                            if matched {
                                position += value.count
                                tokenIndex += 1
                                continue
                            }
                        }
                    } else if position == to {
                        return true
                    }
                    // Mismatch: let the most recent star absorb one more character, or give up.
                    guard starToken >= 0, starPosition < to else { return false }
                    starPosition = nextScalar(subject, after: starPosition, limit: to)
                    position = starPosition
                    tokenIndex = starToken + 1
                }
            }
        }
    }

    /// Whether the whole of `pattern` matches the whole of `subject`.
    static func match(_ pattern: Pattern, _ subject: [UInt8], foldCase: Bool, context: RequestContext) -> Bool {
        subject.withUnsafeBufferPointer {
            match(pattern, tokens: pattern.tokens.indices, $0, from: 0, to: $0.count, foldCase: foldCase, context: context)
        }
    }

    /// Whether the whole pattern matches the whole UTF-8 of `subject`.
    static func match(_ pattern: Pattern, _ subject: String, foldCase: Bool, context: RequestContext) -> Bool {
        let matched = subject.utf8.withContiguousStorageIfAvailable {
            match(pattern, tokens: pattern.tokens.indices, $0, from: 0, to: $0.count, foldCase: foldCase, context: context)
        }
        return matched ?? match(pattern, Array(subject.utf8), foldCase: foldCase, context: context)
    }

    @inline(__always)
    static func nextScalar(_ subject: UnsafeBufferPointer<UInt8>, after position: Int, limit: Int) -> Int {
        var next = position + 1
        while next < limit, subject[next] & 0xC0 == 0x80 { next += 1 }
        return next
    }

    @inline(__always)
    static func bytesMatch(
        _ literal: UnsafeBufferPointer<UInt8>, _ subject: UnsafeBufferPointer<UInt8>, at position: Int, limit: Int,
        foldCase: Bool
    ) -> Bool {
        let length = literal.count
        guard limit - position >= length else { return false }
        if foldCase {
            for offset in 0..<length {
                var a = subject[position + offset]
                var b = literal[offset]
                if a >= 0x41 && a <= 0x5A { a |= 0x20 }
                if b >= 0x41 && b <= 0x5A { b |= 0x20 }
                if a != b { return false }
            }
        } else {
            // Compare eight bytes at a time, then the tail.
            var offset = 0
            if length >= 8, let left = UnsafeRawPointer(subject.baseAddress), let right = UnsafeRawPointer(literal.baseAddress) {
                while offset + 8 <= length {
                    if left.loadUnaligned(fromByteOffset: position + offset, as: UInt64.self)
                        != right.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    {
                        return false
                    }
                    offset += 8
                }
            }
            while offset < length {
                if subject[position + offset] != literal[offset] { return false }
                offset += 1
            }
        }
        return true
    }
}

/// A pattern split into the six colon-separated parts of an ARN (the last part keeps any further colons).
///
/// Used for `Resource`/`NotResource`, where a `*` that ends a part may also span colons (as the IAM
/// documentation describes), and for the ARN condition operators, which compare part by part.
final class ARNPattern: Sendable {
    let pattern: Pattern
    /// The token range of each part.
    let segments: [Range<Int>]
    let segmentEndsWithStar: [Bool]
    let matchesEverything: Bool
    /// When the first five parts are plain text (as in `arn:aws:s3:::bucket/${aws:userid}/*`), those parts
    /// and their colons, so matching can compare them at once and glob only the last part.
    let literalPrefix: [UInt8]?

    var source: String { self.pattern.source }
    var variables: [PolicyVariable] { self.pattern.variables }

    /// Compiles an ARN pattern (wildcards on, variables as given).
    static func compile(_ text: String, variables: Bool) -> (ARNPattern, [String]) {
        let (pattern, starts, issues) = PatternCompiler.compile(
            text, .init(wildcards: true, variables: variables, splitARN: true))
        return (ARNPattern(pattern, segmentStarts: starts), issues)
    }

    init(_ pattern: Pattern, segmentStarts: [Int]) {
        self.pattern = pattern
        var segments: [Range<Int>] = []
        for (index, start) in segmentStarts.enumerated() {
            let end = index + 1 < segmentStarts.count ? segmentStarts[index + 1] : pattern.tokens.count
            segments.append(start..<end)
        }
        self.segments = segments
        self.segmentEndsWithStar = segments.map { !$0.isEmpty && pattern.tokens[$0.upperBound - 1].kind == .anySequence }
        self.matchesEverything = segments.count == 1 && pattern.matchesEverything
        if segments.count == 6, segments[0..<5].allSatisfy({ range in pattern.tokens[range].allSatisfy { $0.kind == .literal } }) {
            var prefix: [UInt8] = []
            for range in segments[0..<5] {
                for token in pattern.tokens[range] {
                    prefix += pattern.bytes[Int(token.start)..<Int(token.start + token.count)]
                }
                prefix.append(UInt8(ascii: ":"))
            }
            self.literalPrefix = prefix
        } else {
            self.literalPrefix = nil
        }
    }

    /// Whether the part at `index` contains anything but literal text.
    func segmentHasWildcardOrVariable(_ index: Int) -> Bool {
        self.pattern.tokens[self.segments[index]].contains { $0.kind != .literal }
    }

    /// Resource-element matching against a request's resource (parts precomputed by the request).
    func matchesResource(_ request: AuthorizationRequest) -> Bool {
        if self.matchesEverything { return true }
        let ends = request.resourceParts
        return request.withResourceBytes { subject in
            if let prefix = self.literalPrefix {
                // The request's fifth colon must end the prefix, and the prefix must match byte for byte.
                guard ends.count == 6, ends[4] == prefix.count - 1,
                      prefix.withUnsafeBufferPointer({ Glob.bytesMatch($0, subject, at: 0, limit: subject.count, foldCase: false) })
                else { return false }
                return Glob.match(
                    self.pattern, tokens: self.segments[5], subject, from: prefix.count, to: subject.count,
                    foldCase: false, context: request.context)
            }
            return self.matchSegments(0, 0, subject, ends, request.context)
        }
    }

    @inline(__always)
    private func partStart(_ part: Int, _ ends: ResourceParts) -> Int {
        part == 0 ? 0 : ends[part - 1] + 1
    }

    private func matchSegments(
        _ segment: Int, _ part: Int, _ subject: UnsafeBufferPointer<UInt8>, _ ends: ResourceParts,
        _ context: RequestContext
    ) -> Bool {
        let segmentCount = self.segments.count
        let partCount = ends.count
        if segment == segmentCount { return part == partCount }
        if part == partCount { return false }
        let tokens = self.segments[segment]
        let start = self.partStart(part, ends)
        if segment == segmentCount - 1 {
            // The last pattern segment must consume the rest; it may span parts only if it ends with `*`.
            if part == partCount - 1 || self.segmentEndsWithStar[segment] {
                return Glob.match(
                    self.pattern, tokens: tokens, subject, from: start, to: ends[partCount - 1], foldCase: false, context: context)
            }
            return false
        }
        if Glob.match(self.pattern, tokens: tokens, subject, from: start, to: ends[part], foldCase: false, context: context),
           self.matchSegments(segment + 1, part + 1, subject, ends, context)
        {
            return true
        }
        if self.segmentEndsWithStar[segment] {
            var last = part + 1
            while last < partCount {
                if Glob.match(self.pattern, tokens: tokens, subject, from: start, to: ends[last], foldCase: false, context: context),
                   self.matchSegments(segment + 1, last + 1, subject, ends, context)
                {
                    return true
                }
                last += 1
            }
        }
        return false
    }

    /// ARN-operator matching: both sides must be ARNs with six parts, compared part by part.
    func matchesARN(_ value: [UInt8], context: RequestContext) -> Bool {
        guard self.segments.count == 6 else { return false }
        return value.withUnsafeBufferPointer { subject in
            var start = 0
            for segment in 0..<6 {
                var end = subject.count
                if segment < 5 {
                    var colon = start
                    while colon < subject.count, subject[colon] != UInt8(ascii: ":") { colon += 1 }
                    guard colon < subject.count else { return false }
                    end = colon
                }
                guard Glob.match(
                    self.pattern, tokens: self.segments[segment], subject, from: start, to: end, foldCase: false,
                    context: context)
                else { return false }
                start = end + 1
            }
            return true
        }
    }

    /// The pattern after variable substitution, for explanations.
    func rendered(in context: RequestContext) -> String {
        self.variables.isEmpty ? self.source : self.segments.map { self.pattern.rendered(in: context, tokens: $0) }.joined(separator: ":")
    }
}
