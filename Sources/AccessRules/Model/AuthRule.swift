import WIFFoundation

/// One `@auth` rule, with Amplify's defaults filled in for every field the author left out.
public struct AuthRule: Sendable, Hashable {
    /// Who the rule is for.
    public var allow: AuthStrategy
    /// How the caller must prove who it is; defaults to ``AuthStrategy/defaultProvider``.
    public var provider: AuthProvider
    /// The record field holding the owner (a `String`) or owners (a `[String]`); default `owner`.
    public var ownerField: String
    /// The claim that names the caller; default `sub::username`, which matches an owner stored as
    /// `sub::username`, as `sub` or as `username`.
    public var identityClaim: String
    /// The claim holding the caller's groups, an array or one string; default `cognito:groups`.
    public var groupClaim: String
    /// The groups a `groups` rule lists (static groups); empty for a dynamic rule.
    public var groups: [String]
    /// The record field holding the groups that may act on it (dynamic groups), if any.
    public var groupsField: String?
    /// The operations the rule allows; every operation when the rule lists none.
    public var operations: ModelOperations
    /// Where the rule was written, when it came from text.
    public var location: SourcePosition?

    /// The default owner field.
    public static let defaultOwnerField = "owner"
    /// The default identity claim: the user pool's `sub` and username joined by `::`.
    public static let defaultIdentityClaim = "sub::username"
    /// The default groups claim of a user pool token.
    public static let defaultGroupClaim = "cognito:groups"

    /// Creates a rule; every argument left out takes Amplify's default.
    /// - Parameters:
    ///   - allow: Who the rule is for.
    ///   - provider: The provider; `nil` for the strategy's default.
    ///   - ownerField: The owner field.
    ///   - identityClaim: The claim naming the caller.
    ///   - groupClaim: The claim listing the caller's groups.
    ///   - groups: Static groups.
    ///   - groupsField: The record field listing groups.
    ///   - operations: The operations allowed; all when left out.
    ///   - location: Where the rule was written.
    public init(
        allow: AuthStrategy,
        provider: AuthProvider? = nil,
        ownerField: String = AuthRule.defaultOwnerField,
        identityClaim: String = AuthRule.defaultIdentityClaim,
        groupClaim: String = AuthRule.defaultGroupClaim,
        groups: [String] = [],
        groupsField: String? = nil,
        operations: ModelOperations = .all,
        location: SourcePosition? = nil
    ) {
        self.allow = allow
        self.provider = provider ?? allow.defaultProvider
        self.ownerField = ownerField
        self.identityClaim = identityClaim
        self.groupClaim = groupClaim
        self.groups = groups
        self.groupsField = groupsField
        self.operations = operations
        self.location = location
    }

    /// The rule in `@auth` syntax, with the fields that differ from the defaults, for explanations.
    public var summary: String {
        var parts = ["allow: \(self.allow.rawValue)"]
        if self.provider != self.allow.defaultProvider { parts.append("provider: \(self.provider.name)") }
        if self.allow == .owner {
            if self.ownerField != Self.defaultOwnerField { parts.append("ownerField: \"\(self.ownerField)\"") }
            if self.identityClaim != Self.defaultIdentityClaim { parts.append("identityClaim: \"\(self.identityClaim)\"") }
        }
        if self.allow == .groups {
            if !self.groups.isEmpty { parts.append("groups: [\(self.groups.map { "\"\($0)\"" }.joined(separator: ", "))]") }
            if let groupsField { parts.append("groupsField: \"\(groupsField)\"") }
            if self.groupClaim != Self.defaultGroupClaim { parts.append("groupClaim: \"\(self.groupClaim)\"") }
        }
        if self.operations != .all {
            var names: [String] = []
            var rest = self.operations
            for name in ["create", "update", "delete"] {
                if let set = ModelOperations.named(name), rest.contains(set) { names.append(name); rest.subtract(set) }
            }
            if rest.contains(.read) { names.append("read"); rest.subtract(.read) }
            names += rest.operations.map(\.rawValue)
            parts.append("operations: [\(names.joined(separator: ", "))]")
        }
        return "{ \(parts.joined(separator: ", ")) }"
    }
}

/// A 1-based line and column (in characters) in a schema or rules file.
public struct SourcePosition: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The 1-based line.
    public var line: Int
    /// The 1-based column, counting characters.
    public var column: Int

    /// Creates a position.
    /// - Parameters:
    ///   - line: The 1-based line.
    ///   - column: The 1-based column.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`.
    public var description: String { "\(self.line):\(self.column)" }
}

extension AuthRule {
    /// The rule as a JSON object with every property written out, in the shape the JSON rules reader and
    /// Amplify's model introspection (`attributes[type=auth].properties.rules`) both use.
    public var json: String {
        var members = [
            "\"allow\":\(JSONWriter.quoted(self.allow.rawValue))",
            "\"provider\":\(JSONWriter.quoted(self.provider.name))",
        ]
        switch self.allow {
        case .owner:
            members.append("\"ownerField\":\(JSONWriter.quoted(self.ownerField))")
            members.append("\"identityClaim\":\(JSONWriter.quoted(self.identityClaim))")
        case .groups:
            if !self.groups.isEmpty { members.append("\"groups\":[\(self.groups.map(JSONWriter.quoted).joined(separator: ","))]") }
            if let groupsField { members.append("\"groupsField\":\(JSONWriter.quoted(groupsField))") }
            members.append("\"groupClaim\":\(JSONWriter.quoted(self.groupClaim))")
        case .private, .public, .custom:
            break
        }
        var names: [String] = []
        var rest = self.operations
        for name in ["create", "update", "delete", "read"] {
            if let set = ModelOperations.named(name), rest.contains(set) {
                names.append(name)
                rest.subtract(set)
            }
        }
        names += rest.operations.map(\.rawValue)
        members.append("\"operations\":[\(names.map(JSONWriter.quoted).joined(separator: ","))]")
        return "{" + members.joined(separator: ",") + "}"
    }
}
