import Foundation

/// The configuration of a local federation stack: where it listens, where it keeps its state, which
/// identity providers it simulates or trusts, and which buckets and roles it serves.
///
/// ``LocalConfiguration/default(dataDirectory:)`` is a complete stack: the bucket `wif-personal` and, for
/// each provider profile (`facebook`, `amazon`, `google`, `cognito`, `oidc`), a role
/// `arn:aws:iam::000000000000:role/personal-store-<profile>` that keeps each user under
/// `<profile>/<user id>/`; and the identity pool ``IdentityPoolDefinition/defaultPoolId``, whose users
/// (including those of the Cognito user pool profile `cognito-idp`) get Amplify's storage layout.
public struct LocalConfiguration: Sendable {
    /// The address to listen on; loopback by default.
    public var host: String
    /// The port to listen on; `0` picks a free one.
    public var port: Int
    /// The directory that holds keys, objects and uploads; created when missing.
    public var dataDirectory: String
    /// The `iss` of tokens from the development OIDC issuer, `https://wif.localhost` by default, so that its
    /// policy key prefix (`wif.localhost`) does not depend on the port.
    public var issuer: String
    /// The account that owns the roles and buckets.
    public var accountId: String
    /// The region reported in signatures and responses.
    public var region: String
    /// The identity provider profiles the stack simulates.
    public var providers: [ProviderProfile]
    /// Further OpenID Connect issuers whose tokens are verified through their JWKS.
    public var externalIssuers: [ExternalIssuer]
    /// The roles that web identities may assume.
    public var roles: [RoleDefinition]
    /// The buckets that exist when the stack starts.
    public var buckets: [BucketDefinition]
    /// Long-term credentials with every permission, for administration and tests; `nil` for none.
    public var adminCredentials: AdminCredentials?
    /// The largest difference between a request's signing time and the stack's clock, in seconds.
    public var allowedClockSkew: Int
    /// The leeway, in seconds, when checking a token's `exp`, `nbf` and `iat`.
    public var tokenLeeway: Int
    /// The OAuth clients of the development issuer's authorization server (`/oauth2/…`).
    public var oauthClients: [OAuthClient]
    /// The lifetimes of the authorization server's codes and tokens.
    public var oauth: OAuth
    /// Limits on HTTP connections: the idle time-out and the most at once.
    public var connections: Connections
    /// The identity pools served through the Cognito Identity API.
    public var identityPools: [IdentityPoolDefinition]
    /// The APIs served at `/apis/<name>/`.
    public var apis: [APIDefinition]

    /// Creates a configuration with every field given.
    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        dataDirectory: String,
        issuer: String = LocalConfiguration.defaultIssuer,
        accountId: String = LocalConfiguration.defaultAccountId,
        region: String = "us-east-1",
        providers: [ProviderProfile],
        externalIssuers: [ExternalIssuer] = [],
        roles: [RoleDefinition],
        buckets: [BucketDefinition],
        adminCredentials: AdminCredentials? = nil,
        allowedClockSkew: Int = 900,
        tokenLeeway: Int = 60,
        oauthClients: [OAuthClient] = [],
        oauth: OAuth = OAuth(),
        connections: Connections = Connections(),
        identityPools: [IdentityPoolDefinition] = [],
        apis: [APIDefinition] = []
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.issuer = issuer
        self.accountId = accountId
        self.region = region
        self.providers = providers
        self.externalIssuers = externalIssuers
        self.roles = roles
        self.buckets = buckets
        self.adminCredentials = adminCredentials
        self.allowedClockSkew = allowedClockSkew
        self.tokenLeeway = tokenLeeway
        self.oauthClients = oauthClients
        self.oauth = oauth
        self.connections = connections
        self.identityPools = identityPools
        self.apis = apis
    }

    /// The development issuer's default `iss`.
    public static let defaultIssuer = "https://wif.localhost"
    /// The default account id.
    public static let defaultAccountId = "000000000000"
    /// The default shared bucket.
    public static let defaultBucket = "wif-personal"

    /// The ARN of a role of this stack.
    /// - Parameter role: The role.
    /// - Returns: `arn:aws:iam::ACCOUNT:role/PATH/NAME`.
    public func arn(of role: RoleDefinition) -> String {
        "arn:aws:iam::\(self.accountId):role\(role.path)\(role.name)"
    }

    /// The provider profile with the given name.
    public func provider(named name: String) -> ProviderProfile? {
        self.providers.first { $0.name == name }
    }

    /// The identity pool with the given id.
    public func identityPool(id: String) -> IdentityPoolDefinition? {
        self.identityPools.first { $0.id == id }
    }

    /// The role with the given ARN.
    public func role(arn: String) -> RoleDefinition? {
        self.roles.first { self.arn(of: $0) == arn }
    }
}

