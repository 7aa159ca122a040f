import AsyncHTTPClient
import Foundation
import Logging
import WIFHTTP

/// Supplies temporary credentials by assuming a role with a web-identity token through STS
/// `AssumeRoleWithWebIdentity`.
///
/// Each refresh reads the token from the configuration's ``WebIdentityConfiguration/tokenSource`` (so
/// a rotated token file is picked up) and calls STS. The credentials are cached by a
/// ``RefreshingCredentialProvider``: concurrent callers share one STS call, and new credentials are
/// fetched before the old ones expire. A rejected token is read again once with `forceRefresh`.
///
/// ```swift
/// let provider: some CredentialProvider = .webIdentity(
///     roleArn: "arn:aws:iam::123456789012:role/app",
///     tokenSource: .file("/var/run/secrets/token"),
///     region: "eu-west-1"
/// )
/// let credentials = try await provider.getCredentials(logger: logger)
/// ```
public struct WebIdentityCredentialProvider: CredentialProvider, CustomStringConvertible {
    /// What the provider assumes and with which token.
    public let configuration: WebIdentityConfiguration
    /// The session name sent to STS: the configured one, or one generated when the provider was
    /// created.
    public let roleSessionName: String
    private let refreshing: RefreshingCredentialProvider

    /// Creates a provider. Nothing is read or sent until credentials are first asked for.
    /// - Parameters:
    ///   - configuration: The role, token source and optional settings.
    ///   - sts: Retry and timeout settings of the STS client; its region and endpoint are used only
    ///     where `configuration` leaves them `nil`.
    ///   - refresh: When cached credentials are refreshed.
    ///   - environment: Variables the STS client consults for a region and endpoint that neither
    ///     `configuration` nor `sts` sets; by default the process environment.
    ///   - httpClient: The HTTP client to call STS with.
    ///   - timeSource: The clock for the generated session name, expiry and backoff.
    public init(
        configuration: WebIdentityConfiguration,
        sts: STSClient.Configuration = .init(),
        refresh: RefreshingCredentialProvider.Configuration = .init(),
        environment: [String: String] = ProcessInfo.processInfo.environment,
        httpClient: HTTPClient = .wifShared,
        timeSource: TimeSource = .system
    ) {
        self.init(
            configuration: configuration,
            sts: sts,
            refresh: refresh,
            environment: environment,
            transport: AsyncHTTPClientTransport(httpClient: httpClient),
            timeSource: timeSource
        )
    }

    /// Creates a provider whose STS client exchanges requests through `transport`.
    package init(
        configuration: WebIdentityConfiguration,
        sts: STSClient.Configuration = .init(),
        refresh: RefreshingCredentialProvider.Configuration = .init(),
        environment: [String: String] = [:],
        transport: any HTTPTransport,
        timeSource: TimeSource,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) {
        var stsConfiguration = sts
        if let region = configuration.region { stsConfiguration.region = region }
        if let endpoint = configuration.stsEndpoint { stsConfiguration.endpoint = endpoint }
        var stsEnvironment = environment
        if configuration.ignoresConfiguredEndpointURLs {
            // The profile said so: the endpoint variables must not bring back what it ignores.
            stsEnvironment[WebIdentityConfiguration.Variable.ignoreConfiguredEndpointURLs] = "true"
        }
        let client = Result { () throws(WIFCredentialsError) in
            try STSClient(
                configuration: stsConfiguration,
                environment: stsEnvironment,
                transport: transport,
                timeSource: timeSource,
                jitter: jitter
            )
        }
        let roleSessionName = configuration.roleSessionName
            ?? WebIdentityConfiguration.defaultRoleSessionName(at: timeSource.now())
        var named = configuration
        named.roleSessionName = roleSessionName
        let request = named.request(at: timeSource.now())
        let tokenSource = configuration.tokenSource

        self.configuration = configuration
        self.roleSessionName = roleSessionName
        self.refreshing = RefreshingCredentialProvider(configuration: refresh, timeSource: timeSource) { logger in
            let sts = try client.get()
            let result = try await sts.assumeRoleWithWebIdentity(request, tokenSource: tokenSource, logger: logger)
            logger.debug(
                "assumed role with web identity",
                metadata: [
                    "wif.web_identity.role_arn": "\(request.roleArn)",
                    "wif.web_identity.session_name": "\(request.roleSessionName)",
                    "wif.web_identity.expiration": "\(result.credentials.expiration.map { $0.formatted(.iso8601) } ?? "-")",
                ]
            )
            return result.credentials
        }
    }

