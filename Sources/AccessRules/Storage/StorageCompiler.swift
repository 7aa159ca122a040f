import PolicyEngine
import WIFFoundation

/// The IAM policies that storage rules compile to: a permissions policy per role, and the roles' trust
/// policies when compiled for an identity pool.
public struct CompiledStoragePolicies: Sendable, Hashable {
    /// A role of the identity pool.
    public enum Role: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The guests' role.
        case unauthenticated
        /// The signed-in users' role.
        case authenticated
        /// A group's role.
        case group(String)

        /// The file the role's permissions policy is written to: `unauthenticated.json`,
        /// `authenticated.json`, `group-NAME.json`.
        public var fileName: String { self.baseName + ".json" }

        /// The file the role's trust policy is written to: `unauthenticated.trust.json`, …
        public var trustFileName: String { self.baseName + ".trust.json" }

        private var baseName: String {
            switch self {
            case .unauthenticated: return "unauthenticated"
            case .authenticated: return "authenticated"
            case .group(let name): return "group-\(name)"
            }
        }

        public var description: String {
            switch self {
            case .unauthenticated: return "the unauthenticated role"
            case .authenticated: return "the authenticated role"
            case .group(let name): return "the role of group \(name)"
            }
        }

        private var order: (Int, String) {
            switch self {
            case .unauthenticated: return (0, "")
            case .authenticated: return (1, "")
            case .group(let name): return (2, name)
            }
        }

        public static func < (lhs: Role, rhs: Role) -> Bool { lhs.order < rhs.order }
    }

    /// The engine compiled for.
    public var engine: StorageCompiler.Engine
    /// The context key standing for `{entity_id}`: `cognito-identity.amazonaws.com:sub`, `jwt:sub`, …
    public var subjectKey: String
    /// Each role's permissions policy, JSON.
    public var policies: [Role: String]
    /// Each role's trust policy, JSON, when compiled for an identity pool.
    public var trustPolicies: [Role: String]

    /// The roles, guests first, then signed-in users, then the groups by name.
    public var roles: [Role] { self.policies.keys.sorted() }
}

/// Compiles storage rules to IAM: for an identity pool, the unauthenticated role's policy (guest
/// rules), the authenticated role's (signed-in and owner rules) and one per group (the group's rules),
/// with `${cognito-identity.amazonaws.com:sub}` (or another subject key) for `{entity_id}`,
/// `s3:ListBucket` limited by `s3:prefix`, and explicit denies where a path inside another takes back
/// what the outer one gives. `read` is `s3:GetObject` and `s3:ListBucket`; `write` is `s3:PutObject`
/// and the multipart calls that finish or abandon a write; `delete` is `s3:DeleteObject`.
public struct StorageCompiler: Sendable {
    /// The S3 engine whose policy language the output must fit.
    public enum Engine: String, Sendable, Hashable, CaseIterable {
        /// AWS IAM (and the local stack).
        case aws
        /// SeaweedFS's STS: `${jwt:sub}` is the only subject variable; no guests, no group roles.
        case seaweedfs
        /// Ceph RGW's STS: no policy variables in `Resource`; no guests, no group roles.
        case cephRGW = "ceph-rgw"
    }

    /// The key the identity pool's `{entity_id}` is.
    public static let identityPoolSubjectKey = "cognito-identity.amazonaws.com:sub"

    /// The engine.
    public var engine: Engine
    /// The context key standing for `{entity_id}` on AWS: the identity pool's by default, or a
    /// provider's own (`accounts.google.com:sub`) for plain web identity. SeaweedFS always uses `jwt:sub`.
    public var subjectKey: String
    /// The identity pool whose roles' trust policies are written too; `nil` for permissions only.
    public var identityPoolId: String?

    /// Creates a compiler.
    public init(engine: Engine = .aws, subjectKey: String = StorageCompiler.identityPoolSubjectKey, identityPoolId: String? = nil) {
        self.engine = engine
        self.subjectKey = subjectKey
        self.identityPoolId = identityPoolId
    }

    /// The key `{entity_id}` stands for on the engine.
    public var effectiveSubjectKey: String { self.engine == .seaweedfs ? "jwt:sub" : self.subjectKey }

