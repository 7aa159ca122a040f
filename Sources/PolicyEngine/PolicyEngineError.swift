/// An error raised by PolicyEngine.
///
/// Errors compare equal by ``code`` alone, so tests can build the expected error with a static factory
/// and compare. A policy that fails to parse carries every problem found in ``diagnostics``, each with the
/// JSON path (and line and column) of the offending element.
public struct PolicyEngineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. Open-ended: new codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        enum Base: String, Sendable, Hashable {
            case malformedJSON
            case invalidPolicy
            case invalidRequest
        }

        let base: Base

        /// The policy text is not well-formed JSON (or not UTF-8).
        public static let malformedJSON = Code(base: .malformedJSON)
        /// The policy is JSON but breaks the IAM policy grammar; see ``PolicyEngineError/diagnostics``.
        public static let invalidPolicy = Code(base: .invalidPolicy)
        /// A request or principal description is unusable (for example a role ARN that is not an ARN).
        public static let invalidRequest = Code(base: .invalidRequest)

        /// A short textual form.
        public var description: String { self.base.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A human-readable explanation.
    public let reason: String
    /// Every problem found, errors first; warnings found along the way are included too.
    public let diagnostics: [PolicyDiagnostic]
    /// The source file that raised the error.
    public let file: String
    /// The line that raised the error.
    public let line: UInt

    /// Creates an error.
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - reason: A human-readable explanation.
    ///   - diagnostics: The individual problems, if any.
    public init(
        code: Code,
        reason: String,
        diagnostics: [PolicyDiagnostic] = [],
        file: String = #fileID,
        line: UInt = #line
    ) {
        self.code = code
        self.reason = reason
        self.diagnostics = diagnostics
        self.file = file
        self.line = line
    }

    /// The diagnostics whose severity is ``PolicyDiagnostic/Severity/error``.
    public var errors: [PolicyDiagnostic] { self.diagnostics.filter { $0.severity == .error } }

    /// Compares by the identifying value only (see the type documentation).
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    /// Hashes the same value equality compares.
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }

    /// A short textual form.
    public var description: String {
        var text = "PolicyEngineError.\(self.code): \(self.reason)"
        for diagnostic in self.errors.prefix(20) {
            text += "\n  \(diagnostic)"
        }
        return text
    }

    /// A policy whose text is not well-formed JSON.
    /// - Parameters:
    ///   - reason: What was wrong.
    ///   - diagnostics: The syntax error with its position.
    public static func malformedJSON(
        _ reason: String, diagnostics: [PolicyDiagnostic] = [], file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(code: .malformedJSON, reason: reason, diagnostics: diagnostics, file: file, line: line)
    }

    /// A policy that breaks the IAM grammar.
    /// - Parameters:
    ///   - reason: A summary.
    ///   - diagnostics: Every problem found.
    public static func invalidPolicy(
        _ reason: String, diagnostics: [PolicyDiagnostic] = [], file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(code: .invalidPolicy, reason: reason, diagnostics: diagnostics, file: file, line: line)
    }

    /// An unusable request, principal or session description.
    /// - Parameter reason: What was wrong.
    public static func invalidRequest(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .invalidRequest, reason: reason, file: file, line: line)
    }
}
