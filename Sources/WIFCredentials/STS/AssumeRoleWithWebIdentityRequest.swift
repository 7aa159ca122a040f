import Foundation
import WIFFoundation

/// The parameters of an STS `AssumeRoleWithWebIdentity` call, apart from the token.
///
/// The token comes from a ``WebIdentityTokenSource`` at call time, so that a rejected token can be
/// re-read. Every parameter is checked against STS's bounds before anything is sent; see
/// ``validate()``.
public struct AssumeRoleWithWebIdentityRequest: Sendable, Hashable {
    /// The role to assume: `arn:<partition>:iam::<account>:role/<name>`, 20–2048 characters.
    public var roleArn: String
    /// A name for the session, 2–64 characters of letters, digits and `+ = , . @ _ -`. It appears in
    /// the assumed role's ARN and in CloudTrail.
    public var roleSessionName: String
    /// The OAuth 2.0 provider of an access token (`graph.facebook.com`, `www.amazon.com`), 4–2048
    /// characters; `nil` for OpenID Connect ID tokens.
    public var providerId: String?
    /// How long the credentials last, 900–43200 seconds (and at most the role's maximum session
    /// duration); `nil` for STS's default of one hour.
    public var durationSeconds: Int?
    /// An inline session policy (JSON, at most 2048 characters) that narrows the role's permissions.
    public var policy: String?
    /// Up to 10 ARNs of managed policies that narrow the role's permissions, each 20–2048 characters.
    public var policyArns: [String]

    /// Creates a request.
    /// - Parameters:
    ///   - roleArn: The role to assume.
    ///   - roleSessionName: A name for the session.
    ///   - providerId: The OAuth 2.0 provider of an access token; `nil` for OIDC ID tokens.
    ///   - durationSeconds: How long the credentials last; `nil` for STS's default.
    ///   - policy: An inline session policy.
    ///   - policyArns: Managed session policies.
    public init(
        roleArn: String,
        roleSessionName: String,
        providerId: String? = nil,
        durationSeconds: Int? = nil,
        policy: String? = nil,
        policyArns: [String] = []
    ) {
        self.roleArn = roleArn
        self.roleSessionName = roleSessionName
        self.providerId = providerId
        self.durationSeconds = durationSeconds
        self.policy = policy
        self.policyArns = policyArns
    }
}

extension AssumeRoleWithWebIdentityRequest {
    /// The shortest role or policy ARN STS accepts.
    public static let minimumARNLength = 20
    /// The longest role or policy ARN STS accepts.
    public static let maximumARNLength = 2048
    /// The shortest and longest session name STS accepts.
    public static let roleSessionNameLengths = 2...64
    /// The shortest and longest session STS grants, in seconds.
    public static let durationSecondsRange = 900...43_200
    /// The longest inline session policy STS accepts, in characters.
    public static let maximumPolicyLength = 2048
    /// The most managed session policies STS accepts.
    public static let maximumPolicyArnCount = 10
    /// The shortest and longest provider id STS accepts.
    public static let providerIdLengths = 4...2048