/// An identity provider the local stack simulates: it issues development tokens of the provider's shape
/// and verifies them as AWS would verify the real provider's.
public struct ProviderProfile: Sendable, Hashable {
    /// The kind of provider, which fixes the token shape and the policy keys.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// Facebook: an opaque access token sent with `ProviderId=graph.facebook.com`.
        case facebook
        /// Login with Amazon: an opaque access token sent with `ProviderId=www.amazon.com`.
        case amazon
        /// Google: an RS256 ID token with `iss` `https://accounts.google.com`.
        case google
        /// Amazon Cognito identity pools: an RS256 ID token with `iss` `https://cognito-identity.amazonaws.com`.
        case cognito
        /// Any OpenID Connect issuer; for the development issuer, tokens with the stack's own `iss`.
        case oidc
    }

    /// The profile's name, also the first folder of its users' objects (`facebook`, `google`, …).
    public var name: String
    /// The kind of provider.
    public var kind: Kind
    /// The client ids (Facebook and Amazon app ids, OAuth client ids, a Cognito identity pool id) whose
    /// tokens the stack accepts; the first is used for development tokens.
    public var clientIds: [String]
    /// The `iss` of the profile's ID tokens; `nil` for the opaque-token providers, and for `oidc`, the stack's issuer.
    public var issuer: String?

    /// Creates a profile.
    public init(name: String, kind: Kind, clientIds: [String], issuer: String? = nil) {
        self.name = name
        self.kind = kind
        self.clientIds = clientIds
        self.issuer = issuer
    }

    /// The `ProviderId` an opaque-token provider is called by in `AssumeRoleWithWebIdentity`.
    public var providerId: String? {
        switch self.kind {
        case .facebook: "graph.facebook.com"
        case .amazon: "www.amazon.com"
        case .google, .cognito, .oidc: nil
        }
    }
}

/// An external OpenID Connect issuer whose ID tokens the stack accepts, verified with the issuer's keys.
public struct ExternalIssuer: Sendable, Hashable {
    /// The issuer, exactly as in the tokens' `iss`.
    public var issuer: String
    /// A URL to fetch the issuer's JWKS from.
    public var jwksURL: String?
    /// A file that holds the issuer's JWKS.
    public var jwksFile: String?
    /// The audiences (client ids) accepted.
    public var clientIds: [String]

    /// Creates an external issuer.
    public init(issuer: String, jwksURL: String? = nil, jwksFile: String? = nil, clientIds: [String]) {
        self.issuer = issuer
        self.jwksURL = jwksURL
        self.jwksFile = jwksFile
        self.clientIds = clientIds
    }
}

/// A role that web identities may assume.
public struct RoleDefinition: Sendable, Hashable {
    /// The role's name.
    public var name: String
    /// The role's path, `/` by default.
    public var path: String
    /// The trust policy (JSON) that says who may assume the role.
    public var trustPolicy: String
    /// The permissions policies (JSON) of the role's sessions.
    public var permissionPolicies: [String]
    /// The longest session, in seconds (3600 to 43200).
    public var maxSessionDuration: Int
    /// The provider profile whose users the role is meant for, so that development tokens can say which
    /// role to assume.
    public var provider: String?
    /// The bucket the role's users keep their files in.
    public var bucket: String?
    /// Where each user's objects live in the bucket; `{id}` stands for the user id (`facebook/{id}/`).
    public var partitionTemplate: String?

    /// Creates a role.
    public init(
        name: String,
        path: String = "/",
        trustPolicy: String,
        permissionPolicies: [String],
        maxSessionDuration: Int = 3600,
        provider: String? = nil,
        bucket: String? = nil,
        partitionTemplate: String? = nil
    ) {
        self.name = name
        self.path = path
        self.trustPolicy = trustPolicy
        self.permissionPolicies = permissionPolicies
        self.maxSessionDuration = maxSessionDuration
        self.provider = provider
        self.bucket = bucket
        self.partitionTemplate = partitionTemplate
    }
}

/// A bucket that exists when the stack starts.
public struct BucketDefinition: Sendable, Hashable {
    /// The bucket's name.
    public var name: String
    /// The bucket policy (JSON), if any.
    public var policy: String?

    /// Creates a bucket definition.
    public init(name: String, policy: String? = nil) {
        self.name = name
        self.policy = policy
    }
}

/// Long-term credentials of the account's administrator.
public struct AdminCredentials: Sendable, Hashable, CustomStringConvertible {
    /// The access key id (`AKIA…`).
    public var accessKeyId: String
    /// The secret access key.
    public var secretAccessKey: String

    /// Creates administrator credentials.
    public init(accessKeyId: String, secretAccessKey: String) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
    }

    /// The access key id only; the secret is never printed.
    public var description: String { "AdminCredentials(accessKeyId: \(self.accessKeyId), secretAccessKey: <redacted>)" }
}
