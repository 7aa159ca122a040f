import AsyncHTTPClient
import Foundation
import Logging
import S3Partition
import WIFCredentials
import WIFFoundation
import WIFHTTP

/// Sets up federation on a Ceph RADOS Gateway through its IAM API: registers an OpenID Connect issuer
/// as an OIDC provider, creates the shared bucket, and creates the roles and role policies of a
/// ``CephRGWFederationPlan``, so that the issuer's users can trade their tokens for credentials with
/// `AssumeRoleWithWebIdentity` and reach only their own folder.
///
/// Every call is signed with SigV4 with the credentials of an RGW user that has the `roles`,
/// `oidc-provider` and `buckets` capabilities (`radosgw-admin user create … --caps "roles=*;oidc-provider=*"`).
/// Applying a plan again is safe: what exists is brought in line with the plan (trust policies are
/// replaced, role policies overwritten, a provider with other client ids or thumbprints re-created),
/// nothing else is touched.
///
/// ```swift
/// let federation = try CephRGWFederation(
///     configuration: .init(endpoint: "http://127.0.0.1:8000"),
///     credentialProvider: .static(AWSCredentials(accessKeyId: adminKey, secretAccessKey: adminSecret)))
/// let plan = CephRGWFederationPlan(
///     issuer: "http://127.0.0.1:4566", clientIds: ["wif-local"], bucket: "wif-personal",
///     strategy: .rolePerUser, users: ["alice", "bob"])
/// let result = try await federation.apply(plan)
/// result.roleARNs["alice"]   // "arn:aws:iam:::role/wif-alice"
/// ```
///
/// RGW's answers differ from AWS IAM's: errors are S3-shaped (`<Error><Code>…`) with an empty
/// message, some are not XML at all, and a missing entity may answer `404` where AWS answers `200`.
/// Every failure is an ``EngineSetupError`` with the service's code (`EntityAlreadyExists`,
/// `NoSuchEntity`, `MalformedPolicyDocument`, …) or, without a readable document, the code of its HTTP
/// status, and a reason naming the IAM action; a failure to create the bucket keeps the S3 client's
/// error in ``EngineSetupError/s3Error``.
public struct CephRGWFederation: Sendable {
    /// Where the gateway is and how long a call may take.
    public struct Configuration: Sendable, Hashable {
        /// The gateway's URL, such as `http://127.0.0.1:8000`; S3, IAM and STS share it.
        public var endpoint: String
        /// The region to sign for; RGW accepts any, `us-east-1` by default.
        public var region: String
        /// How long one call may wait for its answer.
        public var timeout: Duration

        /// Creates a configuration.
        /// - Parameters:
        ///   - endpoint: The gateway's URL.
        ///   - region: The region to sign for.
        ///   - timeout: How long one call may wait.
        public init(endpoint: String, region: String = "us-east-1", timeout: Duration = .seconds(30)) {
            self.endpoint = endpoint
            self.region = region
            self.timeout = timeout
        }
    }

    /// The configuration the federation was created with.
    public let configuration: Configuration
    let endpoint: URL
    let credentialProvider: any CredentialProvider
    let httpClient: HTTPClient
    let transport: any HTTPTransport
    let timeSource: TimeSource
    let s3: S3Client

    /// Creates a client for a gateway.
    /// - Parameters:
    ///   - configuration: The gateway's URL, region and timeout.
    ///   - credentialProvider: The administrator's credentials.
    ///   - httpClient: The HTTP client; S3Partition's `S3Client.sharedHTTPClient` by default.
    ///   - timeSource: The clock that dates signatures.
    /// - Throws: ``EngineSetupError`` with code ``EngineSetupError/Code/invalidConfiguration`` for an
    ///   endpoint that is not an http or https URL with a host, or an unusable region or timeout.
    public init(
        configuration: Configuration,
        credentialProvider: some CredentialProvider,
        httpClient: HTTPClient = S3Client.sharedHTTPClient,
        timeSource: TimeSource = .system
    ) throws(EngineSetupError) {
        var text = configuration.endpoint
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host(), !host.isEmpty, url.query == nil, url.path.isEmpty
        else {
            throw .invalidConfiguration("the gateway endpoint must be an http or https URL with a host and no path, such as http://127.0.0.1:8000, not '\(configuration.endpoint)'")
        }
        if configuration.timeout <= .zero {
            throw .invalidConfiguration("the timeout is \(configuration.timeout); it must be positive")
        }
        self.configuration = configuration
        self.endpoint = url
        self.credentialProvider = credentialProvider
        self.httpClient = httpClient
        self.transport = AsyncHTTPClientTransport(httpClient: httpClient)
        self.timeSource = timeSource
        do {
            self.s3 = try S3Client(
                configuration: S3Client.Configuration(
                    region: configuration.region, endpoint: text, addressingStyle: .path, timeout: configuration.timeout),
                credentialProvider: credentialProvider, environment: [:], httpClient: httpClient, timeSource: timeSource)
        } catch {
            throw EngineSetupError(error)
        }
    }

