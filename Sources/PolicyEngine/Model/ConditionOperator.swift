import WIFFoundation

/// A condition operator such as `StringLike`, `ForAnyValue:StringEquals` or `DateLessThanIfExists`.
///
/// Open-ended: new operators may be added without breaking callers. Build one from a static member and the
/// modifiers, or parse the name used in policies:
/// ```swift
/// let op = ConditionOperator.forAnyValue(.stringLike)
/// ConditionOperator("ForAnyValue:StringLike") == op // true
/// ```
public struct ConditionOperator: Sendable, Hashable, CustomStringConvertible, Codable {
    enum Base: String, Sendable, Hashable, CaseIterable {
        case stringEquals = "StringEquals"
        case stringNotEquals = "StringNotEquals"
        case stringEqualsIgnoreCase = "StringEqualsIgnoreCase"
        case stringNotEqualsIgnoreCase = "StringNotEqualsIgnoreCase"
        case stringLike = "StringLike"
        case stringNotLike = "StringNotLike"
        case numericEquals = "NumericEquals"
        case numericNotEquals = "NumericNotEquals"
        case numericLessThan = "NumericLessThan"
        case numericLessThanEquals = "NumericLessThanEquals"
        case numericGreaterThan = "NumericGreaterThan"
        case numericGreaterThanEquals = "NumericGreaterThanEquals"
        case dateEquals = "DateEquals"
        case dateNotEquals = "DateNotEquals"
        case dateLessThan = "DateLessThan"
        case dateLessThanEquals = "DateLessThanEquals"
        case dateGreaterThan = "DateGreaterThan"
        case dateGreaterThanEquals = "DateGreaterThanEquals"
        case bool = "Bool"
        case binaryEquals = "BinaryEquals"
        case ipAddress = "IpAddress"
        case notIpAddress = "NotIpAddress"
        case arnEquals = "ArnEquals"
        case arnLike = "ArnLike"
        case arnNotEquals = "ArnNotEquals"
        case arnNotLike = "ArnNotLike"
        case null = "Null"

        var family: Family {
            switch self {
            case .stringEquals, .stringNotEquals, .stringEqualsIgnoreCase, .stringNotEqualsIgnoreCase,
                .stringLike, .stringNotLike:
                return .string
            case .numericEquals, .numericNotEquals, .numericLessThan, .numericLessThanEquals,
                .numericGreaterThan, .numericGreaterThanEquals:
                return .numeric
            case .dateEquals, .dateNotEquals, .dateLessThan, .dateLessThanEquals, .dateGreaterThan,
                .dateGreaterThanEquals:
                return .date
            case .bool: return .bool
            case .binaryEquals: return .binary
            case .ipAddress, .notIpAddress: return .ipAddress
            case .arnEquals, .arnLike, .arnNotEquals, .arnNotLike: return .arn
            case .null: return .null
            }
        }

        /// Negated operators match when none of the policy values match (`StringNotEquals` with several
        /// values matches only if the request value equals none of them).
        var isNegated: Bool {
            switch self {
            case .stringNotEquals, .stringNotEqualsIgnoreCase, .stringNotLike, .numericNotEquals, .dateNotEquals,
                .notIpAddress, .arnNotEquals, .arnNotLike:
                return true
            default:
                return false
            }
        }

        /// The positive operator a negated one is the negation of.
        var positive: Base {
            switch self {
            case .stringNotEquals: return .stringEquals
            case .stringNotEqualsIgnoreCase: return .stringEqualsIgnoreCase
            case .stringNotLike: return .stringLike
            case .numericNotEquals: return .numericEquals
            case .dateNotEquals: return .dateEquals
            case .notIpAddress: return .ipAddress
            case .arnNotEquals: return .arnEquals
            case .arnNotLike: return .arnLike
            default: return self
            }
        }
    }

    /// The family of values an operator compares. Open-ended.
    public struct Family: Sendable, Hashable, CustomStringConvertible {
        enum Base: String, Sendable, Hashable {
            case string, numeric, date, bool, binary, ipAddress, arn, null
        }

        let base: Base

