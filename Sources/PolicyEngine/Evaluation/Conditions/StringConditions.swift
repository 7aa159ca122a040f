/// `StringEquals`, `StringNotEquals`, `StringEqualsIgnoreCase`, `StringNotEqualsIgnoreCase`, `StringLike`,
/// `StringNotLike`. Values may contain policy variables (Version 2012-10-17); `*` and `?` are wildcards only
/// for the `Like` operators.
enum StringConditions {
    static func compile(_ op: ConditionOperator, _ value: String, variables: Bool) -> (Pattern, [String]) {
        let base = op.base.positive
        return PatternCompiler.pattern(
            value,
            .init(wildcards: base == .stringLike, variables: variables, foldCase: base == .stringEqualsIgnoreCase))
    }

    static func firstMatch(
        _ positive: ConditionOperator.Base, _ patterns: [Pattern], _ requestValue: [UInt8], context: RequestContext
    ) -> Int? {
        for (index, pattern) in patterns.enumerated() {
            if positive == .stringEqualsIgnoreCase {
                if equalsIgnoringCase(pattern, requestValue, context: context) { return index }
            } else if Glob.match(pattern, requestValue, foldCase: false, context: context) {
                return index
            }
        }
        return nil
    }

    /// Case-insensitive equality: ASCII folding when both sides are ASCII, Unicode lowercasing otherwise.
    static func equalsIgnoringCase(_ pattern: Pattern, _ requestValue: [UInt8], context: RequestContext) -> Bool {
        var ascii = requestValue.allSatisfy { $0 < 0x80 } && pattern.bytes.allSatisfy { $0 < 0x80 }
        if ascii {
            for variable in pattern.variables {
                guard let value = context.resolve(variable) else { return false }
                if !value.allSatisfy({ $0 < 0x80 }) { ascii = false }
            }
        }
        if ascii {
            return Glob.match(pattern, requestValue, foldCase: true, context: context)
        }
        guard pattern.unresolvedVariable(in: context) == nil else { return false }
        let expected = pattern.rendered(in: context).lowercased()
        return String(decoding: requestValue, as: UTF8.self).lowercased() == expected
    }
}