    // MARK: Applying a plan

    /// Brings the gateway in line with a plan: the OIDC provider, the bucket, the roles and their
    /// policies.
    /// - Parameters:
    ///   - plan: What to set up; it is validated first.
    ///   - logger: Where to log each step (at debug level).
    /// - Returns: What was set up, with each user's role ARN.
    /// - Throws: ``EngineSetupError``: the plan's problem, or the gateway's refusal with the IAM action named.
    public func apply(
        _ plan: CephRGWFederationPlan, logger: Logger = .noop
    ) async throws -> CephRGWFederationResult {
        try plan.validate()
        var thumbprints = plan.thumbprints
        if thumbprints.isEmpty {
            thumbprints = try await Self.issuerThumbprints(
                issuer: plan.issuer, httpClient: self.httpClient, timeout: self.configuration.timeout, logger: logger)
        }
        let provider = try await self.ensureProvider(plan, thumbprints: thumbprints, logger: logger)
        do {
            try await self.s3.createBucket(plan.bucket, logger: logger)
        } catch let error as S3Error {
            throw EngineSetupError(error)
        }
        var roleARNs: [String: String] = [:]
        for role in plan.roles {
            let arn = try await self.ensureRole(role, logger: logger)
            roleARNs[role.name] = arn
        }
        var userRoles: [String: String] = [:]
        for user in plan.users {
            userRoles[user] = roleARNs[plan.roleName(for: user)] ?? plan.roleARN(for: user)
        }
        let shared = plan.strategy == .rolePerUser ? nil : (roleARNs[plan.sharedRoleName] ?? "arn:aws:iam:::role/\(plan.sharedRoleName)")
        return CephRGWFederationResult(
            providerARN: provider.arn, provider: provider.change, thumbprints: thumbprints, bucket: plan.bucket,
            strategy: plan.strategy, roleARNs: userRoles, sharedRoleARN: shared)
    }

    /// Removes what a plan set up, apart from the bucket and its objects: the roles (their policies
    /// first) and the OIDC provider. What is already gone is skipped.
    /// - Parameters:
    ///   - plan: The plan that was applied.
    ///   - logger: Where to log each step.
    /// - Throws: ``EngineSetupError`` when the gateway refuses a deletion for another reason than a missing
    ///   entity.
    public func remove(
        _ plan: CephRGWFederationPlan, logger: Logger = .noop
    ) async throws {
        try plan.validate()
        for role in plan.roles {
            for policy in role.policies {
                try await self.ignoringMissing {
                    _ = try await self.call("DeleteRolePolicy", [("RoleName", role.name), ("PolicyName", policy.name)], logger: logger)
                }
            }
            try await self.ignoringMissing {
                _ = try await self.call("DeleteRole", [("RoleName", role.name)], logger: logger)
            }
        }
        try await self.ignoringMissing {
            _ = try await self.call("DeleteOpenIDConnectProvider", [("OpenIDConnectProviderArn", plan.providerARN)], logger: logger)
        }
    }

