import Foundation

/// What STS answered to `AssumeRoleWithWebIdentity`.
///
/// ``credentials`` carries an expiration already moved onto the local clock: when the answer had a
/// `Date` header, the difference between the server's clock and the local one (``clockSkew``) is
/// taken off the server's ``serverExpiration``, so that `credentials.isExpired(at: localNow)` is
/// right even when the local clock is off. `description` shows no secret.
public struct AssumeRoleWithWebIdentityResult: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The temporary credentials, with ``AWSCredentials/accountId`` filled from the role's ARN and
    /// ``AWSCredentials/expiration`` on the local clock.
    public var credentials: AWSCredentials
    /// The expiration exactly as STS sent it, on the server's clock.
    public var serverExpiration: Date
    /// The server's clock minus the local clock when the answer arrived, in seconds, from the `Date`
    /// header (whole seconds, so up to a second of it is rounding); `nil` when there was no usable
    /// `Date` header, in which case the expiration is used as sent.
    public var clockSkew: TimeInterval?
    /// The user identity in the token, usually its `sub` claim.
    public var subjectFromWebIdentityToken: String?
    /// The assumed role's ARN and id; some STS-compatible servers leave it out.
    public var assumedRoleUser: AssumedRoleUser?
    /// The issuer of the token (`iss` of an OIDC ID token, or the `ProviderId` sent).
    public var provider: String?
    /// The audience of the token (`aud`, the client id the token was issued to).
    public var audience: String?
    /// The source identity set from the token's claims, if any.
    public var sourceIdentity: String?
    /// How full the packed session policies are, as a percentage of the allowed size.
    public var packedPolicySize: Int?
    /// The request id STS assigned, for support cases and CloudTrail.
    public var requestId: String?

    /// Creates a result.
    /// - Parameters:
    ///   - credentials: The credentials, expiration on the local clock.
    ///   - serverExpiration: The expiration as the server sent it.
    ///   - clockSkew: Server clock minus local clock, if known.
    ///   - subjectFromWebIdentityToken: The token's subject.
    ///   - assumedRoleUser: The assumed role's ARN and id.
    ///   - provider: The token's issuer.
    ///   - audience: The token's audience.
    ///   - sourceIdentity: The source identity.
    ///   - packedPolicySize: The packed policy size percentage.
    ///   - requestId: STS's request id.
    public init(
        credentials: AWSCredentials,
        serverExpiration: Date,
        clockSkew: TimeInterval? = nil,
        subjectFromWebIdentityToken: String? = nil,
        assumedRoleUser: AssumedRoleUser? = nil,
        provider: String? = nil,
        audience: String? = nil,
        sourceIdentity: String? = nil,
        packedPolicySize: Int? = nil,
        requestId: String? = nil
    ) {
        self.credentials = credentials
        self.serverExpiration = serverExpiration
        self.clockSkew = clockSkew
        self.subjectFromWebIdentityToken = subjectFromWebIdentityToken
        self.assumedRoleUser = assumedRoleUser
        self.provider = provider
        self.audience = audience
        self.sourceIdentity = sourceIdentity
        self.packedPolicySize = packedPolicySize
        self.requestId = requestId
    }

    /// The key id, role, subject, provider, clock skew and request id; never a secret.
    public var description: String {
        var fields = ["credentials: \(self.credentials)"]
        if let assumedRoleUser { fields.append("assumedRole: \(assumedRoleUser.arn)") }
        if let subjectFromWebIdentityToken { fields.append("subject: \(subjectFromWebIdentityToken)") }
        if let provider { fields.append("provider: \(provider)") }
        if let clockSkew { fields.append("clockSkew: \(clockSkew)s") }
        if let requestId { fields.append("requestId: \(requestId)") }
        return "AssumeRoleWithWebIdentityResult(\(fields.joined(separator: ", ")))"
    }

    /// The same as ``description``: no secret.
    public var debugDescription: String { self.description }
}

/// The identity of an assumed-role session.
public struct AssumedRoleUser: Sendable, Hashable, CustomStringConvertible {
    /// The session's ARN: `arn:aws:sts::<account>:assumed-role/<role>/<session>`.
    public var arn: String
    /// The role id and session name, `AROA…:<session>`; some STS-compatible servers leave it out.
    public var assumedRoleId: String?

    /// Creates an assumed-role identity.
    /// - Parameters:
    ///   - arn: The session's ARN.
    ///   - assumedRoleId: The role id and session name.
    public init(arn: String, assumedRoleId: String? = nil) {
        self.arn = arn
        self.assumedRoleId = assumedRoleId
    }

    /// The session's ARN.
    public var description: String { "AssumedRoleUser(\(self.arn))" }
}
