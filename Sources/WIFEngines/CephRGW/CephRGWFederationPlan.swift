import Crypto
import S3Partition
import WIFFoundation

/// What to set up on a Ceph RADOS Gateway so that users of an OpenID Connect issuer each get a
/// private folder (`<user id>/`) in a shared bucket: the OIDC provider, the bucket, and the roles and
/// policies of a ``PartitionStrategy``.
///
/// The plan is pure data: it builds every document without I/O, so it can be checked (and compared
/// with the files in `policies/ceph-rgw/`) before ``CephRGWFederation`` applies it. Documents are
/// compact JSON because RGW refuses policies that contain whitespace, and they name every user's
/// folder literally because RGW refuses policy variables in `Resource`.
///
/// ```swift
/// let plan = CephRGWFederationPlan(
///     issuer: "http://127.0.0.1:4566", clientIds: ["wif-local"], bucket: "wif-personal",
///     strategy: .rolePerUser, users: ["alice", "bob"])
/// try plan.validate()
/// plan.roleARN(for: "alice")   // "arn:aws:iam:::role/wif-alice"
/// ```
public struct CephRGWFederationPlan: Sendable, Hashable {
    /// The issuer exactly as in the tokens' `iss`, such as `http://127.0.0.1:4566`. RGW fetches
    /// `<issuer>/.well-known/openid-configuration` and the JWKS it names on every sign-in.
    public var issuer: String
    /// The client ids (`aud`) of the users' tokens.
    public var clientIds: [String]
    /// SHA-1 thumbprints (40 hex digits) of the issuer's signing certificate; empty to have
    /// ``CephRGWFederation`` read them from the issuer's JWKS (`x5c`).
    public var thumbprints: [String]
    /// The shared bucket.
    public var bucket: String
    /// How users are kept apart.
    public var strategy: PartitionStrategy
    /// The user ids (the tokens' `sub`) that get a folder; the role-per-user and session-tags
    /// strategies write each one into a role or policy, the session-policy strategy needs none.
    public var users: [String]
    /// The start of every role name (`wif` makes `wif-alice`, `wif-tagged`, `wif-broker`).
    public var namePrefix: String
    /// The client id of the trusted server's tokens, the only ones the session-policy strategy's role
    /// accepts; it is registered with the provider alongside ``clientIds``.
    public var brokerClientId: String

    /// The session tag that carries the user id in the session-tags strategy: `aws:PrincipalTag/sub`.
    public static let userTagKey = "sub"
    /// The name of the role policy of a role-per-user role.
    public static let personalStorePolicyName = "personal-store"
    /// The name of the role policy of the session-policy strategy's shared role.
    public static let sharedBucketPolicyName = "shared-bucket"
    /// The S3 actions a user has on their own objects: read, write, delete and multipart housekeeping.
    public static let objectActions = [
        "s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts",
    ]
    /// The longest role name IAM accepts.
    public static let maximumRoleNameLength = 64

    /// Creates a plan.
    /// - Parameters:
    ///   - issuer: The tokens' `iss`.
    ///   - clientIds: The users' client ids.
    ///   - thumbprints: The issuer certificate's SHA-1 thumbprints; empty to read them from the JWKS.
    ///   - bucket: The shared bucket.
    ///   - strategy: How users are kept apart.
    ///   - users: The user ids to set up.
    ///   - namePrefix: The start of every role name; `wif` by default.
    ///   - brokerClientId: The trusted server's client id; `wif-broker` by default.
    public init(
        issuer: String,
        clientIds: [String],
        thumbprints: [String] = [],
        bucket: String,
        strategy: PartitionStrategy,
        users: [String] = [],
        namePrefix: String = "wif",
        brokerClientId: String = "wif-broker"
    ) {
        self.issuer = issuer
        self.clientIds = clientIds
        self.thumbprints = thumbprints
        self.bucket = bucket
        self.strategy = strategy
        self.users = users
        self.namePrefix = namePrefix
        self.brokerClientId = brokerClientId
    }

    // MARK: Names

    /// The issuer without its scheme and trailing slash, such as `127.0.0.1:4566`: the provider's name
    /// in its ARN and the prefix of its condition keys (`127.0.0.1:4566:sub`).
    public var providerKey: String {
        var key = self.issuer
        for scheme in ["https://", "http://"] where key.hasPrefix(scheme) {
            key.removeFirst(scheme.count)
        }
        while key.hasSuffix("/") { key.removeLast() }
        return key
    }

    /// The provider's ARN as RGW writes it: `arn:aws:iam:::oidc-provider/<providerKey>`.
    public var providerARN: String { "arn:aws:iam:::oidc-provider/\(self.providerKey)" }

    /// The client ids registered with the provider: ``clientIds``, and ``brokerClientId`` for the
    /// session-policy strategy.
    public var registeredClientIds: [String] {
        var ids = self.clientIds
        if self.strategy == .sessionPolicy, !ids.contains(self.brokerClientId) { ids.append(self.brokerClientId) }
        return ids
    }

    /// The role a user signs in with: their own for ``PartitionStrategy/rolePerUser``, the shared
    /// one otherwise.
    /// - Parameter user: The user id.
    /// - Returns: The role's name, at most 64 characters of `[A-Za-z0-9+=,.@_-]`.
    public func roleName(for user: String) -> String {
        guard self.strategy == .rolePerUser else { return self.sharedRoleName }
        return Self.iamName(self.namePrefix + "-" + user, maximumLength: Self.maximumRoleNameLength)
    }

