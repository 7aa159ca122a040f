/// The outcome of evaluating a request, with the statements that decided it.
///
/// Decisions compare equal by ``outcome`` alone, so tests can write `decision == .allow`; the deciding
/// ``statements`` are there to inspect.
public struct Decision: Sendable, Hashable, CustomStringConvertible {
    /// Allow, explicit deny, or implicit deny. Closed: IAM has exactly these three outcomes.
    public enum Outcome: String, Sendable, Hashable, Codable, CaseIterable {
        /// At least one applicable statement allows, nothing denies, and every limiting policy allows.
        case allow
        /// A statement with `"Effect": "Deny"` applies; nothing can override it.
        case explicitDeny
        /// Nothing allows the request (or a session policy or permissions boundary does not), so it is
        /// refused by default.
        case implicitDeny
    }

    /// The outcome.
    public let outcome: Outcome
    /// For ``Outcome/explicitDeny``, every deny statement that applied; for ``Outcome/allow``, the allow
    /// statements that granted access (and those of limiting policies that permitted it); empty for
    /// ``Outcome/implicitDeny``.
    public let statements: [StatementReference]

    /// Creates a decision.
    /// - Parameters:
    ///   - outcome: The outcome.
    ///   - statements: The deciding statements.
    public init(outcome: Outcome, statements: [StatementReference] = []) {
        self.outcome = outcome
        self.statements = statements
    }

    /// An allow decision, for comparisons.
    public static let allow = Decision(outcome: .allow)
    /// An explicit deny decision, for comparisons.
    public static let explicitDeny = Decision(outcome: .explicitDeny)
    /// An implicit deny decision, for comparisons.
    public static let implicitDeny = Decision(outcome: .implicitDeny)

    /// Whether the request is allowed.
    public var isAllowed: Bool { self.outcome == .allow }

    /// Compares by the identifying value only (see the type documentation).
    public static func == (lhs: Decision, rhs: Decision) -> Bool { lhs.outcome == rhs.outcome }
    /// Hashes the same value equality compares.
    public func hash(into hasher: inout Hasher) { hasher.combine(self.outcome) }

    /// A short textual form.
    public var description: String {
        guard !self.statements.isEmpty else { return self.outcome.rawValue }
        return "\(self.outcome.rawValue) by " + self.statements.map(\.description).joined(separator: ", ")
    }
}

/// Points at one statement of one policy.
public struct StatementReference: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The policy's name (its ``Policy/name``, else its `Id`, else a position such as `identity[0]`).
    public var policyName: String
    /// The role the policy played in the evaluation.
    public var policyKind: PolicyKind
    /// The statement's 0-based index in the policy.
    public var index: Int
    /// The statement's `Sid`, if any.
    public var sid: String?

    /// Creates a reference.
    /// - Parameters:
    ///   - policyName: The policy's name.
    ///   - policyKind: The policy's role in the evaluation.
    ///   - index: The statement's index.
    ///   - sid: The statement's `Sid`.
    public init(policyName: String, policyKind: PolicyKind, index: Int, sid: String? = nil) {
        self.policyName = policyName
        self.policyKind = policyKind
        self.index = index
        self.sid = sid
    }

    /// For example `identity policy 'app-users' Statement[1] (Sid ReadOwnFolder)`.
    public var description: String {
        var text = "\(self.policyKind.displayName) '\(self.policyName)' Statement[\(self.index)]"
        if let sid, !sid.isEmpty { text += " (Sid \(sid))" }
        return text
    }
}

extension PolicyKind {
    var pluralName: String {
        switch self.base {
        case .identity: return "identity policies"
        case .resource: return "resource policies"
        case .trust: return "trust policies"
        case .session: return "session policies"
        case .permissionsBoundary: return "permissions boundaries"
        }
    }

    var displayName: String {
        switch self.base {
        case .identity: return "identity policy"
        case .resource: return "resource policy"
        case .trust: return "trust policy"
        case .session: return "session policy"
        case .permissionsBoundary: return "permissions boundary"
        }
    }
}

/// A decision together with its explanation, when one was asked for.
public struct EvaluationResult: Sendable {
    /// The decision.
    public let decision: Decision
    /// Why, statement by statement; `nil` unless requested.
    public let explanation: Explanation?
}
