/// The outcome of validating policy text: the policy if it is valid, and every diagnostic found.
public struct PolicyValidation: Sendable {
    /// The parsed policy, or `nil` if there were errors.
    public let policy: Policy?
    /// Every error and warning, in document order.
    public let diagnostics: [PolicyDiagnostic]

    /// The errors.
    public var errors: [PolicyDiagnostic] { self.diagnostics.filter { $0.severity == .error } }
    /// The warnings.
    public var warnings: [PolicyDiagnostic] { self.diagnostics.filter { $0.severity == .warning } }
    /// Whether the policy is valid (it may still have warnings).
    public var isValid: Bool { self.policy != nil }
}

extension Policy {
    /// Parses, validates and compiles a policy.
    /// - Parameters:
    ///   - text: The policy JSON.
    ///   - kind: The role the policy will play, which decides kind-specific rules (an identity policy must
    ///     not name a `Principal`, a resource policy must). `nil` skips those rules.
    ///   - name: A name for decisions and explanations, such as the file name.
    /// - Returns: The policy; its ``warnings`` list risky constructs.
    /// - Throws: ``PolicyEngineError`` with code ``PolicyEngineError/Code/malformedJSON`` or
    ///   ``PolicyEngineError/Code/invalidPolicy`` carrying every diagnostic (with JSON paths).
    public static func parse(_ text: String, kind: PolicyKind? = nil, name: String? = nil) throws(PolicyEngineError) -> Policy {
        try self.parse(bytes: Array(text.utf8), kind: kind, name: name)
    }

    /// Parses, validates and compiles a policy from UTF-8 bytes.
    /// - Parameters:
    ///   - bytes: The policy JSON as UTF-8.
    ///   - kind: The role the policy will play, or `nil` to skip kind-specific rules.
    ///   - name: A name for decisions and explanations.
    /// - Returns: The policy.
    /// - Throws: ``PolicyEngineError`` carrying every diagnostic.
    public static func parse(bytes: [UInt8], kind: PolicyKind? = nil, name: String? = nil) throws(PolicyEngineError) -> Policy {
        let (policy, diagnostics, syntaxError) = PolicyParser.run(bytes, kind: kind, name: name)
        if let policy { return policy }
        let errors = diagnostics.filter { $0.severity == .error }
        if syntaxError {
            throw .malformedJSON("the policy is not valid JSON: \(errors.first?.description ?? "unknown error")", diagnostics: diagnostics)
        }
        let count = errors.count
        throw .invalidPolicy("the policy has \(count) error\(count == 1 ? "" : "s")", diagnostics: diagnostics)
    }

    /// Validates policy text without throwing, returning the policy (if valid) and every diagnostic.
    /// - Parameters:
    ///   - text: The policy JSON.
    ///   - kind: The role the policy will play, or `nil` to skip kind-specific rules.
    ///   - name: A name for decisions and explanations.
    /// - Returns: The validation result.
    public static func validate(_ text: String, kind: PolicyKind? = nil, name: String? = nil) -> PolicyValidation {
        self.validate(bytes: Array(text.utf8), kind: kind, name: name)
    }

    /// Validates UTF-8 policy bytes without throwing.
    /// - Parameters:
    ///   - bytes: The policy JSON as UTF-8.
    ///   - kind: The role the policy will play, or `nil` to skip kind-specific rules.
    ///   - name: A name for decisions and explanations.
    /// - Returns: The validation result.
    public static func validate(bytes: [UInt8], kind: PolicyKind? = nil, name: String? = nil) -> PolicyValidation {
        let (policy, diagnostics, _) = PolicyParser.run(bytes, kind: kind, name: name)
        return PolicyValidation(policy: policy, diagnostics: diagnostics)
    }

    /// Validates a role's permissions policy against the providers its trust policy trusts: besides
    /// every other diagnostic, a warning (with its JSON path, line and column) for each variable of an
    /// identity provider the trust policy does not trust, such as `${graph.facebook.com:id}` in a role
    /// only Google users may assume: that role's sessions never carry the key, so the variable resolves
    /// to nothing.
    /// - Parameters:
    ///   - bytes: The permissions policy JSON as UTF-8.
    ///   - trustedProviders: The providers of the role's trust policy (``Policy/trustedProviders``).
    ///   - kind: The role the policy will play.
    ///   - name: A name for decisions and explanations.
    /// - Returns: The validation result.
    public static func validate(
        bytes: [UInt8], trustedProviders: Set<String>, kind: PolicyKind? = .identity, name: String? = nil
    ) -> PolicyValidation {
        let (policy, diagnostics, _) = PolicyParser.run(bytes, kind: kind, name: name, trustedProviders: trustedProviders)
        return PolicyValidation(policy: policy, diagnostics: diagnostics)
    }

    /// The identity providers a trust policy trusts, as the namespaces of their context keys: the
    /// `Federated` principals of its Allow statements (`accounts.google.com`, `graph.facebook.com`,
    /// `www.amazon.com`, `cognito-identity.amazonaws.com`, and `HOST/PATH` for an
    /// `arn:…:oidc-provider/HOST/PATH`). Empty for a policy that trusts no web identity.
    public var trustedProviders: Set<String> {
        var providers: Set<String> = []
        for statement in self.statements where statement.effect == .allow {
            guard case .principal(let set)? = statement.principal else { continue }
            for federated in set.federated {
                if let range = federated.range(of: ":oidc-provider/") {
                    providers.insert(String(federated[range.upperBound...]))
                } else if !federated.hasPrefix("arn:") {
                    providers.insert(federated)
                }
            }
        }
        return providers
    }
}