        /// String operators; their values may contain policy variables.
        public static let string = Family(base: .string)
        /// Numeric operators.
        public static let numeric = Family(base: .numeric)
        /// Date operators (ISO 8601 or epoch seconds).
        public static let date = Family(base: .date)
        /// `Bool`.
        public static let bool = Family(base: .bool)
        /// `BinaryEquals` (base64 values).
        public static let binary = Family(base: .binary)
        /// `IpAddress` and `NotIpAddress` (IPv4 and IPv6 CIDR).
        public static let ipAddress = Family(base: .ipAddress)
        /// ARN operators; their values may contain policy variables.
        public static let arn = Family(base: .arn)
        /// `Null`, which tests whether a key is absent.
        public static let null = Family(base: .null)

        /// A short textual form.
        public var description: String { self.base.rawValue }
    }

    /// The `ForAnyValue:` / `ForAllValues:` prefix for multi-valued context keys. Open-ended.
    public struct SetQualifier: Sendable, Hashable, CustomStringConvertible {
        enum Base: String, Sendable, Hashable {
            case forAnyValue = "ForAnyValue"
            case forAllValues = "ForAllValues"
        }

        let base: Base

        /// At least one request value must match (false when the key is absent or its set is empty).
        public static let forAnyValue = SetQualifier(base: .forAnyValue)
        /// Every request value must match (true when the key is absent or its set is empty).
        public static let forAllValues = SetQualifier(base: .forAllValues)

        /// A short textual form.
        public var description: String { self.base.rawValue }
    }

    let base: Base
    /// The set qualifier, if any.
    public let qualifier: SetQualifier?
    /// Whether the `…IfExists` suffix is present: the condition holds when the key is absent.
    public let isIfExists: Bool

    init(base: Base, qualifier: SetQualifier? = nil, isIfExists: Bool = false) {
        self.base = base
        self.qualifier = qualifier
        self.isIfExists = isIfExists
    }

    /// Parses an operator name exactly as written in a policy, such as `ForAllValues:StringLikeIfExists`.
    /// Names are case-sensitive, as in IAM. Returns `nil` for unknown names and invalid combinations
    /// (`NullIfExists`, `ForAnyValue:Null`).
    /// - Parameter name: The operator name.
    public init?(_ name: String) {
        switch Self.parse(name) {
        case .success(let op): self = op
        case .failure: return nil
        }
    }

    enum ParseProblem: Error {
        case unknown(suggestion: String?)
        case unknownQualifier(suggestion: String?)
        case invalidCombination(String)
    }

    static func parse(_ name: String) -> Result<ConditionOperator, ParseProblem> {
        var rest = Substring(name)
        var qualifier: SetQualifier?
        if let colon = rest.firstIndex(of: ":") {
            let prefix = rest[..<colon]
            switch prefix {
            case "ForAnyValue": qualifier = .forAnyValue
            case "ForAllValues": qualifier = .forAllValues
            default:
                let suggestion = closestMatch(String(prefix), in: ["ForAnyValue", "ForAllValues"])
                return .failure(.unknownQualifier(suggestion: suggestion))
            }
            rest = rest[rest.index(after: colon)...]
        }
        var ifExists = false
        if rest.hasSuffix("IfExists") {
            ifExists = true
            rest = rest.dropLast("IfExists".count)
        }
        guard let base = Base(rawValue: String(rest)) else {
            let candidates = Base.allCases.map(\.rawValue)
            var suggestion = closestMatch(String(rest), in: candidates)
            if let found = suggestion {
                suggestion = (qualifier.map { "\($0):" } ?? "") + found + (ifExists ? "IfExists" : "")
            }
            return .failure(.unknown(suggestion: suggestion))
        }
        if base == .null {
            if ifExists { return .failure(.invalidCombination("Null cannot take the IfExists suffix")) }
            if let qualifier { return .failure(.invalidCombination("Null cannot be combined with \(qualifier)")) }
        }
        return .success(ConditionOperator(base: base, qualifier: qualifier, isIfExists: ifExists))
    }

    /// The operator's name as written in policies.
    public var name: String {
        var text = self.qualifier.map { "\($0):" } ?? ""
        text += self.base.rawValue
        if self.isIfExists { text += "IfExists" }
        return text
    }

    /// A short textual form.
    public var description: String { self.name }

    /// The family of values the operator compares.
    public var family: Family { self.base.family }

    /// Whether the operator is a negation (`StringNotEquals`, `NotIpAddress`, `ArnNotLike`, …).
    public var isNegated: Bool { self.base.isNegated }

    /// Whether policy variables are substituted in this operator's values (string and ARN operators).
    public var acceptsPolicyVariables: Bool { self.family == .string || self.family == .arn }

