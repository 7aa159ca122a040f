import AsyncHTTPClient
import Foundation
import Logging
import WIFHTTP

/// The usual places to find credentials, tried in order, as the AWS SDKs do:
///
/// 1. Keys in the environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`).
/// 2. Web identity from the environment (`AWS_ROLE_ARN` with `AWS_WEB_IDENTITY_TOKEN_FILE`, as EKS
///    sets them for IAM roles for service accounts).
/// 3. The selected profile of the shared config and credentials files (`AWS_PROFILE`, else
///    `default`): web identity (`role_arn` with `web_identity_token_file`), else static keys.
///
/// The first step that supplies credentials is kept for every later call (see
/// ``ChainCredentialProvider``). When none does, the error lists each step's reason. The profile step
/// reads the shared files again whenever they change on disk, so an edited profile takes effect on the
/// next call.
///
/// ```swift
/// let provider: some CredentialProvider = .default()
/// let credentials = try await provider.getCredentials(logger: logger)
/// ```
public struct DefaultCredentialChain: CredentialProvider, CustomStringConvertible {
    /// Settings shared by the chain's web-identity steps.
    public struct Configuration: Sendable {
        /// Retry and timeout settings for STS; region and endpoint apply only where the environment or
        /// profile sets none.
        public var sts: STSClient.Configuration
        /// When cached web-identity credentials are refreshed.
        public var refresh: RefreshingCredentialProvider.Configuration
        /// The path conventions for the shared files.
        public var platform: AWSConfigFileLocation.Platform

        /// Creates settings.
        /// - Parameters:
        ///   - sts: Retry and timeout settings for STS.
        ///   - refresh: When cached web-identity credentials are refreshed.
        ///   - platform: The path conventions for the shared files; by default this platform's.
        public init(
            sts: STSClient.Configuration = .init(),
            refresh: RefreshingCredentialProvider.Configuration = .init(),
            platform: AWSConfigFileLocation.Platform = .current
        ) {
            self.sts = sts
            self.refresh = refresh
            self.platform = platform
        }
    }

    private let chain: ChainCredentialProvider

    /// Creates the chain. The environment is read now; the shared files when the profile step is
    /// first reached.
    /// - Parameters:
    ///   - environment: The variables to read; by default the process environment.
    ///   - profile: The profile to read; `nil` for `AWS_PROFILE`, else `default`.
    ///   - configuration: Settings for the web-identity steps.
    ///   - httpClient: The HTTP client to call STS with.
    ///   - timeSource: The clock for session names, expiry and backoff.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        profile: String? = nil,
        configuration: Configuration = .init(),
        httpClient: HTTPClient = .wifShared,
        timeSource: TimeSource = .system
    ) {
        self.init(
            environment: environment,
            profile: profile,
            configuration: configuration,
            transport: AsyncHTTPClientTransport(httpClient: httpClient),
            timeSource: timeSource
        )
    }

    /// Creates the chain with STS reached through `transport`.
    package init(
        environment: [String: String],
        profile: String?,
        configuration: Configuration,
        transport: any HTTPTransport,
        timeSource: TimeSource
    ) {
        let makeWebIdentity: @Sendable (WebIdentityConfiguration) -> WebIdentityCredentialProvider = { webIdentity in
            WebIdentityCredentialProvider(
                configuration: webIdentity,
                sts: configuration.sts,
                refresh: configuration.refresh,
                environment: environment,
                transport: transport,
                timeSource: timeSource
            )
        }
        let environmentWebIdentity: any CredentialProvider
        do {
            if let webIdentity = try WebIdentityConfiguration(environment: environment) {
                environmentWebIdentity = makeWebIdentity(webIdentity)
            } else {
                environmentWebIdentity = UnavailableStep(
                    name: "WebIdentityCredentialProvider(environment)",
                    error: .noCredentials(
                        "\(WebIdentityConfiguration.Variable.roleArn) and \(WebIdentityConfiguration.Variable.webIdentityTokenFile) are not set"
                    )
                )
            }
        } catch {
            environmentWebIdentity = UnavailableStep(
                name: "WebIdentityCredentialProvider(environment)",
                error: error as? WIFCredentialsError ?? .invalidConfiguration("\(error)")
            )
        }
        self.chain = ChainCredentialProvider([
            EnvironmentCredentialProvider(environment: environment),
            environmentWebIdentity,
            ProfileStep(
                environment: environment,
                profileName: profile,
                platform: configuration.platform,
                makeWebIdentity: makeWebIdentity
            ),
        ])
    }

    /// The steps, in the order they are tried.
    public var providers: [any CredentialProvider] { self.chain.providers }

    /// The index in ``providers`` of the step that supplied credentials, once one has.
    public var selectedIndex: Int? { self.chain.selectedIndex }

    /// Returns credentials from the step chosen earlier, or from the first step that has them.
    /// - Parameter logger: Where to log.
    /// - Returns: The credentials.
    /// - Throws: The chosen step's error once one has been chosen; before that,
    ///   ``WIFCredentialsError`` with code `noCredentials` listing each step's reason.
    public func getCredentials(logger: Logger) async throws -> AWSCredentials {
        try await self.chain.getCredentials(logger: logger)
    }

    /// Passes a rejected key id on to the chosen step, so a cache in it is cleared.
    /// - Parameter accessKeyId: The key id a service rejected.
    public func invalidate(accessKeyId: String) async {
        await self.chain.invalidate(accessKeyId: accessKeyId)
    }

    /// The steps, by their own descriptions.
    public var description: String {
        "DefaultCredentialChain(\(self.providers.map { ($0 as? any CustomStringConvertible)?.description ?? "\(type(of: $0))" }.joined(separator: ", ")))"
    }
}

extension CredentialProvider where Self == DefaultCredentialChain {
    /// The default chain: environment keys, web identity from the environment, then the selected
    /// profile (web identity or static keys).
    /// - Parameters:
    ///   - environment: The variables to read; by default the process environment.
    ///   - profile: The profile to read; `nil` for `AWS_PROFILE`, else `default`.
    ///   - configuration: Settings for the web-identity steps.
    ///   - httpClient: The HTTP client to call STS with.
    ///   - timeSource: The clock for session names, expiry and backoff.
    /// - Returns: A ``DefaultCredentialChain``.
    public static func `default`(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        profile: String? = nil,
        configuration: DefaultCredentialChain.Configuration = .init(),
        httpClient: HTTPClient = .wifShared,
        timeSource: TimeSource = .system
    ) -> Self {
        DefaultCredentialChain(
            environment: environment,
            profile: profile,
            configuration: configuration,
            httpClient: httpClient,
            timeSource: timeSource
        )
    }
}

extension DefaultCredentialChain {
    /// A chain step that is known not to work, reporting why each time it is asked.
    struct UnavailableStep: CredentialProvider, CustomStringConvertible {
        let name: String
        let error: WIFCredentialsError

        func getCredentials(logger: Logger) async throws -> AWSCredentials {
            throw self.error
        }

        var description: String { self.name }
    }
}