    /// Returns cached credentials, assuming the role again when they are missing or near expiry.
    /// - Parameter logger: Where to log (never the token or credentials).
    /// - Returns: Temporary credentials for the role.
    /// - Throws: ``WIFCredentialsError``: `invalidConfiguration` for an unusable region or endpoint,
    ///   `invalidParameter` for a setting outside STS's bounds, `tokenUnavailable` or `tokenExpired`
    ///   from the token source, `service` when STS refuses, `noCredentials` when nothing is cached and
    ///   STS could not be reached; see ``RefreshingCredentialProvider/getCredentials(logger:)``.
    public func getCredentials(logger: Logger) async throws -> AWSCredentials {
        try await self.refreshing.getCredentials(logger: logger)
    }

    /// Forgets the cached credentials with this access key id, so the next call assumes the role
    /// again.
    /// - Parameter accessKeyId: The key id a service rejected.
    public func invalidate(accessKeyId: String) async {
        await self.refreshing.invalidate(accessKeyId: accessKeyId)
    }

    /// The role, session name and token source; never a token or credentials.
    public var description: String {
        let source = (self.configuration.tokenSource as? any CustomStringConvertible)?.description
            ?? String(describing: type(of: self.configuration.tokenSource))
        return "WebIdentityCredentialProvider(roleArn: \(self.configuration.roleArn), roleSessionName: \(self.roleSessionName), tokenSource: \(source))"
    }
}

extension CredentialProvider where Self == WebIdentityCredentialProvider {
    /// A provider assuming a role with a web-identity token.
    /// - Parameters:
    ///   - configuration: The role, token source and optional settings.
    ///   - refresh: When cached credentials are refreshed.
    ///   - httpClient: The HTTP client to call STS with.
    ///   - timeSource: The clock for the session name, expiry and backoff.
    /// - Returns: A ``WebIdentityCredentialProvider``.
    public static func webIdentity(
        _ configuration: WebIdentityConfiguration,
        refresh: RefreshingCredentialProvider.Configuration = .init(),
        httpClient: HTTPClient = .wifShared,
        timeSource: TimeSource = .system
    ) -> Self {
        WebIdentityCredentialProvider(configuration: configuration, refresh: refresh, httpClient: httpClient, timeSource: timeSource)
    }

    /// A provider assuming `roleArn` with tokens from `tokenSource`.
    /// - Parameters:
    ///   - roleArn: The role to assume.
    ///   - tokenSource: Where the web-identity token comes from: `.file(path)`, `.string(token)`,
    ///     `.closure { forceRefresh in … }`.
    ///   - roleSessionName: The session name; `nil` for a generated one.
    ///   - providerId: The OAuth 2.0 provider of an access token; `nil` for OIDC ID tokens.
    ///   - durationSeconds: How long the credentials last; `nil` for STS's default.
    ///   - region: The region whose STS endpoint to call; `nil` for `AWS_REGION` or `us-east-1`.
    ///   - stsEndpoint: An STS endpoint URL replacing the regional one.
    ///   - httpClient: The HTTP client to call STS with.
    ///   - timeSource: The clock for the session name, expiry and backoff.
    /// - Returns: A ``WebIdentityCredentialProvider``.
    public static func webIdentity(
        roleArn: String,
        tokenSource: some WebIdentityTokenSource,
        roleSessionName: String? = nil,
        providerId: String? = nil,
        durationSeconds: Int? = nil,
        region: String? = nil,
        stsEndpoint: String? = nil,
        httpClient: HTTPClient = .wifShared,
        timeSource: TimeSource = .system
    ) -> Self {
        WebIdentityCredentialProvider(
            configuration: WebIdentityConfiguration(
                roleArn: roleArn,
                tokenSource: tokenSource,
                roleSessionName: roleSessionName,
                durationSeconds: durationSeconds,
                providerId: providerId,
                region: region,
                stsEndpoint: stsEndpoint
            ),
            httpClient: httpClient,
            timeSource: timeSource
        )
    }
}