    /// Checks every parameter against STS's bounds.
    ///
    /// The web-identity token is checked separately, when the client reads it (4–20000 bytes).
    /// - Throws: ``WIFCredentialsError`` with code `invalidParameter` whose reason names the
    ///   parameter and the bound it breaks.
    public func validate() throws(WIFCredentialsError) {
        try Self.validateARN(self.roleArn, parameter: "RoleArn", requireRole: true)
        try self.validateRoleSessionName()
        if let providerId = self.providerId {
            let length = providerId.unicodeScalars.count
            if !Self.providerIdLengths.contains(length) {
                throw .invalidParameter(
                    "ProviderId is \(length) characters; STS accepts \(Self.providerIdLengths.lowerBound)–\(Self.providerIdLengths.upperBound)"
                )
            }
            if providerId.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) {
                throw .invalidParameter("ProviderId '\(providerId.prefix(64))' contains whitespace or control characters; give a host name such as graph.facebook.com")
            }
        }
        if let durationSeconds = self.durationSeconds, !Self.durationSecondsRange.contains(durationSeconds) {
            throw .invalidParameter(
                "DurationSeconds is \(durationSeconds); STS accepts \(Self.durationSecondsRange.lowerBound)–\(Self.durationSecondsRange.upperBound) seconds (15 minutes to 12 hours)"
            )
        }
        if let policy = self.policy {
            try Self.validatePolicy(policy)
        }
        if self.policyArns.count > Self.maximumPolicyArnCount {
            throw .invalidParameter(
                "PolicyArns has \(self.policyArns.count) entries; STS accepts at most \(Self.maximumPolicyArnCount)"
            )
        }
        for (index, arn) in self.policyArns.enumerated() {
            try Self.validateARN(arn, parameter: "PolicyArns[\(index)]", requireRole: false)
        }
    }

    private func validateRoleSessionName() throws(WIFCredentialsError) {
        let name = self.roleSessionName
        let length = name.unicodeScalars.count
        if !Self.roleSessionNameLengths.contains(length) {
            throw .invalidParameter(
                "RoleSessionName is \(length) characters; STS accepts \(Self.roleSessionNameLengths.lowerBound)–\(Self.roleSessionNameLengths.upperBound)"
            )
        }
        if let bad = name.unicodeScalars.first(where: { !Self.isSessionNameScalar($0) }) {
            throw .invalidParameter(
                "RoleSessionName '\(name)' contains '\(bad.escaped(asASCII: true))'; STS accepts only letters, digits and + = , . @ _ -"
            )
        }
    }

    private static func isSessionNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "_", "+", "=", ",", ".", "@", "-": return true
        default: return false
        }
    }

    static func validateARN(_ arn: String, parameter: String, requireRole: Bool) throws(WIFCredentialsError) {
        let length = arn.unicodeScalars.count
        if length < Self.minimumARNLength || length > Self.maximumARNLength {
            throw .invalidParameter(
                "\(parameter) is \(length) characters; STS accepts \(Self.minimumARNLength)–\(Self.maximumARNLength)"
            )
        }
        if arn.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) {
            throw .invalidParameter("\(parameter) '\(arn.prefix(100))' contains whitespace or control characters")
        }
        guard let fields = ARNFields(arn) else {
            throw .invalidParameter(
                "\(parameter) '\(arn.prefix(100))' is not an ARN; expected arn:<partition>:<service>:<region>:<account>:<resource>"
            )
        }
        if requireRole {
            guard fields.service == "iam", fields.resource.hasPrefix("role/"), fields.resource.count > "role/".count else {
                throw .invalidParameter(
                    "\(parameter) '\(arn.prefix(100))' is not an IAM role ARN; expected arn:<partition>:iam::<account>:role/<name>"
                )
            }
        }
    }

    static func validatePolicy(_ policy: String) throws(WIFCredentialsError) {
        let length = policy.unicodeScalars.count
        if length == 0 {
            throw .invalidParameter("Policy is empty; leave it nil to use no session policy")
        }
        if length > Self.maximumPolicyLength {
            throw .invalidParameter(
                "Policy is \(length) characters; STS accepts at most \(Self.maximumPolicyLength) (plaintext, before packing)"
            )
        }
        // STS's pattern for Policy: tab, line feed, carriage return and U+0020–U+00FF.
        if let bad = policy.unicodeScalars.first(where: { scalar in
            !(scalar == "\t" || scalar == "\n" || scalar == "\r" || (0x20...0xFF).contains(scalar.value))
        }) {
            throw .invalidParameter(
                "Policy contains the character U+\(String(bad.value, radix: 16, uppercase: true)); STS accepts only tab, line breaks and U+0020–U+00FF"
            )
        }
        let bytes = Array(policy.utf8)
        let document: JSONNode
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            let (line, column) = JSONParser.location(of: error.offset, in: bytes)
            throw .invalidParameter("Policy is not a JSON object: \(error.message) at line \(line), column \(column)")
        }
        guard case .object = document.kind else {
            throw .invalidParameter(
                "Policy is not a JSON object; give an IAM policy document such as {\"Version\":\"2012-10-17\",\"Statement\":[…]}"
            )
        }
        if document.member("Statement") == nil {
            throw .invalidParameter("Policy has no \"Statement\" member; an IAM policy document needs one")
        }
    }
}

/// The six colon-separated fields of an ARN.
struct ARNFields: Sendable, Hashable {
    var partition: String
    var service: String
    var region: String
    var account: String
    var resource: String

    init?(_ arn: String) {
        let parts = arn.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0] == "arn", !parts[1].isEmpty, !parts[2].isEmpty, !parts[5].isEmpty else {
            return nil
        }
        self.partition = String(parts[1])
        self.service = String(parts[2])
        self.region = String(parts[3])
        self.account = String(parts[4])
        self.resource = String(parts[5])
    }

    /// The account field when it is a 12-digit AWS account id.
    var awsAccountId: String? {
        guard self.account.utf8.count == 12, self.account.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return self.account
    }
}
