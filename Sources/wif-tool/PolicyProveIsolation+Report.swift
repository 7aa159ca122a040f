import PolicyEngine

/// The JSON form of one prover answer: `result` and the details of that kind of answer.
struct IsolationReport: Encodable {
    var role: String?
    /// For a pair of roles: the role making the requests and the role whose users' folders are at stake.
    var caller: String?
    var owner: String?
    var result: String
    var alphabet: String
    // proved
    var bucket: String?
    var template: String?
    var idKey: String?
    var objectActions: [String]?
    var listingActions: [String]?
    var reasons: [String]?
    var actionsNotConsidered: [String]?
    // counterexample
    var callerId: String?
    var ownerId: String?
    var action: String?
    var resource: String?
    var requestKeys: [String: String]?
    var allowedBy: [String]?
    // undecided
    var construct: String?
    var reason: String?

    init(_ result: IsolationResult, role: String?) {
        self.role = role
        self.result = result.name
        switch result {
        case .proved(let proof):
            self.alphabet = proof.alphabet.description
            self.bucket = proof.bucket
            self.template = proof.template.description
            self.idKey = proof.idKey
            self.objectActions = proof.objectActions
            self.listingActions = proof.listingActions
            self.reasons = proof.reasons
            self.actionsNotConsidered = proof.actionsNotConsidered
        case .counterexample(let found):
            self.alphabet = found.alphabet.description
            self.callerId = found.callerId
            self.ownerId = found.ownerId
            self.action = found.action
            self.resource = found.resource
            self.requestKeys = found.requestKeys
            self.allowedBy = found.allowedBy.map(\.description)
        case .undecided(let undecided):
            self.alphabet = undecided.alphabet.description
            self.construct = undecided.construct
            self.reason = undecided.reason
        }
    }

    init(_ result: IsolationResult, caller: String, owner: String) {
        self.init(result, role: nil)
        self.caller = caller
        self.owner = owner
    }

    /// The answer for people: the result on the first line, the details indented below it.
    static func text(_ result: IsolationResult, role: String?) -> String {
        var lines: [String] = []
        let label = role.map { "role \($0): " } ?? ""
        switch result {
        case .proved(let proof):
            lines.append("\(label)proved: no user can reach another user's folder \(proof.bucket)/\(proof.template)")
            lines.append("  ids: \(proof.alphabet), the value of \(proof.idKey)")
            lines.append("  object actions: \(proof.objectActions.count) (\(proof.objectActions.prefix(5).joined(separator: ", "))…)")
            lines.append("  listing actions: \(proof.listingActions.joined(separator: ", ")), any s3:prefix and s3:delimiter")
            lines += proof.reasons.map { "  \($0)" }
            if !proof.actionsNotConsidered.isEmpty {
                lines.append("  not considered (neither object nor listing actions): \(proof.actionsNotConsidered.joined(separator: ", "))")
            }
        case .counterexample(let found):
            lines.append("\(label)counterexample: \(found.summary)")
            lines.append("  ids: \(found.alphabet)")
            lines.append("  allowed by: \(found.allowedBy.map(\.description).joined(separator: "; "))")
        case .undecided(let undecided):
            lines.append("\(label)undecided: \(undecided.construct)")
            lines.append("  \(undecided.reason)")
            lines.append("  ids: \(undecided.alphabet)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// The JSON form of the answers for several roles.
struct RolesReport: Encodable {
    var result: String
    /// Each role against its own users.
    var roles: [IsolationReport]
    /// Each role against another role's users.
    var pairs: [IsolationReport]?
}
