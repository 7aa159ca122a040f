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
    /// The user whose folder is reached; never equal to ``callerId``.
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

    /// One line for people.
    public var summary: String {
        var text = "user '\(self.callerId)' may \(self.action) \(self.resource)"
        if !self.requestKeys.isEmpty {
            let keys = self.requestKeys.keys.sorted().map { "\($0)=\"\(self.requestKeys[$0] ?? "")\"" }
            text += " with " + keys.joined(separator: ", ")
        }
        if let escalation {
            return text + ", which \(escalation), the folder of user '\(self.ownerId)' included"
        }
        return text + ", which reaches the folder of user '\(self.ownerId)'"
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
