import AsyncHTTPClient
import Foundation
import Logging
import S3Partition
import WIFCredentials
import WIFLocal

/// Signing in through an identity pool (Amazon Cognito Identity, or the local stack's): the identity,
/// its credentials, the role the pool chose and why, and Amplify's folders.
public enum IdentityPoolSignIn {
    /// The role session name of identity-pool credentials, as AWS names it.
    public static let roleSessionName = "CognitoIdentityCredentials"

    /// Where an identity pool's service is reached: one call's settings.
    public struct Connection: Sendable {
        /// The Cognito Identity endpoint; `nil` for the pool's region's.
        public var endpoint: String?
        /// The STS endpoint (the basic flow, and `GetCallerIdentity` to learn the role).
        public var stsEndpoint: URL
        /// The HTTP client.
        public var httpClient: HTTPClient

        /// Creates the settings.
        public init(endpoint: String?, stsEndpoint: URL, httpClient: HTTPClient) {
            self.endpoint = endpoint
            self.stsEndpoint = stsEndpoint
            self.httpClient = httpClient
        }

        /// The settings of a command's target: the embedded stack answers Cognito Identity on its own
        /// port; elsewhere `stored` (a sign-in's endpoint, `--cognito-endpoint`) or the region's.
        public init(_ context: StoreContext, stored: String?) {
            self.init(
                endpoint: context.local != nil ? context.s3Endpoint.absoluteString : stored, stsEndpoint: context.stsEndpoint,
                httpClient: context.httpClient)
        }
    }

    /// Credentials for an identity: the kept one (a guest who signs in keeps their id, as AWS links the
    /// first login to it), or a new one when there is none, the service no longer knows it, or the login
    /// is already linked to another identity (whose id is then used).
    /// - Parameters:
    ///   - poolId: The pool.
    ///   - login: The logins key and token; `nil` for a guest.
    ///   - identityId: The identity kept from an earlier sign-in of this pool.
    ///   - basicFlowRoleArn: The role of the basic flow; `nil` for the enhanced flow.
    ///   - connection: Where the service is.
    ///   - logger: Where to log; never a token or a secret.
    /// - Returns: The credentials and the identity id they are for.
    /// - Throws: ``WIFCredentialsError`` from Cognito Identity and STS.
    public static func credentials(
        poolId: String, login: (key: String, token: String)?, identityId: String?, basicFlowRoleArn: String?, connection: Connection,
        logger: Logger
    ) async throws -> (credentials: AWSCredentials, identityId: String) {
        do {
            return try await Self.fetch(
                poolId: poolId, login: login, identityId: identityId, basicFlowRoleArn: basicFlowRoleArn, connection: connection, logger: logger)
        } catch let error as WIFCredentialsError where identityId != nil && Self.asksForAnotherIdentity(error, signedIn: login != nil) {
            logger.debug(
                "the kept identity cannot be used with this sign-in; asking the pool for the identity",
                metadata: ["wif.tool.reason": "\(error.serviceError?.code ?? error.reason)"])
            return try await Self.fetch(
                poolId: poolId, login: login, identityId: nil, basicFlowRoleArn: basicFlowRoleArn, connection: connection, logger: logger)
        }
    }

    /// A login linked to another identity, or a guest asking for an identity that now has logins.
    private static func asksForAnotherIdentity(_ error: WIFCredentialsError, signedIn: Bool) -> Bool {
        switch error.serviceError?.code {
        case "ResourceConflictException": return signedIn
        case "NotAuthorizedException": return !signedIn
        default: return false
        }
    }

