/// A role session created by `AssumeRoleWithWebIdentity`: a web identity, the role it assumed and the session
/// name. It builds the request context AWS would present for the session's requests.
///
/// ```swift
/// let alice = try WebIdentitySession(
///     .cognito(identityId: "us-east-1:alice-0001", identityPoolId: "us-east-1:pool"),
///     role: "arn:aws:iam::111122223333:role/app-users", sessionName: "alice")
/// let context = alice.context(at: Timestamp(secondsSince1970: 1_714_564_800))
/// context["aws:userid"]  // "AROA…:alice"
/// ```
public struct WebIdentitySession: Sendable, Hashable {
    /// Who the identity provider says the user is.
    public let identity: WebIdentity
    /// The role assumed, including any path.
    public let roleArn: String
    /// The role's unique id (`AROA…`), the first half of `aws:userid`.
    public let roleId: String
    /// The `RoleSessionName`.
    public let sessionName: String
    /// The session principal, `arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION`.
    public let principal: RequestPrincipal
    /// The caller's address for `aws:SourceIp`, if known.
    public var sourceIp: String?
    /// Whether requests arrive over TLS, for `aws:SecureTransport`.
    public var secureTransport: Bool
    /// Further keys to include, such as session tags (`aws:PrincipalTag/…`).
    public var additionalKeys: [String: ContextValue]

    /// Creates a session.
    /// - Parameters:
    ///   - identity: The verified web identity.
    ///   - role: The role ARN, such as `arn:aws:iam::111122223333:role/app-users`.
    ///   - roleId: The role's unique id; by default a stable `AROA…` id derived from the role ARN.
    ///   - sessionName: The `RoleSessionName`: 2–64 letters, digits or `+=,.@_-`.
    ///   - sourceIp: The caller's IP address.
    ///   - secureTransport: Whether requests use TLS.
    ///   - additionalKeys: Further context keys.
    /// - Throws: ``PolicyEngineError/Code/invalidRequest`` for a malformed role ARN or session name.
    public init(
        _ identity: WebIdentity, role: String, roleId: String? = nil, sessionName: String, sourceIp: String? = nil,
        secureTransport: Bool = true, additionalKeys: [String: ContextValue] = [:]
    ) throws(PolicyEngineError) {
        self.identity = identity
        self.roleArn = role
        self.roleId = roleId ?? Self.stableRoleId(for: role)
        self.sessionName = sessionName
        self.principal = try RequestPrincipal.assumedRole(roleArn: role, sessionName: sessionName)
        self.sourceIp = sourceIp
        self.secureTransport = secureTransport
        self.additionalKeys = additionalKeys
    }

    /// The session ARN.
    public var sessionArn: String { self.principal.arn }

    /// `aws:userid` for the session: `ROLE-ID:SESSION-NAME`.
    public var userId: String { "\(self.roleId):\(self.sessionName)" }

    /// The provider as the role's trust policy names it in `Principal.Federated`.
    public var federatedProvider: String {
        self.identity.federatedPrincipal(account: self.principal.accountId ?? "", partition: self.principal.partition ?? "aws")
    }

    /// The context of a request made with the session's credentials: the provider keys, `aws:userid`,
    /// `aws:PrincipalType` (`AssumedRole`), `aws:PrincipalArn` (the role), `aws:PrincipalAccount`,
    /// `aws:FederatedProvider`, `aws:SourceIp`, `aws:SecureTransport`, `aws:CurrentTime` and `aws:EpochTime`.
    /// - Parameter time: The time of the request.
    /// - Returns: The context.
    public func context(at time: Timestamp? = nil) -> RequestContext {
        var values = self.identity.keys
        values["aws:userid"] = ContextValue(self.userId)
        values["aws:FederatedProvider"] = ContextValue(self.federatedProvider)
        values["aws:SecureTransport"] = .bool(self.secureTransport)
        if let sourceIp { values["aws:SourceIp"] = ContextValue(sourceIp) }
        for (key, value) in self.additionalKeys { values[key] = value }
        return RequestContext(principal: self.principal, time: time, values: values)
    }

    /// The context of the `AssumeRoleWithWebIdentity` call itself, for evaluating the role's trust policy:
    /// the caller is the web identity (matched by `Principal.Federated`) and `sts:RoleSessionName` is set.
    /// - Parameter time: The time of the call.
    /// - Returns: The context.
    public func assumeRoleContext(at time: Timestamp? = nil) -> RequestContext {
        var values = self.identity.keys
        values["aws:FederatedProvider"] = ContextValue(self.federatedProvider)
        values["sts:RoleSessionName"] = ContextValue(self.sessionName)
        values["aws:SecureTransport"] = .bool(self.secureTransport)
        if let sourceIp { values["aws:SourceIp"] = ContextValue(sourceIp) }
        return RequestContext(principal: .webIdentity(provider: self.federatedProvider), time: time, values: values)
    }

    /// A deterministic, realistic-looking role id (`AROA` and 17 characters) derived from the role ARN.
    static func stableRoleId(for roleArn: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        var id = "AROA"
        for round in 0..<17 {
            for byte in roleArn.utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            }
            hash = (hash ^ UInt64(round)) &* 0x0000_0100_0000_01B3
            id.append(alphabet[Int(hash >> 59)])
        }
        return id
    }
}
