/// Everything a policy can test about a request besides its action and resource: the principal, the time,
/// and the context keys (`aws:SourceIp`, `s3:prefix`, `cognito-identity.amazonaws.com:sub`, …).
///
/// Key names are case-insensitive, as in IAM. Setting ``principal`` or ``time`` also provides the keys AWS
/// derives from them (`aws:PrincipalArn`, `aws:PrincipalAccount`, `aws:PrincipalType`, `aws:username` for
/// IAM users, `aws:CurrentTime`, `aws:EpochTime`) unless a value for that key was set explicitly.
///
/// ```swift
/// var context = RequestContext(principal: try .iamUser(arn: "arn:aws:iam::111122223333:user/bob"),
///                              time: Timestamp("2024-05-01T12:00:00Z"))
/// context["aws:SourceIp"] = "203.0.113.7"
/// context["aws:TagKeys"] = ["team", "cost-center"]   // multi-valued
/// ```
public struct RequestContext: Sendable {
    struct Entry: Sendable {
        var name: String
        var value: ContextValue
    }

    /// Whether there is no principal (an anonymous request); kept as a flag for the hot path.
    private(set) var isAnonymous = true

    /// The caller, or `nil` for an anonymous request.
    public var principal: RequestPrincipal? {
        didSet { self.rebuild() }
    }

    /// The time of the request; policies read it through `aws:CurrentTime` and `aws:EpochTime`.
    public var time: Timestamp? {
        didSet { self.rebuild() }
    }

    private var explicit: [ContextKey: Entry] = [:]
    /// Explicit keys plus the keys derived from the principal and time.
    private var merged: [ContextKey: Entry] = [:]
    /// The values alone, for lookups during evaluation.
    private var lookup = ContextTable()

    /// Creates a context.
    /// - Parameters:
    ///   - principal: The caller, or `nil` for an anonymous request.
    ///   - time: The time of the request.
    ///   - values: Context keys and their values.
    public init(principal: RequestPrincipal? = nil, time: Timestamp? = nil, values: [String: ContextValue] = [:]) {
        self.principal = principal
        self.time = time
        for (key, value) in values {
            self.explicit[ContextKey(key)] = Entry(name: key, value: value)
        }
        self.rebuild()
    }

    /// The value of a context key, looked up case-insensitively; assigning `nil` removes an explicit value.
    public subscript(key: String) -> ContextValue? {
        get { self.lookup.value(for: ContextKey(key)) }
        set {
            let lowered = ContextKey(key)
            if let newValue {
                self.explicit[lowered] = Entry(name: key, value: newValue)
            } else {
                self.explicit[lowered] = nil
            }
            self.rebuild()
        }
    }

    /// Every key present, as written when set, sorted case-insensitively.
    public var keys: [String] {
        self.merged.values.map(\.name).sorted { $0.lowercased() < $1.lowercased() }
    }

    /// Every key and value present, sorted by key.
    public var entries: [(key: String, value: ContextValue)] {
        self.merged.values.sorted { $0.name.lowercased() < $1.name.lowercased() }.map { ($0.name, $0.value) }
    }

    /// A copy with more keys set (replacing existing values of the same keys).
    /// - Parameter values: The keys to set.
    /// - Returns: The new context.
    public func merging(_ values: [String: ContextValue]) -> RequestContext {
        var copy = self
        for (key, value) in values {
            copy.explicit[ContextKey(key)] = Entry(name: key, value: value)
        }
        copy.rebuild()
        return copy
    }

    @inline(__always)
    func value(for key: ContextKey) -> ContextValue? {
        self.lookup.value(for: key)
    }

    private mutating func rebuild() {
        var merged: [ContextKey: Entry] = [:]
        func derive(_ name: String, _ value: ContextValue) {
            merged[ContextKey(name)] = Entry(name: name, value: value)
        }
        if let time {
            derive("aws:CurrentTime", ContextValue(time.iso8601))
            derive("aws:EpochTime", ContextValue(String(time.secondsSince1970)))
        }
        if let principal {
            switch principal.kind.base {
            case .assumedRole:
                if let roleArn = principal.roleArn { derive("aws:PrincipalArn", ContextValue(roleArn)) }
            case .federatedUser, .account:
                derive("aws:PrincipalArn", ContextValue(principal.arn))
            case .iamUser:
                derive("aws:PrincipalArn", ContextValue(principal.arn))
                if let name = principal.arn.split(separator: "/").last {
                    derive("aws:username", ContextValue(String(name)))
                }
            case .service:
                derive("aws:PrincipalServiceName", ContextValue(principal.arn))
            case .webIdentity, .canonicalUser:
                break
            }
            switch principal.kind.base {
            case .assumedRole, .federatedUser, .account, .iamUser:
                derive("aws:PrincipalType", ContextValue(principal.kind.principalType))
                if let account = principal.accountId { derive("aws:PrincipalAccount", ContextValue(account)) }
            default:
                break
            }
        } else {
            derive("aws:PrincipalType", ContextValue("Anonymous"))
        }
        for (key, entry) in self.explicit {
            merged[key] = entry
        }
        self.merged = merged
        self.lookup = ContextTable(merged.mapValues(\.value))
        self.isAnonymous = self.principal == nil
    }
}
