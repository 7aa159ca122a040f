import AsyncHTTPClient
import Foundation
import Logging
import WIFHTTP

/// What an ``IdentityPoolCredentialProvider`` signs in to and how.
public struct IdentityPoolConfiguration: Sendable {
    /// How credentials are obtained for the identity.
    public enum Flow: Sendable, Hashable {
        /// `GetCredentialsForIdentity`: the pool chooses the role; `customRoleArn` picks one of several
        /// the pool's role mapping offers.
        case enhanced(customRoleArn: String? = nil)
        /// `GetOpenIdToken`, then STS `AssumeRoleWithWebIdentity` on `roleArn`, for pools that allow the
        /// basic flow.
        case basic(roleArn: String, roleSessionName: String = "CognitoIdentityCredentials")
    }

    /// The pool, `REGION:UUID`.
    public var identityPoolId: String
    /// The logins: logins key (`accounts.google.com`, `cognito-idp.REGION.amazonaws.com/POOL`, an OIDC
    /// issuer's host and path) → where its token comes from; empty for a guest.
    public var logins: [String: any WebIdentityTokenSource]
    /// The flow.
    public var flow: Flow
    /// An identity id kept from an earlier run, reused until the service says it no longer exists.
    public var identityId: String?
    /// The account that owns the pool, for pools that need it in `GetId`.
    public var accountId: String?
    /// The Cognito Identity endpoint (a local stack); `nil` for the pool's region's.
    public var endpoint: String?
    /// The STS endpoint of the basic flow; `nil` for the pool's region's.
    public var stsEndpoint: String?

    /// Creates a configuration.
    public init(
        identityPoolId: String, logins: [String: any WebIdentityTokenSource] = [:], flow: Flow = .enhanced(), identityId: String? = nil,
        accountId: String? = nil, endpoint: String? = nil, stsEndpoint: String? = nil
    ) {
        self.identityPoolId = identityPoolId
        self.logins = logins
        self.flow = flow
        self.identityId = identityId
        self.accountId = accountId
        self.endpoint = endpoint
        self.stsEndpoint = stsEndpoint
    }

    /// The region of the pool id (`us-east-1` of `us-east-1:…`).
    var region: String? {
        self.identityPoolId.split(separator: ":", maxSplits: 1).first.map(String.init)
    }
}

/// Supplies credentials of an identity pool identity: a guest without logins, a signed-in user with them.
///
/// The identity id is kept and reused (``identityId()``), so a user keeps it across refreshes and a guest
/// who signs in (``signIn(_:tokenSource:)``) keeps theirs, as AWS links the first login to it; signing out
/// of the last login (``signOut(of:)``) starts a new guest identity; when the service says the identity no
/// longer exists, a new one is asked for once. Each refresh reads the logins'
/// tokens from their sources, so a refreshing token source renews the provider's token before the
/// credentials. Credentials are cached by a ``RefreshingCredentialProvider``: concurrent callers share one
/// refresh, new credentials are fetched before the old ones expire, and cached ones are served while the
/// service fails transiently.
///
/// ```swift
/// let provider = try IdentityPoolCredentialProvider(configuration: .init(
///     identityPoolId: "us-east-1:00000000-0000-4000-8000-000000000001",
///     logins: ["accounts.google.com": StringTokenSource(idToken)]))
/// let credentials = try await provider.getCredentials(logger: logger)
/// ```
public struct IdentityPoolCredentialProvider: CredentialProvider, CustomStringConvertible {
    /// The pool and flow.
    public let identityPoolId: String
    private let session: IdentityPoolSession
    private let refreshing: RefreshingCredentialProvider

