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
}
