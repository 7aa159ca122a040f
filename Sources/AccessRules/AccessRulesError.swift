/// An error raised by AccessRules.
///
/// Errors compare equal by ``code`` alone, so tests can build the expected error and compare. Rules that
/// fail to read carry every problem found in ``diagnostics``, each with its line and column.
public struct AccessRulesError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. Open-ended: new codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        enum Base: String, Sendable, Hashable {
            case malformedSchema
            case malformedJSON
            case invalidRules
            case unsupportedConstruct
        }

        let base: Base

        /// The schema is not valid GraphQL SDL.
        public static let malformedSchema = Code(base: .malformedSchema)
        /// The rules file is not well-formed JSON.
        public static let malformedJSON = Code(base: .malformedJSON)
        /// The text parses but its rules are wrong; see ``AccessRulesError/diagnostics``.
        public static let invalidRules = Code(base: .invalidRules)
        /// The rules are valid but the target cannot express one of their constructs; the reason names
        /// the path and the construct.
        public static let unsupportedConstruct = Code(base: .unsupportedConstruct)

        /// A short textual form.
        public var description: String { self.base.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A human-readable explanation.
    public let reason: String
    /// Every problem found, errors first.
    public let diagnostics: [RuleDiagnostic]

    /// Creates an error.
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - reason: A human-readable explanation.
    ///   - diagnostics: The individual problems, if any.
    public init(code: Code, reason: String, diagnostics: [RuleDiagnostic] = []) {
        self.code = code
        self.reason = reason
        self.diagnostics = diagnostics
    }

    /// `code: reason`.
    public var description: String { "\(self.code): \(self.reason)" }

    /// Errors are equal when their codes are.
    public static func == (lhs: AccessRulesError, rhs: AccessRulesError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only, matching equality.
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }
}
