/// A parsed and validated IAM policy, ready to evaluate.
///
/// Parse once and evaluate many times: parsing also compiles the policy (actions lowercased, ARNs split,
/// CIDRs, dates and numbers parsed, variables tokenised), so evaluation does no parsing.
///
/// ```swift
/// let policy = try Policy.parse(json, kind: .identity, name: "app-users")
/// for warning in policy.warnings { print(warning) }
/// ```
public struct Policy: Sendable {
    /// The `Version` element, or `nil` when absent (which means 2008-10-17: no policy variables).
    public let version: PolicyVersion?
    /// The `Id` element.
    public let id: String?
    /// The statements, in document order.
    public let statements: [Statement]
    /// The kind the policy was validated as, if one was given.
    public let kind: PolicyKind?
    /// A name used in decisions and explanations (a file name, a managed policy name, …).
    public var name: String?
    /// Risky but legal constructs found while parsing.
    public let warnings: [PolicyDiagnostic]
    let compiled: CompiledPolicy

    init(
        version: PolicyVersion?, id: String?, statements: [Statement], kind: PolicyKind?, name: String?,
        warnings: [PolicyDiagnostic], compiled: CompiledPolicy
    ) {
        self.version = version
        self.id = id
        self.statements = statements
        self.kind = kind
        self.name = name
        self.warnings = warnings
        self.compiled = compiled
    }

    /// The version that governs evaluation: the `Version` element, or 2008-10-17 when absent.
    public var effectiveVersion: PolicyVersion { self.version ?? .v2008_10_17 }

    /// Builds a policy from statements, validating it exactly as if it had been parsed from JSON.
    /// - Parameters:
    ///   - version: The policy language version; variables are substituted only under 2012-10-17.
    ///   - id: An optional `Id`.
    ///   - statements: The statements.
    ///   - kind: The kind to validate as, if known.
    ///   - name: A name for decisions and explanations.
    /// - Throws: ``PolicyEngineError/Code/invalidPolicy`` with every problem found.
    public init(
        version: PolicyVersion? = .v2012_10_17, id: String? = nil, statements: [Statement], kind: PolicyKind? = nil,
        name: String? = nil
    ) throws(PolicyEngineError) {
        let text = PolicyWriter.json(version: version, id: id, statements: statements, pretty: false)
        self = try Policy.parse(text, kind: kind, name: name)
    }

    /// The policy as JSON text.
    /// - Parameter pretty: Whether to indent the output.
    /// - Returns: JSON that parses back to an equal policy.
    public func json(pretty: Bool = true) -> String {
        PolicyWriter.json(version: self.version, id: self.id, statements: self.statements, pretty: pretty)
    }
}

extension Policy: Equatable {
    /// Policies are equal when their version, id and statements are; the name and warnings do not count.
    public static func == (lhs: Policy, rhs: Policy) -> Bool {
        lhs.version == rhs.version && lhs.id == rhs.id && lhs.statements == rhs.statements
    }
}
