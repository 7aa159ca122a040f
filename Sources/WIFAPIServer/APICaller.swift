public import AccessRules

/// Who sent an API request, as the server's authentication established it: the mode, the access-rule
/// caller with its claims and groups, and for IAM the role the request was signed with.
public struct APICaller: Sendable, Hashable, CustomStringConvertible {
    /// The authorization mode the request used.
    public var mode: APIAuthorizationMode
    /// The caller the access rules see; `nil` for ``APIAuthorizationMode/none``, which no rule serves.
    public var caller: Caller?
    /// The ARN of the role an IAM request was signed with.
    public var roleArn: String?
    /// The name of the API key used, never its value.
    public var apiKeyName: String?
    /// Fields an `AWS_LAMBDA` authorizer denied this caller (`Type.field` or a field's ARN).
    public var deniedFields: [String]

    /// Creates a caller.
    /// - Parameters:
    ///   - mode: The mode.
    ///   - caller: The access-rule caller.
    ///   - roleArn: The role, for IAM.
    ///   - apiKeyName: The key's name, for API_KEY.
    ///   - deniedFields: The fields a Lambda authorizer denied.
    public init(mode: APIAuthorizationMode, caller: Caller?, roleArn: String? = nil, apiKeyName: String? = nil, deniedFields: [String] = []) {
        self.mode = mode
        self.caller = caller
        self.roleArn = roleArn
        self.apiKeyName = apiKeyName
        self.deniedFields = deniedFields
    }

    /// Whether a Lambda authorizer denied this caller a field of a type: an entry `Type.field`, or an
    /// ARN ending in `/types/Type/fields/field` (whatever API, region and account it names).
    /// - Parameters:
    ///   - field: The field.
    ///   - type: The type (model) it belongs to.
    /// - Returns: Whether the field is denied.
    public func isDenied(field: String, of type: String) -> Bool {
        self.deniedFields.contains { $0 == "\(type).\(field)" || $0.hasSuffix("/types/\(type)/fields/\(field)") }
    }

    /// Who this is, for logs: the mode and the subject, role or key name; never a token.
    public var description: String {
        var parts = [self.mode.rawValue]
        if case .string(let sub)? = self.caller?.claims["sub"] { parts.append("sub=\(sub)") }
        if let roleArn = self.roleArn { parts.append("role=\(roleArn)") }
        if let name = self.apiKeyName { parts.append("key=\(name)") }
        return parts.joined(separator: " ")
    }
}
