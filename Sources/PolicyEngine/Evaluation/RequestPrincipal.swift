/// Who is making a request: an assumed-role session, an IAM user, a federated user, an account root, a
/// service, or a web identity (the caller of `AssumeRoleWithWebIdentity`, for trust policies).
///
/// A principal has several *facets* that a `Principal` element can name. A role session
/// `arn:aws:sts::111122223333:assumed-role/app/alice` is matched by its session ARN, by its role
/// `arn:aws:iam::111122223333:role/app`, and by its account; resource policies that name the session ARN
/// itself grant more than those that name the role (see ``PolicyEvaluator``).
public struct RequestPrincipal: Sendable, Hashable, CustomStringConvertible {
    /// The kind of principal. Open-ended.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        enum Base: String, Sendable, Hashable {
            case assumedRole = "AssumedRole"
            case iamUser = "User"
            case federatedUser = "FederatedUser"
            case account = "Account"
            case service = "Service"
            case webIdentity = "WebIdentity"
            case canonicalUser = "CanonicalUser"
        }

        let base: Base

        /// A role session (`arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION`).
        public static let assumedRole = Kind(base: .assumedRole)
        /// An IAM user.
        public static let iamUser = Kind(base: .iamUser)
        /// A federated user session from `GetFederationToken`.
        public static let federatedUser = Kind(base: .federatedUser)
        /// An account's root user.
        public static let account = Kind(base: .account)
        /// An AWS service principal such as `s3.amazonaws.com`.
        public static let service = Kind(base: .service)
        /// A web identity presented to `AssumeRoleWithWebIdentity` (matched by `Principal.Federated`).
        public static let webIdentity = Kind(base: .webIdentity)
        /// An S3 canonical user id.
        public static let canonicalUser = Kind(base: .canonicalUser)

        /// The value AWS puts in `aws:PrincipalType` for this kind.
        public var principalType: String { self.base.rawValue }

        /// A short textual form.
        public var description: String { self.base.rawValue }
    }

    /// The kind of principal.
    public let kind: Kind
    /// The caller's identifier: its ARN (the session ARN for a role session), the service name, the
    /// identity provider for a web identity, or the canonical user id.
    public let arn: String
    /// The 12-digit account of the principal, when it has one.
    public let accountId: String?
    /// For a role session, the role's ARN including its path.
    public let roleArn: String?
    /// For a federated user, the IAM user that created the session.
    public let userArn: String?
    /// The ARN partition (`aws`, `aws-cn`, …), when known.
    public let partition: String?

    init(kind: Kind, arn: String, accountId: String?, roleArn: String? = nil, userArn: String? = nil, partition: String?) {
        self.kind = kind
        self.arn = arn
        self.accountId = accountId
        self.roleArn = roleArn
        self.userArn = userArn
        self.partition = partition
    }

    /// A short textual form.
    public var description: String { "\(self.kind) \(self.arn)" }

    /// A role session, from the role's ARN (which may include a path) and the session name.
    /// - Parameters:
    ///   - roleArn: The role, such as `arn:aws:iam::111122223333:role/app/web-users`.
    ///   - sessionName: The `RoleSessionName`, 2–64 characters of letters, digits and `+=,.@_-`.
    /// - Throws: ``PolicyEngineError/Code/invalidRequest`` if the ARN is not a role ARN or the session name
    ///   breaks STS's rules.
    public static func assumedRole(roleArn: String, sessionName: String) throws(PolicyEngineError) -> RequestPrincipal {
        let parts = try ARNParts(roleArn, what: "role ARN")
        guard parts.service == "iam", parts.resource.utf8.starts(with: "role/".utf8), parts.resource.utf8.count > 5 else {
            throw .invalidRequest("role ARN must look like arn:aws:iam::ACCOUNT:role/NAME, got '\(roleArn)'")
        }
        try validateSessionName(sessionName)
        let roleName = parts.resource.utf8.split(separator: UInt8(ascii: "/")).last.map { String(Substring($0)) } ?? ""
        let sessionArn = "arn:\(parts.partition):sts::\(parts.account):assumed-role/\(roleName)/\(sessionName)"
        return RequestPrincipal(
            kind: .assumedRole, arn: sessionArn, accountId: parts.account, roleArn: roleArn, partition: parts.partition)
    }

    /// A role session from its session ARN (`arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION`). The role is
    /// assumed to have no path.
    /// - Parameter sessionArn: The session ARN.
    /// - Throws: ``PolicyEngineError/Code/invalidRequest`` if the ARN is not an assumed-role ARN.
    public static func assumedRole(sessionArn: String) throws(PolicyEngineError) -> RequestPrincipal {
        let parts = try ARNParts(sessionArn, what: "session ARN")
        let pieces = parts.resource.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.service == "sts", pieces.count == 3, pieces[0] == "assumed-role", !pieces[1].isEmpty,
              !pieces[2].isEmpty
        else {
            throw .invalidRequest("session ARN must look like arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION, got '\(sessionArn)'")
        }
        let roleArn = "arn:\(parts.partition):iam::\(parts.account):role/\(pieces[1])"
        return RequestPrincipal(
            kind: .assumedRole, arn: sessionArn, accountId: parts.account, roleArn: roleArn, partition: parts.partition)
    }

    /// An IAM user.
    /// - Parameter arn: The user ARN, such as `arn:aws:iam::111122223333:user/bob`.
    /// - Throws: ``PolicyEngineError/Code/invalidRequest`` if the ARN is not a user ARN.
    public static func iamUser(arn: String) throws(PolicyEngineError) -> RequestPrincipal {
        let parts = try ARNParts(arn, what: "user ARN")
        guard parts.service == "iam", parts.resource.hasPrefix("user/"), parts.resource.count > 5 else {
            throw .invalidRequest("user ARN must look like arn:aws:iam::ACCOUNT:user/NAME, got '\(arn)'")
        }
        return RequestPrincipal(kind: .iamUser, arn: arn, accountId: parts.account, partition: parts.partition)
    }

    /// A federated user session from `GetFederationToken`.
    /// - Parameter arn: The session ARN, such as `arn:aws:sts::111122223333:federated-user/bob`.
    /// - Throws: ``PolicyEngineError/Code/invalidRequest`` if the ARN is not a federated-user ARN.
    public static func federatedUser(arn: String) throws(PolicyEngineError) -> RequestPrincipal {
        let parts = try ARNParts(arn, what: "federated user ARN")
        guard parts.service == "sts", parts.resource.hasPrefix("federated-user/"), parts.resource.count > 15 else {
            throw .invalidRequest("federated user ARN must look like arn:aws:sts::ACCOUNT:federated-user/NAME, got '\(arn)'")
        }
        let name = parts.resource.dropFirst("federated-user/".count)
        let userArn = "arn:\(parts.partition):iam::\(parts.account):user/\(name)"
        return RequestPrincipal(
            kind: .federatedUser, arn: arn, accountId: parts.account, userArn: userArn, partition: parts.partition)
    }

    /// An account's root user.
    /// - Parameters:
    ///   - accountId: The 12-digit account id.
    ///   - partition: The partition, `aws` by default.
    /// - Throws: ``PolicyEngineError/Code/invalidRequest`` if the account id is not 12 digits.
    public static func root(accountId: String, partition: String = "aws") throws(PolicyEngineError) -> RequestPrincipal {
        guard isAccountId(accountId) else {
            throw .invalidRequest("account id must be 12 digits, got '\(accountId)'")
        }
        return RequestPrincipal(
            kind: .account, arn: "arn:\(partition):iam::\(accountId):root", accountId: accountId, partition: partition)
    }

    /// An AWS service principal.
    /// - Parameter name: The service principal name, such as `cloudtrail.amazonaws.com`.
    public static func service(_ name: String) -> RequestPrincipal {
        RequestPrincipal(kind: .service, arn: name, accountId: nil, partition: nil)
    }

    /// A web identity calling `AssumeRoleWithWebIdentity`, matched in trust policies by `Principal.Federated`.
    /// - Parameter provider: The provider as a trust policy names it: `cognito-identity.amazonaws.com`,
    ///   `accounts.google.com`, `graph.facebook.com`, `www.amazon.com`, or an OIDC provider ARN.
    public static func webIdentity(provider: String) -> RequestPrincipal {
        RequestPrincipal(kind: .webIdentity, arn: provider, accountId: nil, partition: nil)
    }

    /// An S3 canonical user.
    /// - Parameter id: The canonical user id.
    public static func canonicalUser(_ id: String) -> RequestPrincipal {
        RequestPrincipal(kind: .canonicalUser, arn: id, accountId: nil, partition: nil)
    }

    /// The `Principal.AWS` values that name this principal exactly (not through its role or account).
    var exactIdentifiers: [String] {
        switch self.kind.base {
        case .account:
            return [self.arn] + (self.accountId.map { [$0] } ?? [])
        default:
            return [self.arn]
        }
    }

    static func validateSessionName(_ name: String) throws(PolicyEngineError) {
        let count = name.unicodeScalars.count
        guard count >= 2, count <= 64 else {
            throw .invalidRequest("role session name must be 2–64 characters, got \(count)")
        }
        // Every allowed character is ASCII, so the UTF-8 bytes can be checked one by one.
        for byte in name.utf8 {
            let allowed = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "=") || byte == UInt8(ascii: ",")
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            guard allowed else {
                throw .invalidRequest("role session name may contain only letters, digits and +=,.@_- characters")
            }
        }
    }
}

func isAccountId(_ text: some StringProtocol) -> Bool {
    text.utf8.count == 12 && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
}

/// The six colon-separated parts of an ARN; the resource part may itself contain colons.
struct ARNParts: Sendable, Hashable {
    var partition: String
    var service: String
    var region: String
    var account: String
    var resource: String

    init(_ arn: String, what: String) throws(PolicyEngineError) {
        guard let parts = ARNParts(arn) else {
            throw .invalidRequest("\(what) must be an ARN (arn:partition:service:region:account:resource), got '\(arn)'")
        }
        self = parts
    }

    init?(_ arn: String) {
        // Split over UTF-8: every separator is ASCII, and this runs for every role session.
        let pieces = arn.utf8.split(separator: UInt8(ascii: ":"), maxSplits: 5, omittingEmptySubsequences: false)
        guard pieces.count == 6, pieces[0].elementsEqual("arn".utf8), !pieces[1].isEmpty, !pieces[2].isEmpty else {
            return nil
        }
        self.partition = String(Substring(pieces[1]))
        self.service = String(Substring(pieces[2]))
        self.region = String(Substring(pieces[3]))
        self.account = String(Substring(pieces[4]))
        self.resource = String(Substring(pieces[5]))
    }
}