    /// The shared role of the session-tags (`<prefix>-tagged`) and session-policy (`<prefix>-broker`)
    /// strategies.
    public var sharedRoleName: String {
        Self.iamName(self.namePrefix + (self.strategy == .sessionPolicy ? "-broker" : "-tagged"), maximumLength: Self.maximumRoleNameLength)
    }

    /// The ARN of the role a user signs in with.
    /// - Parameter user: The user id.
    /// - Returns: `arn:aws:iam:::role/<name>`.
    public func roleARN(for user: String) -> String {
        "arn:aws:iam:::role/\(self.roleName(for: user))"
    }

    /// The name of the session-tags strategy's role policy for a user: `user-<id>`.
    /// - Parameter user: The user id.
    /// - Returns: The policy name, at most 128 characters of `[A-Za-z0-9+=,.@_-]`.
    public func userPolicyName(for user: String) -> String {
        Self.iamName("user-" + user, maximumLength: 128)
    }

    /// `text` when it is a valid IAM name of at most `maximumLength` characters; otherwise its allowed
    /// characters (others replaced by `-`), shortened, and a digest of the whole text, so that two ids
    /// never share a name.
    static func iamName(_ text: String, maximumLength: Int) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+=,.@_-".unicodeScalars)
        let isValid = text.unicodeScalars.allSatisfy { allowed.contains($0) }
        if isValid, text.unicodeScalars.count <= maximumLength { return text }
        let digest = TokenEncoding.hex(Array(SHA256.hash(data: Array(text.utf8)).prefix(6)))
        let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.map { allowed.contains($0) ? $0 : "-" }))
        return String(cleaned.prefix(maximumLength - digest.count - 1)) + "-" + digest
    }

    // MARK: Checks

    /// Checks the plan before anything is sent.
    /// - Throws: ``EngineSetupError`` with code ``EngineSetupError/Code/invalidConfiguration`` naming the
    ///   bad setting, ``EngineSetupError/Code/invalidUserId`` for a user id that cannot name a folder in a
    ///   policy, or the S3 client's code for a bucket name it refuses.
    public func validate() throws(EngineSetupError) {
        let issuerIsURL = (self.issuer.hasPrefix("https://") || self.issuer.hasPrefix("http://")) && !self.providerKey.isEmpty
        guard issuerIsURL, !self.issuer.contains(where: { $0.isWhitespace || $0 == "?" || $0 == "#" }) else {
            throw .invalidConfiguration("the issuer must be an http or https URL such as http://127.0.0.1:4566, not '\(self.issuer)'")
        }
        guard !self.clientIds.isEmpty else {
            throw .invalidConfiguration("give at least one client id (the aud of the users' tokens)")
        }
        for id in self.registeredClientIds where id.isEmpty || id.utf8.count > 255 {
            throw .invalidConfiguration("a client id must be 1 to 255 bytes long, not '\(id)'")
        }
        for thumbprint in self.thumbprints
        where thumbprint.utf8.count != 40 || !thumbprint.utf8.allSatisfy({ Self.isHexDigit($0) }) {
            throw .invalidConfiguration("a thumbprint must be 40 hex digits (the SHA-1 of the issuer's certificate), not '\(thumbprint)'")
        }
        do {
            try S3BucketName.validate(self.bucket)
        } catch {
            throw EngineSetupError(error)
        }
        guard !self.namePrefix.isEmpty, Self.iamName(self.namePrefix, maximumLength: 32) == self.namePrefix else {
            throw .invalidConfiguration("the name prefix must be 1 to 32 of A-Z a-z 0-9 + = , . @ _ -, not '\(self.namePrefix)'")
        }
        if self.strategy == .sessionPolicy, self.clientIds.contains(self.brokerClientId) {
            throw .invalidConfiguration(
                "the broker client id '\(self.brokerClientId)' is also a users' client id: users would get tokens the shared role accepts and could leave the session policy out")
        }
        var seen = Set<String>()
        for user in self.users {
            try Self.checkUserId(user)
            guard seen.insert(user).inserted else {
                throw .invalidConfiguration("the user '\(user)' is listed twice")
            }
        }
        let names = self.users.map { self.roleName(for: $0) }
        if self.strategy == .rolePerUser, Set(names).count != names.count {
            throw .invalidConfiguration("two users map to the same role name; use ids that differ in their first characters")
        }
    }

    /// Checks that a user id can be written literally into a policy as a folder: the rules of
    /// S3Partition's `PartitionPrefix`, and none of `*`, `?` or `$`, which a policy would read as a
    /// wildcard or a variable and so widen to other users' folders.
    /// - Parameter user: The user id.
    /// - Throws: ``EngineSetupError`` with code ``EngineSetupError/Code/invalidUserId``.
    public static func checkUserId(_ user: String) throws(EngineSetupError) {
        do {
            _ = try PartitionPrefix.make(userId: user)
        } catch {
            throw EngineSetupError(error)
        }
        if let bad = user.first(where: { $0 == "*" || $0 == "?" || $0 == "$" }) {
            throw EngineSetupError(
                code: .invalidUserId,
                reason: "the user id '\(user)' contains '\(bad)', which a policy reads as a wildcard or variable and would widen to other users' folders")
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46)
    }
}