    /// This operator with the `…IfExists` suffix.
    public var ifExists: ConditionOperator {
        ConditionOperator(base: self.base, qualifier: self.qualifier, isIfExists: true)
    }

    /// The operator with a `ForAnyValue:` prefix.
    /// - Parameter op: The operator to qualify.
    public static func forAnyValue(_ op: ConditionOperator) -> ConditionOperator {
        ConditionOperator(base: op.base, qualifier: .forAnyValue, isIfExists: op.isIfExists)
    }

    /// The operator with a `ForAllValues:` prefix.
    /// - Parameter op: The operator to qualify.
    public static func forAllValues(_ op: ConditionOperator) -> ConditionOperator {
        ConditionOperator(base: op.base, qualifier: .forAllValues, isIfExists: op.isIfExists)
    }

    /// Case-sensitive string equality.
    public static let stringEquals = ConditionOperator(base: .stringEquals)
    /// Negated case-sensitive string equality.
    public static let stringNotEquals = ConditionOperator(base: .stringNotEquals)
    /// Case-insensitive string equality.
    public static let stringEqualsIgnoreCase = ConditionOperator(base: .stringEqualsIgnoreCase)
    /// Negated case-insensitive string equality.
    public static let stringNotEqualsIgnoreCase = ConditionOperator(base: .stringNotEqualsIgnoreCase)
    /// Case-sensitive match with `*` and `?` wildcards.
    public static let stringLike = ConditionOperator(base: .stringLike)
    /// Negated case-sensitive wildcard match.
    public static let stringNotLike = ConditionOperator(base: .stringNotLike)
    /// Numeric equality.
    public static let numericEquals = ConditionOperator(base: .numericEquals)
    /// Numeric inequality.
    public static let numericNotEquals = ConditionOperator(base: .numericNotEquals)
    /// Request value less than the policy value.
    public static let numericLessThan = ConditionOperator(base: .numericLessThan)
    /// Request value less than or equal to the policy value.
    public static let numericLessThanEquals = ConditionOperator(base: .numericLessThanEquals)
    /// Request value greater than the policy value.
    public static let numericGreaterThan = ConditionOperator(base: .numericGreaterThan)
    /// Request value greater than or equal to the policy value.
    public static let numericGreaterThanEquals = ConditionOperator(base: .numericGreaterThanEquals)
    /// Date equality.
    public static let dateEquals = ConditionOperator(base: .dateEquals)
    /// Date inequality.
    public static let dateNotEquals = ConditionOperator(base: .dateNotEquals)
    /// Request date before the policy date.
    public static let dateLessThan = ConditionOperator(base: .dateLessThan)
    /// Request date at or before the policy date.
    public static let dateLessThanEquals = ConditionOperator(base: .dateLessThanEquals)
    /// Request date after the policy date.
    public static let dateGreaterThan = ConditionOperator(base: .dateGreaterThan)
    /// Request date at or after the policy date.
    public static let dateGreaterThanEquals = ConditionOperator(base: .dateGreaterThanEquals)
    /// Boolean equality (`true` / `false`).
    public static let bool = ConditionOperator(base: .bool)
    /// Byte equality of base64-encoded values.
    public static let binaryEquals = ConditionOperator(base: .binaryEquals)
    /// The request address lies in one of the policy's CIDR ranges.
    public static let ipAddress = ConditionOperator(base: .ipAddress)
    /// The request address lies in none of the policy's CIDR ranges.
    public static let notIpAddress = ConditionOperator(base: .notIpAddress)
    /// ARN match per colon-separated component, with `*` and `?`.
    public static let arnEquals = ConditionOperator(base: .arnEquals)
    /// ARN match per colon-separated component, with `*` and `?`.
    public static let arnLike = ConditionOperator(base: .arnLike)
    /// Negated ARN match.
    public static let arnNotEquals = ConditionOperator(base: .arnNotEquals)
    /// Negated ARN match.
    public static let arnNotLike = ConditionOperator(base: .arnNotLike)
    /// Tests whether a key is absent (`"true"`) or present (`"false"`).
    public static let null = ConditionOperator(base: .null)

    /// Decodes the name as written in policies.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let op = ConditionOperator(name) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown condition operator \(name)")
        }
        self = op
    }

    /// Encodes the name as written in policies.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.name)
    }
}
