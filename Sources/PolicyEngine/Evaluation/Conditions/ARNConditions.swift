/// `ArnEquals`, `ArnLike`, `ArnNotEquals`, `ArnNotLike`. As the IAM documentation describes, each of the
/// six colon-separated parts is compared separately and each may contain `*` and `?` (for `ArnEquals` too);
/// matching is case-sensitive. A request value that is not a six-part ARN matches nothing.
enum ARNConditions {
    static func compile(_ value: String, variables: Bool) -> (ARNPattern, [String]) {
        ARNPattern.compile(value, variables: variables)
    }

    static func firstMatch(_ patterns: [ARNPattern], _ requestValue: [UInt8], context: RequestContext) -> Int? {
        patterns.firstIndex { $0.matchesARN(requestValue, context: context) }
    }
}