    /// Compiles the rules.
    /// - Parameter rules: The rules.
    /// - Returns: The policies.
    /// - Throws: ``AccessRulesError`` `unsupportedConstruct` naming the path and the construct the engine
    ///   (or IAM itself) cannot express.
    public func compile(_ rules: StorageRules) throws(AccessRulesError) -> CompiledStoragePolicies {
        try self.checkEngine(rules)
        var roles: [CompiledStoragePolicies.Role] = []
        if rules.paths.contains(where: { $0.grants.contains { $0.subject == .guest } }) { roles.append(.unauthenticated) }
        if rules.paths.contains(where: { $0.grants.contains { $0.subject == .authenticated || $0.subject == .entity } }) {
            roles.append(.authenticated)
        }
        roles += rules.groups.map { .group($0) }
        var policies: [CompiledStoragePolicies.Role: String] = [:]
        var trust: [CompiledStoragePolicies.Role: String] = [:]
        for role in roles {
            let statements = try self.statements(rules, role: role)
            policies[role] = PolicyWriter.json(version: .v2012_10_17, id: nil, statements: statements, pretty: true) + "\n"
            if let pool = self.identityPoolId {
                trust[role] = Self.trustPolicy(poolId: pool, amr: role == .unauthenticated ? "unauthenticated" : "authenticated")
            }
        }
        return CompiledStoragePolicies(engine: self.engine, subjectKey: self.effectiveSubjectKey, policies: policies, trustPolicies: trust)
    }

    /// The trust policy of an identity pool's role: `cognito-identity.amazonaws.com` for the pool's
    /// identities whose `amr` holds `amr`.
    public static func trustPolicy(poolId: String, amr: String) -> String {
        let statement = Statement(
            effect: .allow, principal: .principal(PrincipalSet(federated: ["cognito-identity.amazonaws.com"])),
            action: .action(["sts:AssumeRoleWithWebIdentity"]), resource: nil,
            conditions: [
                Condition(.stringEquals, key: "cognito-identity.amazonaws.com:aud", values: [poolId]),
                Condition(.forAnyValue(.stringLike), key: "cognito-identity.amazonaws.com:amr", values: [amr]),
            ])
        return PolicyWriter.json(version: .v2012_10_17, id: nil, statements: [statement], pretty: true) + "\n"
    }

    // MARK: Statements

    /// What a role may do under a path: on every identity's part of it, and (authenticated role) on
    /// the caller's own folders of an owner path.
    func access(_ path: StoragePath, role: CompiledStoragePolicies.Role) -> (any: Set<StorageAction>, own: Set<StorageAction>) {
        var any: Set<StorageAction> = []
        var own: Set<StorageAction> = []
        for grant in path.grants {
            switch (grant.subject, role) {
            case (.guest, .unauthenticated), (.authenticated, .authenticated): any.formUnion(grant.actions)
            case (.entity, .authenticated): own.formUnion(grant.actions)
            case (.groups(let names), .group(let name)) where names.containsSameBytes(as: name): any.formUnion(grant.actions)
            default: break
            }
        }
        return (any, own.subtracting(any))
    }

