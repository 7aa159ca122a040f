import Foundation

/// What a ``WebIdentityCredentialProvider`` needs to assume a role with a web-identity token.
///
/// Build it in code, from the environment (``init(environment:)``, as on EKS with IAM roles for service
/// accounts), or from a profile of the shared config file (``init(profileSet:profileName:environment:platform:)``).
///
/// ```swift
/// let configuration = WebIdentityConfiguration(
///     roleArn: "arn:aws:iam::123456789012:role/app",
///     tokenSource: .file("/var/run/secrets/token")
/// )
/// ```
public struct WebIdentityConfiguration: Sendable, CustomStringConvertible {
    /// The role to assume.
    public var roleArn: String
    /// Where the web-identity token comes from; read on every refresh.
    public var tokenSource: any WebIdentityTokenSource
    /// The session name; `nil` picks ``defaultRoleSessionName(at:)`` when the provider is created.
    public var roleSessionName: String?
    /// How long the credentials last, in seconds; `nil` for STS's default of one hour.
    public var durationSeconds: Int?
    /// The OAuth 2.0 provider of an access token (`graph.facebook.com`, `www.amazon.com`); `nil` for
    /// OpenID Connect ID tokens.
    public var providerId: String?
    /// An inline session policy narrowing the role's permissions.
    public var policy: String?
    /// Managed session policies narrowing the role's permissions.
    public var policyArns: [String]
    /// The region whose STS endpoint to call; `nil` for the STS client's default.
    public var region: String?
    /// An STS endpoint URL replacing the regional one (a local STS, a VPC endpoint).
    public var stsEndpoint: String?
    /// Whether the STS client disregards the endpoint variables (`AWS_ENDPOINT_URL_STS`,
    /// `AWS_ENDPOINT_URL`), as a profile's `ignore_configured_endpoint_urls = true` asks. An endpoint set
    /// in code (``stsEndpoint``, ``STSClient/Configuration/endpoint``) is still used.
    public var ignoresConfiguredEndpointURLs: Bool

    /// Creates a configuration.
    /// - Parameters:
    ///   - roleArn: The role to assume.
    ///   - tokenSource: Where the web-identity token comes from.
    ///   - roleSessionName: The session name; `nil` for a generated one.
    ///   - durationSeconds: How long the credentials last; `nil` for STS's default.
    ///   - providerId: The OAuth 2.0 provider of an access token; `nil` for OIDC ID tokens.
    ///   - policy: An inline session policy.
    ///   - policyArns: Managed session policies.
    ///   - region: The region whose STS endpoint to call.
    ///   - stsEndpoint: An STS endpoint URL replacing the regional one.
    ///   - ignoresConfiguredEndpointURLs: Whether the STS client disregards the endpoint variables.
    public init(
        roleArn: String,
        tokenSource: some WebIdentityTokenSource,
        roleSessionName: String? = nil,
        durationSeconds: Int? = nil,
        providerId: String? = nil,
        policy: String? = nil,
        policyArns: [String] = [],
        region: String? = nil,
        stsEndpoint: String? = nil,
        ignoresConfiguredEndpointURLs: Bool = false
    ) {
        self.roleArn = roleArn
        self.tokenSource = tokenSource
        self.roleSessionName = roleSessionName
        self.durationSeconds = durationSeconds
        self.providerId = providerId
        self.policy = policy
        self.policyArns = policyArns
        self.region = region
        self.stsEndpoint = stsEndpoint
        self.ignoresConfiguredEndpointURLs = ignoresConfiguredEndpointURLs
    }

    /// The session name used when none is configured: `wif-` and the time in milliseconds since 1970,
    /// which STS accepts (2–64 of `[\w+=,.@-]`) and which tells sessions apart in CloudTrail.
    /// - Parameter date: The moment the provider is created, from its ``TimeSource``.
    /// - Returns: A name such as `wif-1700000000000`.
    public static func defaultRoleSessionName(at date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard milliseconds.isFinite, abs(milliseconds) < 1e15 else { return "wif-session" }
        return "wif-\(Int64(milliseconds))"
    }

    /// The STS request this configuration makes.
    /// - Parameter date: The moment used for a generated session name.
    /// - Returns: The request, not yet validated.
    public func request(at date: Date) -> AssumeRoleWithWebIdentityRequest {
        AssumeRoleWithWebIdentityRequest(
            roleArn: self.roleArn,
            roleSessionName: self.roleSessionName ?? Self.defaultRoleSessionName(at: date),
            providerId: self.providerId,
            durationSeconds: self.durationSeconds,
            policy: self.policy,
            policyArns: self.policyArns
        )
    }

    /// Checks every parameter against STS's bounds, and the region and endpoint.
    /// - Throws: ``WIFCredentialsError`` with code `invalidParameter` naming the STS parameter and the
    ///   bound it breaks, or `invalidConfiguration` naming an unusable region or endpoint.
    public func validate() throws {
        try self.request(at: Date(timeIntervalSince1970: 0)).validate()
        _ = try STSClient.Configuration(region: self.region, endpoint: self.stsEndpoint).resolve(environment: [:])
    }

    /// The role, the token source and the optional settings; never a token.
    public var description: String {
        let source = (self.tokenSource as? any CustomStringConvertible)?.description
            ?? String(describing: type(of: self.tokenSource))
        var parts = ["roleArn: \(self.roleArn)", "tokenSource: \(source)"]
        if let roleSessionName { parts.append("roleSessionName: \(roleSessionName)") }
        if let durationSeconds { parts.append("durationSeconds: \(durationSeconds)") }
        if let providerId { parts.append("providerId: \(providerId)") }
        if let policy { parts.append("policy: \(policy.count) characters") }
        if !self.policyArns.isEmpty { parts.append("policyArns: [\(self.policyArns.joined(separator: ", "))]") }
        if let region { parts.append("region: \(region)") }
        if let stsEndpoint { parts.append("stsEndpoint: \(stsEndpoint)") }
        if self.ignoresConfiguredEndpointURLs { parts.append("ignoresConfiguredEndpointURLs: true") }
        return "WebIdentityConfiguration(\(parts.joined(separator: ", ")))"
    }
}
