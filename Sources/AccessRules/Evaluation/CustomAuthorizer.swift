/// What a custom rule's authorizer is asked.
public struct CustomRuleRequest: Sendable {
    /// The model.
    public var model: String
    /// The operation.
    public var operation: ModelOperation
    /// The caller.
    public var caller: Caller
    /// The stored record, for every operation but create.
    public var before: Record?
    /// The record to create, or an update's changed fields.
    public var after: Record?
    /// The custom rule being decided.
    public var rule: AuthRule
}

/// The server's own decision for `{ allow: custom }` rules: `true` allows.
public typealias CustomAuthorizer = @Sendable (CustomRuleRequest) -> Bool