    func statements(_ rules: StorageRules, role: CompiledStoragePolicies.Role) throws(AccessRulesError) -> [Statement] {
        let variable = "${\(self.effectiveSubjectKey)}"
        let bucketArn = "arn:aws:s3:::\(rules.bucket)"
        var statements: [Statement] = []
        for (index, path) in rules.paths.enumerated() {
            let (any, own) = self.access(path, role: role)
            let everyone = path.beforeEntity + (path.hasEntity ? "*" + path.afterEntity : "")
            let mine = path.beforeEntity + variable + path.afterEntity
            statements += Self.allow(any, folder: everyone, bucketArn: bucketArn, sid: "Path\(index)")
            statements += Self.allow(own, folder: mine, bucketArn: bucketArn, sid: "Path\(index)Own")
        }
        // A path inside another governs its own keys: what the outer path gives and the inner one does not is denied there.
        for (index, inner) in rules.paths.enumerated() {
            for outer in rules.paths where outer.pattern != inner.pattern && !outer.hasEntity && inner.beforeEntity.utf8.starts(with: outer.folder.utf8) {
                let outerAccess = self.access(outer, role: role).any
                let (any, own) = self.access(inner, role: role)
                let taken = outerAccess.subtracting(any)
                guard !taken.isEmpty else { continue }
                let everyone = inner.beforeEntity + (inner.hasEntity ? "*" + inner.afterEntity : "")
                let mine = inner.beforeEntity + variable + inner.afterEntity
                let partly = taken.intersection(own)
                if let action = partly.subtracting([.list]).sorted().first {
                    throw AccessRulesError(
                        code: .unsupportedConstruct,
                        reason: "'\(inner.pattern)' inside '\(outer.pattern)': \(role) may \(action.rawValue) everywhere under '\(outer.pattern)' but only in its own folders of '\(inner.pattern)', and IAM cannot deny the other owners' folders of an object action without denying the caller's own; give the owner rule's actions to '\(outer.pattern)''s subject on '\(inner.pattern)' too, or move the owner path out")
                }
                let objects = taken.subtracting([.list]).sorted()
                if !objects.isEmpty {
                    statements.append(
                        Statement(
                            sid: "Path\(index)Inside", effect: .deny, action: .action(objects.flatMap(Self.iamActions)),
                            resource: .resource(["\(bucketArn)/\(everyone)*"])))
                }
                if taken.contains(.list) {
                    var conditions = [Condition(.stringLike, key: "s3:prefix", values: [everyone, everyone + "*"])]
                    if partly.contains(.list) { conditions.append(Condition(.stringNotLike, key: "s3:prefix", values: [mine, mine + "*"])) }
                    statements.append(
                        Statement(
                            sid: "Path\(index)InsideList", effect: .deny, action: .action(["s3:ListBucket"]), resource: .resource([bucketArn]),
                            conditions: conditions))
                }
            }
        }
        return statements
    }

    /// The allow statements of a set of actions on a folder pattern (`public/`, `protected/*/`,
    /// `private/${…}/`): objects under it, and listings whose prefix is in it.
    static func allow(_ actions: Set<StorageAction>, folder: String, bucketArn: String, sid: String) -> [Statement] {
        var statements: [Statement] = []
        let objects = actions.subtracting([.list]).sorted()
        if !objects.isEmpty {
            statements.append(
                Statement(sid: sid + "Objects", effect: .allow, action: .action(objects.flatMap(Self.iamActions)), resource: .resource(["\(bucketArn)/\(folder)*"])))
        }
        if actions.contains(.list) {
            statements.append(
                Statement(
                    sid: sid + "List", effect: .allow, action: .action(["s3:ListBucket"]), resource: .resource([bucketArn]),
                    conditions: [Condition(.stringLike, key: "s3:prefix", values: [folder, folder + "*"])]))
        }
        return statements
    }

    /// The S3 actions of a storage action on objects.
    static func iamActions(_ action: StorageAction) -> [String] {
        switch action {
        case .get: return ["s3:GetObject"]
        case .list: return ["s3:ListBucket"]
        case .write: return ["s3:PutObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"]
        case .delete: return ["s3:DeleteObject"]
        }
    }

    // MARK: Engines

    func checkEngine(_ rules: StorageRules) throws(AccessRulesError) {
        let engineName = self.engine == .seaweedfs ? "SeaweedFS" : "Ceph RGW"
        var problems: [String] = []
        for path in rules.paths {
            for grant in path.grants {
                switch (grant.subject, self.engine) {
                case (_, .aws): break
                case (.guest, _):
                    problems.append("'\(path.pattern)': a guest rule needs an identity pool's unauthenticated role, and \(engineName)'s STS serves signed-in web identities only")
                case (.groups, _):
                    problems.append("'\(path.pattern)': a groups rule needs the identity pool to choose a group's role, which \(engineName)'s STS cannot")
                case (.entity, .cephRGW):
                    problems.append("'\(path.pattern)': an owner rule needs a policy variable in Resource, which Ceph RGW refuses (PutRolePolicy answers 400); use one role per user, as in policies/ceph-rgw/role-per-user")
                default: break
                }
            }
        }
        for path in rules.paths where path.pattern.contains("$") || path.pattern.contains("?") {
            problems.append("'\(path.pattern)': IAM reads '$' and '?' in a resource as a variable and a wildcard, so the path cannot be written as it is")
        }
        guard !problems.isEmpty else { return }
        throw AccessRulesError(
            code: .unsupportedConstruct, reason: "cannot compile for \(self.engine.rawValue): " + problems.joined(separator: "; "))
    }
}