    private static func fetch(
        poolId: String, login: (key: String, token: String)?, identityId: String?, basicFlowRoleArn: String?, connection: Connection,
        logger: Logger
    ) async throws -> (credentials: AWSCredentials, identityId: String) {
        let logins: [String: any WebIdentityTokenSource] = login.map { [$0.key: StringTokenSource($0.token)] } ?? [:]
        let flow: IdentityPoolConfiguration.Flow =
            basicFlowRoleArn.map { .basic(roleArn: $0, roleSessionName: Self.roleSessionName) } ?? .enhanced()
        let provider = try IdentityPoolCredentialProvider(
            configuration: IdentityPoolConfiguration(
                identityPoolId: poolId, logins: logins, flow: flow, identityId: identityId, endpoint: connection.endpoint,
                stsEndpoint: connection.stsEndpoint.absoluteString),
            environment: [:], httpClient: connection.httpClient)
        let credentials = try await provider.getCredentials(logger: logger)
        guard let id = await provider.identityId() else {
            throw WIFCredentialsError.malformedResponse("the identity pool \(poolId) gave credentials without an identity id")
        }
        return (credentials, id)
    }

    /// The role the credentials are a session of, from STS `GetCallerIdentity`; `nil` when STS cannot say.
    public static func role(of credentials: AWSCredentials, region: String, connection: Connection, logger: Logger) async -> String? {
        do {
            let sts = try STSClient(
                configuration: STSClient.Configuration(region: region, endpoint: connection.stsEndpoint.absoluteString), environment: [:],
                httpClient: connection.httpClient)
            return try await sts.getCallerIdentity(credentials: credentials, logger: logger).roleArn
        } catch {
            logger.debug("STS did not say whose credentials these are", metadata: ["wif.tool.reason": "\(error)"])
            return nil
        }
    }

    /// Why a pool gave `role`: `guest` without a login; `token` when the token's `cognito:preferred_role`
    /// or `cognito:roles` names it; where the pool's roles are known (the local stack), `authenticated`
    /// for its authenticated role and `rule` for another; else `pool`.
    /// - Parameters:
    ///   - role: The role the credentials are a session of.
    ///   - token: The login's token; `nil` for a guest.
    ///   - authenticatedRole: The pool's authenticated role, when known.
    public static func roleReason(role: String?, token: String?, authenticatedRole: String?) -> String {
        guard let token else { return "guest" }
        if let role, let claims = UnverifiedJWTClaims(token: token) {
            if claims.cognitoRoles.contains(role) { return "token" }
        }
        guard let authenticatedRole, let role else { return "pool" }
        return role == authenticatedRole ? "authenticated" : "rule"
    }

    /// The logins key of a provider, as AWS names it: `accounts.google.com`, `graph.facebook.com`,
    /// `www.amazon.com`, else the token issuer's host and path (`cognito-idp.REGION.amazonaws.com/POOL`,
    /// an OpenID Connect issuer's).
    /// - Returns: `nil` when the token names no issuer and the provider is not one of those.
    public static func loginsKey(provider: String, token: String) -> String? {
        switch provider {
        case "google": return "accounts.google.com"
        case "facebook": return "graph.facebook.com"
        case "amazon": return "www.amazon.com"
        default:
            guard let issuer = UnverifiedJWTClaims(token: token)?.issuer else { return nil }
            let key = ProviderProfile.keyPrefix(ofIssuer: issuer)
            return key.isEmpty ? nil : key
        }
    }
}

/// Amplify Storage's access levels, each a folder of the shared bucket keyed by the identity id.
public enum StorageLevel: String, Sendable, CaseIterable {
    /// `private/IDENTITY/`: the owner only.
    case `private`
    /// `protected/IDENTITY/`: every signed-in user reads; the owner writes.
    case protected
    /// `public/`: everyone reads, guests included; signed-in users write.
    case `public`

    /// The folder template and the id that fills it: `public/` is the template `{id}/` filled with
    /// `public`, so one folder rule checks every level.
    /// - Parameter identityId: The identity whose folder it is.
    public func folder(identityId: String) -> (template: String, id: String) {
        switch self {
        case .private: return ("private/\(PartitionPrefix.placeholder)/", identityId)
        case .protected: return ("protected/\(PartitionPrefix.placeholder)/", identityId)
        case .public: return (PartitionPrefix.defaultTemplate, "public")
        }
    }
}
