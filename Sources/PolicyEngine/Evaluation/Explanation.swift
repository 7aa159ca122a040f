/// Why a request was allowed or denied: the decision, a one-line summary, and for every statement of every
/// policy whether its action, resource, principal and conditions matched, with the values compared.
///
/// Built only on request (``PolicyEvaluator/explain(_:)``), as ``text`` for people and ``json(pretty:)``
/// for tools. It is also `Codable`.
public struct Explanation: Sendable, Hashable, Codable {
    /// The decision.
    public var decision: Decision {
        Decision(outcome: self.outcome, statements: self.decidingStatements)
    }

    /// The outcome.
    public var outcome: Decision.Outcome
    /// One line saying why, such as `Allowed by identity policy 'app' Statement[1] (Sid ReadOwn).`
    public var summary: String
    /// The action requested.
    public var action: String
    /// The resource requested.
    public var resource: String
    /// The caller's ARN, or `nil` for an anonymous request.
    public var principal: String?
    /// The statements that decided the outcome.
    public var decidingStatements: [StatementReference]
    /// Every policy that took part, in evaluation order.
    public var policies: [PolicyExplanation]
}

/// How one policy's statements fared.
public struct PolicyExplanation: Sendable, Hashable, Codable {
    /// The policy's name.
    public var name: String
    /// The role the policy played.
    public var kind: PolicyKind
    /// One entry per statement, in order.
    public var statements: [StatementExplanation]
}

/// How one statement fared.
public struct StatementExplanation: Sendable, Hashable, Codable {
    /// Which statement.
    public var reference: StatementReference
    /// Its effect.
    public var effect: Effect
    /// Whether the statement applies (every element matched and every condition held).
    public var applies: Bool
    /// The `Action`/`NotAction` check.
    public var action: ElementExplanation
    /// The `Resource`/`NotResource` check.
    public var resource: ElementExplanation
    /// The `Principal`/`NotPrincipal` check, for resource and trust policies.
    public var principal: ElementExplanation?
    /// One entry per condition.
    public var conditions: [ConditionExplanation]
}

/// The result of checking one element of a statement.
public struct ElementExplanation: Sendable, Hashable, Codable {
    /// Whether the element let the statement apply.
    public var matched: Bool
    /// What was compared, in words.
    public var detail: String
}

/// The result of checking one condition.
public struct ConditionExplanation: Sendable, Hashable, Codable {
    /// The operator as written, such as `ForAnyValue:StringLike`.
    public var `operator`: String
    /// The context key as written.
    public var key: String
    /// The policy values after variable substitution (unresolved variables are left as written).
    public var policyValues: [String]
    /// The request's values for the key, or `nil` if the key is absent.
    public var requestValues: [String]?
    /// Whether the condition held.
    public var matched: Bool
    /// Why, in words.
    public var detail: String
}
