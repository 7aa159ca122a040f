/// One test in a statement's `Condition` block: an operator, a context key, and the policy values.
///
/// Within a statement, conditions are AND'ed; the values of one condition are OR'ed (for negated operators:
/// NOR'ed, so `StringNotEquals` with two values matches only when the request equals neither).
public struct Condition: Sendable, Hashable, Codable {
    /// The operator, such as `StringLike` or `ForAnyValue:StringEquals`.
    public var `operator`: ConditionOperator
    /// The context key as written, such as `aws:SourceIp`. Key names are case-insensitive.
    public var key: String
    /// The policy values as strings (JSON booleans and numbers are converted to their text).
    public var values: [String]

    /// Creates a condition.
    /// - Parameters:
    ///   - operator: The operator.
    ///   - key: The context key.
    ///   - values: The policy values.
    public init(_ operator: ConditionOperator, key: String, values: [String]) {
        self.operator = `operator`
        self.key = key
        self.values = values
    }
}
