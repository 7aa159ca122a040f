import PolicyEngine

/// Checks that compiled policies make the rules' own decisions on a generated matrix: guests, signed-in
/// identities with ordinary and adversarial ids (`*`, `?`, `/`, `..`, one id a prefix of another, a
/// very long one, non-ASCII), each group's members; every path's folders of each id, their parents,
/// and keys outside every path; reading, writing, deleting, and listing with and without prefixes. The
/// rules decide by ``StorageRules/decide(_:as:)``; IAM by ``PolicySimulator`` on the role the caller
/// would get.
public enum StorageProof {
    /// A request on which the compiled policies and the rules disagree.
    public struct Counterexample: Sendable, Hashable, CustomStringConvertible {
        /// The caller.
        public var principal: StoragePrincipal
        /// The role the caller gets; `nil` when the rules compile to no role for it.
        public var role: CompiledStoragePolicies.Role?
        /// The request.
        public var request: StorageRequest
        /// What the rules decided, and why.
        public var rules: StorageRules.Decision
        /// What IAM decided.
        public var iam: Decision

        public var description: String {
            let roleText = self.role.map { "\($0)" } ?? "no role"
            return "\(self.principal) (\(roleText)), \(self.request): the rules say \(self.rules), IAM says \(self.iam)"
        }
    }

    /// What the proof found.
    public struct Result: Sendable {
        /// How many (caller, request) pairs were decided both ways.
        public var checked: Int
        /// The disagreements; none when the proof holds.
        public var counterexamples: [Counterexample]
        /// Whether the compiled policies agreed with the rules everywhere.
        public var holds: Bool { self.counterexamples.isEmpty }
    }

    /// Identity ids the matrix uses: two ordinary ones, one the prefix of the other, and ids that try
    /// to be wildcards, separators, parent folders, very long or non-ASCII.
    public static let identityIds: [String] = [
        "us-east-1:11111111-1111-4111-8111-111111111111",
        "us-east-1:22222222-2222-4222-8222-222222222222",
        "us-east-1:1111",
        "*", "?", "/", "..", "a/b", "${cognito-identity.amazonaws.com:sub}",
        String(repeating: "x", count: 300),
        "us-east-1:é-ü-漢",
    ]

    /// The identity pool id of the simulated sessions.
    public static let identityPoolId = "us-east-1:00000000-0000-4000-8000-000000000001"

    /// Runs the proof.
    /// - Parameters:
    ///   - rules: The rules.
    ///   - compiled: Their compiled policies.
    ///   - ids: The identity ids of the matrix.
    /// - Returns: The number of checks and the counterexamples.
    /// - Throws: ``AccessRulesError`` `invalidRules` when a compiled policy is not a valid IAM policy.
    public static func check(
        _ rules: StorageRules, compiled: CompiledStoragePolicies, ids: [String] = StorageProof.identityIds
    ) throws(AccessRulesError) -> Result {
        var simulators: [CompiledStoragePolicies.Role: PolicySimulator] = [:]
        for (role, policy) in compiled.policies {
            do {
                simulators[role] = try PolicySimulator(identityJSON: [policy])
            } catch {
                throw AccessRulesError(code: .invalidRules, reason: "the compiled policy of \(role) is not a valid IAM policy: \(error.reason)")
            }
        }
        var principals: [StoragePrincipal] = [.guest]
        principals += ids.map { .identity($0) }
        for group in rules.groups {
            principals += ids.prefix(3).map { .identity($0, group: group) }
        }
        let requests = Self.requests(rules, ids: ids)
        var checked = 0
        var counterexamples: [Counterexample] = []
        for (index, principal) in principals.enumerated() {
            let role: CompiledStoragePolicies.Role
            let id: String
            switch principal {
            case .guest: (role, id) = (.unauthenticated, ids.first ?? "us-east-1:guest")
            case .identity(let identity, nil): (role, id) = (.authenticated, identity)
            case .identity(let identity, let group?): (role, id) = (.group(group), identity)
            }
            let simulator = simulators[role]
            let session: WebIdentitySession
            do {
                session = try WebIdentitySession(
                    .cognito(identityId: id, identityPoolId: Self.identityPoolId, amr: principal == .guest ? ["unauthenticated"] : ["authenticated"]),
                    role: "arn:aws:iam::000000000000:role/storage-proof-\(index)", sessionName: "storage-proof",
                    additionalKeys: [compiled.subjectKey: ContextValue(id)])
            } catch {
                throw AccessRulesError(code: .invalidRules, reason: "cannot simulate \(principal): \(error.reason)")
            }
            for request in requests {
                let expected = rules.decide(request, as: principal)
                let actual: Decision
                if let simulator {
                    switch request {
                    case .get(let key): actual = simulator.decide(.s3("GetObject"), "arn:aws:s3:::\(rules.bucket)/\(key)", as: session)
                    case .put(let key): actual = simulator.decide(.s3("PutObject"), "arn:aws:s3:::\(rules.bucket)/\(key)", as: session)
                    case .delete(let key): actual = simulator.decide(.s3("DeleteObject"), "arn:aws:s3:::\(rules.bucket)/\(key)", as: session)
                    case .list(let prefix): actual = simulator.decideListBucket(rules.bucket, prefix: prefix, as: session)
                    }
                } else {
                    actual = .implicitDeny
                }
                checked += 1
                if expected.allowed != (actual == .allow) {
                    counterexamples.append(
                        Counterexample(principal: principal, role: simulator == nil ? nil : role, request: request, rules: expected, iam: actual))
                }
            }
        }
        return Result(checked: checked, counterexamples: counterexamples)
    }

    /// The requests of the matrix: every path's folders of each id (and of one id no caller has), their
    /// parents, keys outside every path, and the listings of all of their prefixes.
    static func requests(_ rules: StorageRules, ids: [String]) -> [StorageRequest] {
        var keys: [String] = ["outside/file.txt", "file.txt"]
        for path in rules.paths {
            let folders = path.hasEntity ? (ids + ["someone-else"]).map { path.beforeEntity + $0 + path.afterEntity } : [path.folder]
            for folder in folders {
                keys += [folder + "file.txt", folder + "dir/file.txt", folder]
            }
            keys += [path.beforeEntity + "file.txt", String(path.beforeEntity.dropLast()), String(path.folder.dropLast()) + "-sibling/file.txt"]
        }
        keys = Self.unique(keys.filter { !$0.isEmpty })
        var prefixes: [String?] = [nil, ""]
        for key in keys {
            prefixes.append(key)
            var text = ""
            for character in key {
                text.append(character)
                if character == "/" { prefixes.append(text) }
            }
        }
        var requests: [StorageRequest] = []
        for key in keys { requests += [.get(key: key), .put(key: key), .delete(key: key)] }
        for prefix in Self.unique(prefixes) { requests.append(.list(prefix: prefix)) }
        return requests
    }

    private static func unique<T: Hashable>(_ values: [T]) -> [T] {
        var seen: Set<T> = []
        return values.filter { seen.insert($0).inserted }
    }
}
