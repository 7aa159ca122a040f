import WIFFoundation

/// Warnings for web-identity per-user policies: places where a policy cannot do what its author meant.
extension PolicyLinter {
    /// The keys each built-in provider's sessions carry, as the request-context builder
    /// (``WebIdentity``) sets them.
    static let providerKeys: [String: Set<String>] = [
        "graph.facebook.com": ["id", "app_id"],
        "accounts.google.com": ["sub", "aud", "oaud"],
        "www.amazon.com": ["user_id", "app_id"],
        "cognito-identity.amazonaws.com": ["sub", "aud", "amr"],
    ]

    /// Key names that carry a user's id, whichever provider issued them.
    static let idKeyNames: Set<String> = ["sub", "id", "user_id", "userid"]

    /// The provider namespace and key name of a variable such as `graph.facebook.com:id`.
    static func split(_ key: String) -> (namespace: String, name: String)? {
        guard let colon = key.lastIndex(of: ":") else { return nil }
        return (String(key[..<colon]), String(key[key.index(after: colon)...]))
    }

    /// Whether a variable stands for a user's id (`${graph.facebook.com:id}`, `${…:sub}`, `${aws:userid}`).
    static func isIdVariable(_ key: String) -> Bool {
        guard let parts = self.split(key.lowercased()) else { return false }
        return self.idKeyNames.contains(parts.name)
    }

    /// The variables in a policy value, as written and with their keys.
    static func variables(in value: String) -> [PolicyVariable] {
        guard value.containsVariableMarker else { return [] }
        return PatternCompiler.pattern(value, .init(wildcards: false, variables: true)).0.variables
    }

    mutating func lintWebIdentity(_ statement: Statement, path: String) {
        guard self.version == .v2012_10_17 else { return }
        let resourcePath = PolicyParser.member(path, {
            if case .notResource = statement.resource { return "NotResource" }
            return "Resource"
        }())
        for value in statement.resource?.patterns ?? [] {
            self.warnUnknownProviderKeys(in: value, path: resourcePath)
            self.warnNoSlashAfterId(value, path: resourcePath)
        }
        for condition in statement.conditions {
            let operatorPath = PolicyParser.member(PolicyParser.member(path, "Condition"), condition.operator.name)
            let keyPath = PolicyParser.member(operatorPath, condition.key)
            if condition.operator.acceptsPolicyVariables {
                for value in condition.values { self.warnUnknownProviderKeys(in: value, path: keyPath) }
            }
            let base = condition.operator.base.positive
            // Set operators are left alone: AWS documents ForAnyValue:StringLike for the Cognito amr key.
            if base == .stringLike, condition.operator.qualifier == nil, !condition.values.contains(where: Self.hasWildcard) {
                self.warn(
                    keyPath, "\(condition.operator.name) with no * or ? in any value compares for equality",
                    hint: "use \(condition.operator.isNegated ? "StringNotEquals" : "StringEquals") if that is meant")
            }
        }
    }

    /// Whether a value has a `*` or `?` wildcard outside `${…}`.
    static func hasWildcard(_ value: String) -> Bool {
        PatternCompiler.pattern(value, .init(wildcards: true, variables: true)).0.hasWildcards
    }

    /// Warns about `${provider:key}` where no provider issues that key, such as
    /// `${cognito-identity.amazon.com:sub}`: the variable resolves to nothing and the statement never applies.
    mutating func warnUnknownProviderKeys(in value: String, path: String) {
        for variable in Self.variables(in: value) {
            guard let (namespace, name) = Self.split(variable.key.name) else { continue }
            // A provider's namespace is a host name (with a path for OpenID Connect issuers); aws:, s3:,
            // jwt: and the like are not providers.
            if let trusted = self.trustedProviders, namespace.contains("."), !trusted.contains(namespace) {
                let list = trusted.isEmpty ? "no web-identity provider" : trusted.sorted().joined(separator: ", ")
                self.warn(
                    path, "\(variable.written): the role's trust policy trusts \(list), so its sessions never carry this key and the variable resolves to nothing",
                    hint: trusted.count == 1 ? trusted.first.map { "use ${\($0):\(Self.equivalentKey(name, of: $0))}" } : nil)
                continue
            }
            let namespaces = Array(Self.providerKeys.keys).sorted()
            if let known = Self.providerKeys[namespace] {
                if !known.contains(name) {
                    self.warn(
                        path, "\(variable.written): \(namespace) issues no key '\(name)', so the variable resolves to nothing",
                        hint: "\(namespace) issues \(known.sorted().joined(separator: ", "))")
                }
            } else if let close = closestMatch(namespace, in: namespaces) {
                self.warn(
                    path, "\(variable.written): no identity provider issues this key, so the variable resolves to nothing",
                    hint: "did you mean ${\(close):\(name)}?")
            }
        }
    }

    /// The key of `provider` that means what `name` means for another provider: its user id key for an
    /// id (`sub` for Google and OpenID Connect issuers, `id` for Facebook, `user_id` for Amazon).
    static func equivalentKey(_ name: String, of provider: String) -> String {
        guard self.idKeyNames.contains(name.lowercased()) else { return name }
        let known = self.providerKeys[provider] ?? []
        return ["sub", "id", "user_id"].first { known.contains($0) } ?? "sub"
    }

    /// Warns about a per-user resource whose id variable is not followed by `/`: the folder of `12` then
    /// also covers the folder of `123`.
    mutating func warnNoSlashAfterId(_ value: String, path: String) {
        let pattern = PatternCompiler.pattern(value, .init(wildcards: true, variables: true)).0
        for (index, token) in pattern.tokens.enumerated() where token.kind == .variable {
            let variable = pattern.variables[Int(token.start)]
            guard Self.isIdVariable(variable.key.name) else { continue }
            let next = index + 1 < pattern.tokens.count ? pattern.tokens[index + 1] : nil
            let followedBySlash = next.map { $0.kind == .literal && pattern.bytes[Int($0.start)] == UInt8(ascii: "/") } ?? false
            if !followedBySlash {
                self.warn(
                    path, "\(variable.written) is not followed by '/', so one user's resources include those of every user whose id starts with theirs",
                    hint: "end the folder with a slash, as in \(variable.written)/*")
            }
        }
    }

    /// Warns about an Allow of `s3:ListBucket` with no `s3:prefix` condition in a policy that gives each
    /// user their own objects: the listing reveals every user's keys.
    mutating func lintListingBesidePerUserObjects() {
        guard self.version == .v2012_10_17 else { return }
        let perUser = self.statements.contains { statement in
            statement.effect == .allow
                && (statement.resource?.patterns ?? []).contains { value in
                    Self.variables(in: value).contains { Self.isIdVariable($0.key.name) }
                }
        }
        guard perUser else { return }
        for (statement, path) in zip(self.statements, self.paths) where statement.effect == .allow {
            let names = statement.action.patterns.contains { action in
                let pattern = PatternCompiler.pattern(action, .init(wildcards: true, variables: false, foldCase: true)).0
                return Glob.match(pattern, "s3:listbucket", foldCase: false, context: Self.emptyContext)
            }
            let negated: Bool
            if case .notAction = statement.action { negated = true } else { negated = false }
            guard names != negated else { continue }
            if !statement.conditions.contains(where: { $0.key.lowercased() == "s3:prefix" }) {
                let actionPath = PolicyParser.member(path, negated ? "NotAction" : "Action")
                self.warn(
                    actionPath, "s3:ListBucket with no s3:prefix condition lists every user's keys beside per-user object statements",
                    hint: "allow it only with StringLike s3:prefix [\"<id>/\", \"<id>/*\"]")
            }
        }
    }
}