    /// Creates a provider. Nothing is sent until credentials are first asked for.
    /// - Parameters:
    ///   - configuration: The pool, logins and flow.
    ///   - cognitoIdentity: Retry and timeout settings of the Cognito Identity client; its region and
    ///     endpoint are used only where `configuration` leaves them `nil`.
    ///   - sts: Settings of the STS client of the basic flow.
    ///   - refresh: When cached credentials are refreshed.
    ///   - environment: Variables consulted for endpoints the configuration does not set.
    ///   - httpClient: The HTTP client.
    ///   - timeSource: The clock for expiry and backoff.
    /// - Throws: ``WIFCredentialsError`` `invalidConfiguration` for an unusable region or endpoint, and
    ///   `invalidParameter` for a malformed pool id or identity id.
    public init(
        configuration: IdentityPoolConfiguration,
        cognitoIdentity: CognitoIdentityClient.Configuration = .init(),
        sts: STSClient.Configuration = .init(),
        refresh: RefreshingCredentialProvider.Configuration = .init(),
        environment: [String: String] = ProcessInfo.processInfo.environment,
        httpClient: HTTPClient = .wifShared,
        timeSource: TimeSource = .system
    ) throws(WIFCredentialsError) {
        try self.init(
            configuration: configuration, cognitoIdentity: cognitoIdentity, sts: sts, refresh: refresh, environment: environment,
            transport: AsyncHTTPClientTransport(httpClient: httpClient), timeSource: timeSource)
    }

    /// Creates a provider whose clients exchange requests through `transport`.
    package init(
        configuration: IdentityPoolConfiguration,
        cognitoIdentity: CognitoIdentityClient.Configuration = .init(),
        sts: STSClient.Configuration = .init(),
        refresh: RefreshingCredentialProvider.Configuration = .init(),
        environment: [String: String] = [:],
        transport: any HTTPTransport,
        timeSource: TimeSource,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) throws(WIFCredentialsError) {
        try CognitoIdentityClient.checkId(configuration.identityPoolId, name: "IdentityPoolId")
        if let identityId = configuration.identityId { try CognitoIdentityClient.checkId(identityId, name: "IdentityId") }
        guard configuration.logins.count <= CognitoIdentityClient.maximumLogins else {
            throw .invalidParameter("\(configuration.logins.count) logins are given; Cognito Identity accepts at most \(CognitoIdentityClient.maximumLogins)")
        }
        var cognitoConfiguration = cognitoIdentity
        if cognitoConfiguration.region == nil { cognitoConfiguration.region = configuration.region }
        if let endpoint = configuration.endpoint { cognitoConfiguration.endpoint = endpoint }
        let client = try CognitoIdentityClient(
            configuration: cognitoConfiguration, environment: environment, transport: transport, timeSource: timeSource, jitter: jitter)
        var stsConfiguration = sts
        if stsConfiguration.region == nil { stsConfiguration.region = configuration.region }
        if let endpoint = configuration.stsEndpoint { stsConfiguration.endpoint = endpoint }
        let stsClient = try STSClient(
            configuration: stsConfiguration, environment: environment, transport: transport, timeSource: timeSource, jitter: jitter)

        let session = IdentityPoolSession(identityId: configuration.identityId, logins: configuration.logins)
        let poolId = configuration.identityPoolId
        let accountId = configuration.accountId
        let flow = configuration.flow
        self.identityPoolId = poolId
        self.session = session
        self.refreshing = RefreshingCredentialProvider(configuration: refresh, timeSource: timeSource) { logger in
            let credentials = try await Self.fetch(
                session: session, poolId: poolId, accountId: accountId, flow: flow, client: client, sts: stsClient, logger: logger)
            await session.issued(credentials.accessKeyId)
            return credentials
        }
    }

    /// One refresh: the logins' tokens, the identity id (kept, or asked for), then the flow; a kept
    /// identity the service no longer knows is replaced once.
    private static func fetch(
        session: IdentityPoolSession, poolId: String, accountId: String?, flow: IdentityPoolConfiguration.Flow,
        client: CognitoIdentityClient, sts: STSClient, logger: Logger
    ) async throws -> AWSCredentials {
        var logins: [String: String] = [:]
        for (key, source) in await session.logins {
            logins[key] = try await source.token(forceRefresh: false, logger: logger).value
        }
        var replaced = false
        while true {
            let identityId: String
            if let kept = await session.identityId {
                identityId = kept
            } else {
                identityId = try await client.getId(identityPoolId: poolId, logins: logins, accountId: accountId, logger: logger)
                await session.setIdentityId(identityId)
            }
            do {
                switch flow {
                case .enhanced(let customRoleArn):
                    let result = try await client.getCredentialsForIdentity(
                        identityId: identityId, logins: logins, customRoleArn: customRoleArn, logger: logger)
                    await session.setIdentityId(result.identityId)
                    return result.credentials
                case .basic(let roleArn, let roleSessionName):
                    let token = try await client.getOpenIdToken(identityId: identityId, logins: logins, logger: logger)
                    await session.setIdentityId(token.identityId)
                    let result = try await sts.assumeRoleWithWebIdentity(
                        AssumeRoleWithWebIdentityRequest(roleArn: roleArn, roleSessionName: roleSessionName), webIdentityToken: token.token,
                        logger: logger)
                    return result.credentials
                }
            } catch let error as WIFCredentialsError where error.serviceError?.code == "ResourceNotFoundException" && !replaced {
                logger.debug("the identity no longer exists; asking for a new one", metadata: ["wif.cognito.identity_id": "\(identityId)"])
                replaced = true
                await session.setIdentityId(nil)
            }
        }
    }

