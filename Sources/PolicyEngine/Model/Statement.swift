/// One statement of a policy: an effect, the actions and resources it covers, optionally the principals it
/// applies to (resource and trust policies), and conditions.
public struct Statement: Sendable, Hashable, Codable {
    /// The statement id, if any.
    public var sid: String?
    /// Allow or Deny.
    public var effect: Effect
    /// `Principal` or `NotPrincipal`, in resource and trust policies.
    public var principal: PrincipalElement?
    /// `Action` or `NotAction`.
    public var action: ActionElement
    /// `Resource` or `NotResource`; absent only in trust policies.
    public var resource: ResourceElement?
    /// The conditions, all of which must hold.
    public var conditions: [Condition]

    /// Creates a statement.
    /// - Parameters:
    ///   - sid: The statement id.
    ///   - effect: Allow or Deny.
    ///   - principal: `Principal` or `NotPrincipal`, for resource and trust policies.
    ///   - action: `Action` or `NotAction`.
    ///   - resource: `Resource` or `NotResource`.
    ///   - conditions: The conditions.
    public init(
        sid: String? = nil, effect: Effect, principal: PrincipalElement? = nil, action: ActionElement,
        resource: ResourceElement?, conditions: [Condition] = []
    ) {
        self.sid = sid
        self.effect = effect
        self.principal = principal
        self.action = action
        self.resource = resource
        self.conditions = conditions
    }
}
