/// The answer to "may this caller do this to this record": allow or deny, the rule that decided, why,
/// and the fields a read hides. Text is built only when ``explanation`` is asked for.
public struct RuleDecision: Sendable, Hashable {
    /// Allow or deny.
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// The operation may proceed (possibly with fields hidden).
        case allow = "Allow"
        /// The operation is refused.
        case deny = "Deny"
    }

    /// Why the decision went the way it did.
    public enum Reason: Sendable, Hashable {
        /// A rule allows the operation to this caller.
        case granted
        /// An owner rule allows a create whose owner field is empty; the server fills it with the caller.
        case grantedFillingOwner(field: String)
        /// An owner or dynamic groups rule allows a list, filtered to the caller's records.
        case grantedFiltered
        /// Under v1, no rule lists the operation, so it is not protected.
        case unprotectedInV1
        /// The caller has no credentials at all.
        case signedOut
        /// The schema has no such model.
        case unknownModel
        /// The model has no rules.
        case noRules
        /// No rule uses the caller's auth mode (or IAM role).
        case noRuleForAuthMode
        /// Rules use the caller's auth mode, but none lists the operation.
        case noRuleForOperation
        /// The caller's token lacks the claim that names it.
        case missingIdentityClaim(claim: String)
        /// The caller is not an owner of the record.
        case notOwner(field: String)
        /// A create names another owner than the caller.
        case createdForSomeoneElse(field: String)
        /// An update changes an owner field and the caller is not an owner.
        case ownerChangeByNonOwner(field: String)
        /// The caller is in none of the rule's groups.
        case notInGroups
        /// The record's groups field lists none of the caller's groups.
        case notInGroupsField(field: String)
        /// The server's custom authorizer refused.
        case customDenied
        /// A custom rule applies but the server supplied no authorizer.
        case noCustomAuthorizer
        /// The operation needs the stored record to be decided.
        case recordNeeded
        /// A field's own rules refuse writing it.
        case fieldRefused(field: String)
    }

    /// A field hidden from a read (returned as null) and the rule set that hides it.
    public struct Redaction: Sendable, Hashable {
        /// The field.
        public var field: String
        /// The field's first rule, which (with the others) does not allow this read.
        public var rule: AuthRule?
        /// Why none of the field's rules allows it.
        public var reason: Reason
    }

    /// Allow or deny.
    public var outcome: Outcome
    /// The semantics the rules were read with.
    public var semantics: RuleSemantics
    /// The rule that decided: the rule that allowed, or the closest rule that refused.
    public var rule: AuthRule?
    /// The field the deciding rule is on, for field rules.
    public var field: String?
    /// Why.
    public var reason: Reason
    /// Fields a read hides.
    public var redactions: [Redaction]

    init(_ outcome: Outcome, _ reason: Reason, semantics: RuleSemantics, rule: AuthRule? = nil, field: String? = nil) {
        self.outcome = outcome
        self.semantics = semantics
        self.rule = rule
        self.field = field
        self.reason = reason
        self.redactions = []
    }

    /// Whether the operation is allowed.
    public var isAllowed: Bool { self.outcome == .allow }

    /// An allowing decision no rule made: for a server whose API takes no credentials at all and so has
    /// no rules to apply.
    /// - Parameter semantics: The semantics to report.
    public static func allowedWithoutRules(semantics: RuleSemantics) -> RuleDecision {
        RuleDecision(.allow, .granted, semantics: semantics)
    }
}