    /// Returns cached credentials, asking the pool again when they are missing or near expiry.
    /// - Parameter logger: Where to log (never tokens or credentials).
    /// - Returns: Temporary credentials of the identity's role.
    /// - Throws: ``WIFCredentialsError``; see ``RefreshingCredentialProvider/getCredentials(logger:)``.
    public func getCredentials(logger: Logger) async throws -> AWSCredentials {
        try await self.refreshing.getCredentials(logger: logger)
    }

    /// Forgets the cached credentials with this access key id.
    public func invalidate(accessKeyId: String) async {
        await self.refreshing.invalidate(accessKeyId: accessKeyId)
    }

    /// The identity id in use, once the pool has given one (or the configured one).
    public func identityId() async -> String? {
        await self.session.identityId
    }

    /// Adds or replaces a login, keeping the identity (a guest who signs in keeps their identity id when the
    /// pool links the login to it); the next call gets new credentials.
    public func signIn(_ key: String, tokenSource: any WebIdentityTokenSource) async throws(WIFCredentialsError) {
        try await self.session.setLogin(key, source: tokenSource)
        await self.dropCachedCredentials()
    }

    /// Removes a login; the next call gets new credentials. The identity is kept while other logins remain;
    /// after the last one it is forgotten and the next call starts a new guest identity, since a pool
    /// refuses guest access to an identity that has logins linked (`NotAuthorizedException`).
    public func signOut(of key: String) async {
        await self.session.removeLogin(key)
        await self.dropCachedCredentials()
    }

    private func dropCachedCredentials() async {
        if let accessKeyId = await self.session.lastAccessKeyId {
            await self.refreshing.invalidate(accessKeyId: accessKeyId)
        }
    }

    /// The pool only; never tokens or credentials.
    public var description: String { "IdentityPoolCredentialProvider(identityPoolId: \(self.identityPoolId))" }
}

/// The mutable part of a provider: the identity id, the logins and the last credentials' key id.
actor IdentityPoolSession {
    private(set) var identityId: String?
    private(set) var logins: [String: any WebIdentityTokenSource]
    private(set) var lastAccessKeyId: String?

    init(identityId: String?, logins: [String: any WebIdentityTokenSource]) {
        self.identityId = identityId
        self.logins = logins
    }

    func setIdentityId(_ id: String?) { self.identityId = id }
    func issued(_ accessKeyId: String) { self.lastAccessKeyId = accessKeyId }
    func removeLogin(_ key: String) {
        guard self.logins.removeValue(forKey: key) != nil, self.logins.isEmpty else { return }
        self.identityId = nil
    }

    func setLogin(_ key: String, source: any WebIdentityTokenSource) throws(WIFCredentialsError) {
        guard self.logins[key] != nil || self.logins.count < CognitoIdentityClient.maximumLogins else {
            throw .invalidParameter("an identity has at most \(CognitoIdentityClient.maximumLogins) logins")
        }
        self.logins[key] = source
    }
}

extension IdentityPoolConfiguration: CustomStringConvertible {
    /// The pool, the logins' keys and the flow; never a token.
    public var description: String {
        let flow: String
        switch self.flow {
        case .enhanced(let customRoleArn): flow = "enhanced" + (customRoleArn.map { "(customRoleArn: \($0))" } ?? "")
        case .basic(let roleArn, _): flow = "basic(roleArn: \(roleArn))"
        }
        return "IdentityPoolConfiguration(identityPoolId: \(self.identityPoolId), logins: [\(self.logins.keys.sorted().joined(separator: ", "))], flow: \(flow))"
    }
}