    /// The OIDC provider as the plan wants it: created when missing, kept when it already has the plan's
    /// client ids and thumbprints, otherwise re-created (RGW cannot change them in place) with both its
    /// own and the plan's, so that plans of several strategies for one issuer do not undo each other.
    private func ensureProvider(
        _ plan: CephRGWFederationPlan, thumbprints: [String], logger: Logger
    ) async throws -> (arn: String, change: CephRGWFederationResult.Change) {
        let clientIds = plan.registeredClientIds
        let wantedThumbprints = thumbprints.map { $0.lowercased() }
        if let existing = try await self.provider(arn: plan.providerARN, logger: logger) {
            let existingThumbprints = existing.thumbprints.map { $0.lowercased() }
            if Set(clientIds).isSubset(of: existing.clientIds), Set(wantedThumbprints).isSubset(of: existingThumbprints) {
                logger.debug("the OIDC provider is already registered", metadata: ["wif.rgw.provider": "\(plan.providerARN)"])
                return (plan.providerARN, .unchanged)
            }
            _ = try await self.call("DeleteOpenIDConnectProvider", [("OpenIDConnectProviderArn", plan.providerARN)], logger: logger)
            let arn = try await self.createProvider(
                plan, clientIds: Self.union(existing.clientIds, clientIds), thumbprints: Self.union(existingThumbprints, wantedThumbprints),
                logger: logger)
            return (arn, .replaced)
        }
        let arn = try await self.createProvider(plan, clientIds: clientIds, thumbprints: thumbprints, logger: logger)
        return (arn, .created)
    }

    private func createProvider(
        _ plan: CephRGWFederationPlan, clientIds: [String], thumbprints: [String], logger: Logger
    ) async throws -> String {
        var parameters = [("Url", plan.issuer)]
        for (index, id) in clientIds.enumerated() { parameters.append(("ClientIDList.member.\(index + 1)", id)) }
        for (index, thumbprint) in thumbprints.enumerated() { parameters.append(("ThumbprintList.member.\(index + 1)", thumbprint)) }
        let answer = try await self.call("CreateOpenIDConnectProvider", parameters, logger: logger)
        return answer.first("OpenIDConnectProviderArn")?.text ?? plan.providerARN
    }

    /// A registered provider's client ids and thumbprints, or `nil` when there is none with the ARN.
    func provider(arn: String, logger: Logger) async throws -> (clientIds: [String], thumbprints: [String])? {
        do {
            let answer = try await self.call("GetOpenIDConnectProvider", [("OpenIDConnectProviderArn", arn)], logger: logger)
            let clientIds = answer.first("ClientIDList")?.children(named: "member").map(\.text) ?? []
            let thumbprints = answer.first("ThumbprintList")?.children(named: "member").map(\.text) ?? []
            return (clientIds, thumbprints)
        } catch let error as EngineSetupError where Self.isMissing(error) {
            return nil
        }
    }

    /// Creates a role, or replaces the trust policy of an existing one, then puts its policies.
    private func ensureRole(_ role: CephRGWRole, logger: Logger) async throws -> String {
        var arn: String?
        do {
            let answer = try await self.call(
                "CreateRole", [("RoleName", role.name), ("Path", "/"), ("AssumeRolePolicyDocument", role.trustPolicy)], logger: logger)
            arn = answer.first("Arn")?.text
        } catch let error as EngineSetupError where error.code == .entityAlreadyExists {
            _ = try await self.call("UpdateAssumeRolePolicy", [("RoleName", role.name), ("PolicyDocument", role.trustPolicy)], logger: logger)
            let answer = try await self.call("GetRole", [("RoleName", role.name)], logger: logger)
            arn = answer.first("Arn")?.text
        }
        for policy in role.policies {
            _ = try await self.call(
                "PutRolePolicy", [("RoleName", role.name), ("PolicyName", policy.name), ("PolicyDocument", policy.document)], logger: logger)
        }
        return arn ?? "arn:aws:iam:::role/\(role.name)"
    }

    /// The elements of `first`, then those of `second` not in `first`.
    static func union(_ first: [String], _ second: [String]) -> [String] {
        var seen = Set<String>()
        return (first + second).filter { seen.insert($0).inserted }
    }

    private func ignoringMissing(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as EngineSetupError where Self.isMissing(error) {
            return
        }
    }

    static func isMissing(_ error: EngineSetupError) -> Bool {
        error.code == .noSuchEntity || error.httpStatus == 404
    }
}
