/// The answer of ``PolicyProver``: a proof, a counterexample the evaluator confirms, or no answer with the
/// reason.
public enum IsolationResult: Sendable, Hashable {
    /// No two distinct ids can reach each other's folders, for every id the alphabet admits.
    case proved(IsolationProof)
    /// A request by one user that reaches another user's folder; it has been replayed through
    /// ``PolicySimulator`` and is allowed.
    case counterexample(IsolationCounterexample)
    /// The prover could neither prove isolation nor find a counterexample.
    case undecided(IsolationUndecided)

    /// `proved`, `counterexample` or `undecided`.
    public var name: String {
        switch self {
        case .proved: "proved"
        case .counterexample: "counterexample"
        case .undecided: "undecided"
        }
    }
}

/// What a proof of isolation covered.
public struct IsolationProof: Sendable, Hashable {
    /// The bucket whose folders were checked.
    public var bucket: String
    /// The folder template.
    public var template: PartitionTemplate
    /// The context key that carries the id.
    public var idKey: String
    /// The ids assumed.
    public var alphabet: IdentifierAlphabet
    /// The object actions proved, such as `s3:GetObject`.
    public var objectActions: [String]
    /// The listing actions proved, with any `s3:prefix` (present or absent) and `s3:delimiter`.
    public var listingActions: [String]
    /// Why each action is safe, one line per action: the policy group or deny statement that confines it.
    public var reasons: [String]
    /// Actions the policies name that are neither object nor listing actions, and so were not checked.
    public var actionsNotConsidered: [String]
}

/// A request by the user ``callerId`` that the policies allow and that reaches the folder of ``ownerId``.
public struct IsolationCounterexample: Sendable, Hashable {
    /// The user making the request.
    public var callerId: String
    /// The user whose folder is reached; another id than ``callerId`` unless the two are users of roles
    /// with different id keys (the same id of two providers is two users).
    public var ownerId: String
    /// The action, such as `s3:GetObject`.
    public var action: String
    /// The resource ARN.
    public var resource: String
    /// The request's keys besides the id: `s3:prefix` and `s3:delimiter` for a listing (absent keys are not
    /// listed).
    public var requestKeys: [String: String]
    /// The statements that allowed the replayed request.
    public var allowedBy: [StatementReference]
    /// The ids assumed.
    public var alphabet: IdentifierAlphabet
    /// For an action on the bucket itself that hands the caller other users' folders indirectly (such as
    /// `s3:PutBucketPolicy`), how; `nil` for a request that reaches the folder directly.
    public var escalation: String? = nil
    /// The caller's role, when several roles were proved together.
    public var callerRole: String? = nil
    /// The owner's role, when several roles were proved together.
    public var ownerRole: String? = nil

    /// One line for people.
    public var summary: String {
        var text = "user '\(self.callerId)'\(Self.of(self.callerRole)) may \(self.action) \(self.resource)"
        if !self.requestKeys.isEmpty {
            let keys = self.requestKeys.keys.sorted().map { "\($0)=\"\(self.requestKeys[$0] ?? "")\"" }
            text += " with " + keys.joined(separator: ", ")
        }
        if let escalation {
            return text + ", which \(escalation), the folder of user '\(self.ownerId)'\(Self.of(self.ownerRole)) included"
        }
        return text + ", which reaches the folder of user '\(self.ownerId)'\(Self.of(self.ownerRole))"
    }

    private static func of(_ role: String?) -> String {
        // A proof of one policy set has no role names: nothing is said rather than `of role ''`.
        guard let role, !role.isEmpty else { return "" }
        return " of role '\(role)'"
    }
}

/// Why the prover gave no answer.
public struct IsolationUndecided: Sendable, Hashable {
    /// The construct outside what the prover decides, such as a statement's resource or a condition key.
    public var construct: String
    /// The explanation.
    public var reason: String
    /// The ids assumed.
    public var alphabet: IdentifierAlphabet
}

/// One role of several whose users keep folders in one bucket: its policies, where its users' folders are,
/// and how its users are named.
public struct IsolationRole: Sendable {
    /// The role's name, for answers.
    public var name: String
    /// The role's policies (identity policies, and any bucket policy, session policies and boundary).
    public var policies: PolicyEvaluator
    /// Where each of the role's users' folders is.
    public var template: PartitionTemplate
    /// The context key that carries the role's users' ids.
    public var idKey: String
    /// The characters of the role's users' ids.
    public var alphabet: IdentifierAlphabet

    /// Creates a role.
    /// - Parameters:
    ///   - name: The role's name.
    ///   - policies: The role's policies.
    ///   - template: Where each user's folder is.
    ///   - idKey: The context key that carries the id.
    ///   - alphabet: The characters ids may contain.
    public init(
        name: String, policies: PolicyEvaluator, template: PartitionTemplate, idKey: String, alphabet: IdentifierAlphabet = .any
    ) {
        self.name = name
        self.policies = policies
        self.template = template
        self.idKey = idKey
        self.alphabet = alphabet
    }
}

/// The answer for the users of the role ``caller`` against the folders of the users of ``owner``.
public struct RoleIsolationResult: Sendable, Hashable {
    /// The role making the requests.
    public var caller: String
    /// The role whose users' folders are at stake (the caller's own role for the pair of a role with itself).
    public var owner: String
    /// The proof, counterexample or reason for no answer.
    public var result: IsolationResult
}
