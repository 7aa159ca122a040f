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

    /// A key set after the base was prepared.
    struct OverlayEntry: Sendable {
        var key: ContextKey
        var entry: Entry
    }

    /// The explicit keys, the keys derived from the principal, and a lookup table over both, prepared once
    /// and shared by every copy of the context. The keys derived from the time are not here: they are made
    /// when asked for, so giving a prepared context another time prepares nothing again.
    final class Base: Sendable {
        let principal: RequestPrincipal?
        let explicit: [ContextKey: Entry]
        /// Explicit keys plus the keys derived from the principal.
        let merged: [ContextKey: Entry]
        /// The values alone, for lookups during evaluation.
        let lookup: ContextTable

        init(principal: RequestPrincipal?, explicit: [ContextKey: Entry], merged: [ContextKey: Entry]) {
            self.principal = principal
            self.explicit = explicit
            self.merged = merged
            self.lookup = ContextTable(merged.mapValues(\.value))
        }
    }

    /// The value of a key derived from the time (`aws:CurrentTime`, `aws:EpochTime`), or `nil` for any other key.
    static func timeValue(for key: ContextKey, at time: Timestamp) -> ContextValue? {
        guard key.hashValueCache == Self.currentTimeKey.hashValueCache || key.hashValueCache == Self.epochTimeKey.hashValueCache
        else { return nil }
        if key == Self.currentTimeKey { return ContextValue(time.iso8601) }
        if key == Self.epochTimeKey { return ContextValue(String(time.secondsSince1970)) }
        return nil
    }

    /// The entries derived from a time.
    static func timeEntries(_ time: Timestamp) -> [(ContextKey, Entry)] {
        [
            (Self.currentTimeKey, Entry(name: "aws:CurrentTime", value: ContextValue(time.iso8601))),
            (Self.epochTimeKey, Entry(name: "aws:EpochTime", value: ContextValue(String(time.secondsSince1970)))),
        ]
    }

    /// The keys derived from the time.
    static let currentTimeKey = ContextKey("aws:CurrentTime")
    static let epochTimeKey = ContextKey("aws:EpochTime")

    /// At most this many keys are layered over the base before they are folded into a new base.
    static let overlayLimit = 8

    /// Whether there is no principal (an anonymous request); kept as a flag for the hot path.
    private(set) var isAnonymous = true

    /// The caller, or `nil` for an anonymous request.
    public var principal: RequestPrincipal? {
        get { self.base.principal }
        set { self.rebuild(principal: newValue) }
    }

    /// The time of the request; policies read it through `aws:CurrentTime` and `aws:EpochTime`.
    public var time: Timestamp?

    /// The principal and prepared keys; copying a context only retains this.
    private var base: Base
    /// Keys set on top of the base (per-request keys such as `s3:prefix`), which win over the base's values.
    /// Setting them does not touch the base, so adding a few keys to a prepared session context is cheap.
    private var overlay: [OverlayEntry] = []

    /// Creates a context.
    /// - Parameters:
    ///   - principal: The caller, or `nil` for an anonymous request.
    ///   - time: The time of the request.
    ///   - values: Context keys and their values.
    public init(principal: RequestPrincipal? = nil, time: Timestamp? = nil, values: [String: ContextValue] = [:]) {
        var explicit: [ContextKey: Entry] = [:]
        explicit.reserveCapacity(values.count)
        for (key, value) in values {
            explicit[ContextKey(key)] = Entry(name: key, value: value)
        }
        self.base = Self.makeBase(principal: principal, explicit: explicit)
        self.time = time
        self.isAnonymous = principal == nil
    }

    /// A copy at another time, as if ``time`` were set: a session's context, prepared once, is given each
    /// request's time this way, and nothing is prepared again.
    /// - Parameter time: The time of the request.
    /// - Returns: The context at `time`.
    package func retimed(_ time: Timestamp?) -> RequestContext {
        var copy = self
        copy.time = time
        return copy
    }

    /// The value of a context key, looked up case-insensitively; assigning `nil` removes an explicit value.
    public subscript(key: String) -> ContextValue? {
        get { self.value(for: ContextKey(key)) }
        set {
            let lowered = ContextKey(key)
            if let newValue {
                self.layer(lowered, Entry(name: key, value: newValue))
            } else {
                var explicit = self.explicitEntries
                explicit[lowered] = nil
                self.overlay = []
                self.base = Self.makeBase(principal: self.principal, explicit: explicit)
            }
        }
    }

    /// Every key present, as written when set, sorted case-insensitively.
    public var keys: [String] {
        self.mergedEntries.values.map(\.name).sorted { $0.lowercased() < $1.lowercased() }
    }

    /// Every key and value present, sorted by key.
    public var entries: [(key: String, value: ContextValue)] {
        self.mergedEntries.values.sorted { $0.name.lowercased() < $1.name.lowercased() }.map { ($0.name, $0.value) }
    }

    /// A copy with more keys set (replacing existing values of the same keys).
    ///
    /// The copy shares this context's prepared keys and layers the new ones over them, so adding a
    /// request's own keys (`s3:prefix`, `s3:delimiter`) to a session's context costs little.
    /// - Parameter values: The keys to set.
    /// - Returns: The new context.
    public func merging(_ values: [String: ContextValue]) -> RequestContext {
        var copy = self
        for (key, value) in values {
            copy.layer(ContextKey(key), Entry(name: key, value: value))
        }
        return copy
    }

    /// Sets one key over the base, as `merging` does, without building a dictionary.
    mutating func setValue(_ value: ContextValue, forKey key: ContextKey, name: String) {
        self.layer(key, Entry(name: name, value: value))
    }

    @inline(__always)
    func value(for key: ContextKey) -> ContextValue? {
        if !self.overlay.isEmpty, let value = self.overlayValue(for: key) { return value }
        if let value = self.base.lookup.value(for: key) { return value }
        guard let time = self.time else { return nil }
        return Self.timeValue(for: key, at: time)
    }

    private func overlayValue(for key: ContextKey) -> ContextValue? {
        for item in self.overlay where item.key == key {
            return item.entry.value
        }
        return nil
    }

    private mutating func layer(_ key: ContextKey, _ entry: Entry) {
        if let index = self.overlay.firstIndex(where: { $0.key == key }) {
            self.overlay[index].entry = entry
            return
        }
        if self.overlay.count < Self.overlayLimit {
            if self.overlay.isEmpty { self.overlay.reserveCapacity(4) }
            self.overlay.append(OverlayEntry(key: key, entry: entry))
            return
        }
        var explicit = self.explicitEntries
        explicit[key] = entry
        self.overlay = []
        self.base = Self.makeBase(principal: self.principal, explicit: explicit)
    }

    /// The explicit keys of the base with the overlay applied.
    private var explicitEntries: [ContextKey: Entry] {
        var explicit = self.base.explicit
        for item in self.overlay { explicit[item.key] = item.entry }
        return explicit
    }

    /// Every key present (explicit, derived and layered).
    private var mergedEntries: [ContextKey: Entry] {
        var merged = self.base.merged
        if let time = self.time {
            for (key, entry) in Self.timeEntries(time) where merged[key] == nil { merged[key] = entry }
        }
        for item in self.overlay { merged[item.key] = item.entry }
        return merged
    }

    private mutating func rebuild(principal: RequestPrincipal?) {
        let explicit = self.explicitEntries
        self.overlay = []
        self.base = Self.makeBase(principal: principal, explicit: explicit)
        self.isAnonymous = principal == nil
    }

    private static func makeBase(principal: RequestPrincipal?, explicit: [ContextKey: Entry]) -> Base {
        var merged: [ContextKey: Entry] = [:]
        func derive(_ name: String, _ value: ContextValue) {
            merged[ContextKey(name)] = Entry(name: name, value: value)
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
        for (key, entry) in explicit {
            merged[key] = entry
        }
        return Base(principal: principal, explicit: explicit, merged: merged)
    }
}
