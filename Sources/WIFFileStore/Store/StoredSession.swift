import Foundation
import WIFCredentials

/// A sign-in kept between commands: where the token comes from, what it federated into, and the
/// temporary credentials with their expiry.
///
/// It holds secrets (the token and the credentials), so ``description`` shows neither.
public struct StoredSession: Codable, Sendable, CustomStringConvertible {
    /// Where the web-identity token is read from when the credentials need renewing.
    public struct TokenRecord: Codable, Sendable {
        /// How the token is had again.
        public enum Kind: String, Codable, Sendable {
            /// A development token minted by the embedded stack.
            case development
            /// A token given on the command line.
            case token
            /// A token file, read again at every renewal (it may have been rotated).
            case file
            /// An OpenID Connect sign-in (`login --issuer`): the ID token comes from the OAuth account
            /// ``TokenRecord/account`` in the encrypted store, renewed with its refresh token.
            case oidc
            /// A guest of an identity pool (`login --guest`): there is no token.
            case guest
        }

        /// How the token is had again.
        public var kind: Kind
        /// The token itself, for `development` and `token`.
        public var value: String?
        /// The absolute path, for `file`.
        public var path: String?
        /// The OAuth account's name in the encrypted store, for `oidc`.
        public var account: String?
        /// The token's `exp`, when it is a JWT (opaque access tokens have none the tool can read).
        public var expiration: Date?

        /// Creates a record.
        public init(kind: Kind, value: String? = nil, path: String? = nil, account: String? = nil, expiration: Date? = nil) {
            self.kind = kind
            self.value = value
            self.path = path
            self.account = account
            self.expiration = expiration
        }
    }

    /// Temporary credentials and their expiry.
    public struct CredentialRecord: Codable, Sendable {
        /// The access key id.
        public var accessKeyId: String
        /// The secret access key.
        public var secretAccessKey: String
        /// The session token.
        public var sessionToken: String?
        /// When the credentials expire.
        public var expiration: Date?

        /// Records credentials.
        public init(_ credentials: AWSCredentials) {
            self.accessKeyId = credentials.accessKeyId
            self.secretAccessKey = credentials.secretAccessKey
            self.sessionToken = credentials.sessionToken
            self.expiration = credentials.expiration
        }

        /// The recorded credentials.
        public var credentials: AWSCredentials {
            AWSCredentials(
                accessKeyId: self.accessKeyId, secretAccessKey: self.secretAccessKey, sessionToken: self.sessionToken,
                expiration: self.expiration)
        }
    }

    /// An identity-pool sign-in: the pool, the identity and how its role was chosen.
    public struct IdentityPoolRecord: Codable, Sendable, Hashable {
        /// The pool, `REGION:UUID`.
        public var poolId: String
        /// The identity id, kept and sent again at every renewal (it is also ``StoredSession/subject``).
        public var identityId: String
        /// The logins key of the provider signed in with; `nil` for a guest.
        public var loginsKey: String?
        /// Why the pool gave this role: `guest`, `authenticated`, `rule`, `token`, or `pool` when the
        /// service does not say.
        public var roleReason: String
        /// The Cognito Identity endpoint of a remote sign-in; `nil` for the region's (and on the
        /// embedded stack, whose port changes).
        public var endpoint: String?
        /// The role of the basic flow (`GetOpenIdToken`, then STS); `nil` for the enhanced flow.
        public var basicFlowRoleArn: String?

        /// Creates a record.
        public init(
            poolId: String, identityId: String, loginsKey: String?, roleReason: String, endpoint: String?, basicFlowRoleArn: String? = nil
        ) {
            self.poolId = poolId
            self.identityId = identityId
            self.loginsKey = loginsKey
            self.roleReason = roleReason
            self.endpoint = endpoint
            self.basicFlowRoleArn = basicFlowRoleArn
        }
    }

    /// The format version of the stored sign-in.
    public var version = 1
    /// `embedded`, or the S3 endpoint URL the session was made for.
    public var target: String
    /// The STS endpoint the session federates through (`nil` on the embedded stack, whose port changes).
    public var stsEndpoint: String?
    /// The region the session was made in.
    public var region: String
    /// The provider name (`google`, `facebook`, …).
    public var provider: String
    /// The `ProviderId` sent with opaque access tokens (`graph.facebook.com`, `www.amazon.com`).
    public var providerId: String?
    /// The user id: STS's `SubjectFromWebIdentityToken`.
    public var subject: String
    /// The role the session assumed.
    public var roleArn: String
    /// The assumed-role ARN STS reported.
    public var assumedRoleArn: String?
    /// The role session name sent to STS.
    public var roleSessionName: String
    /// The shared bucket.
    public var bucket: String
    /// The user's folder in the bucket, ending in `/`.
    public var prefix: String
    /// The template the folder was made from, `{id}` standing for ``subject``.
    public var partitionTemplate: String
    /// Where the token comes from.
    public var token: TokenRecord
    /// The temporary credentials.
    public var credentials: CredentialRecord
    /// When the user signed in.
    public var signedInAt: Date
    /// The identity pool of a `login --identity-pool` sign-in; `nil` for a sign-in through STS alone.
    public var identityPool: IdentityPoolRecord?

    /// Who and where, without the token or the credentials.
    public var description: String {
        "StoredSession(provider: \(self.provider), subject: \(self.subject), role: \(self.roleArn), bucket: \(self.bucket), prefix: \(self.prefix), secrets: <redacted>)"
    }

    /// Creates a sign-in record.
    public init(
        target: String, stsEndpoint: String?, region: String, provider: String, providerId: String?, subject: String, roleArn: String,
        assumedRoleArn: String?, roleSessionName: String, bucket: String, prefix: String, partitionTemplate: String, token: TokenRecord,
        credentials: CredentialRecord, signedInAt: Date, identityPool: IdentityPoolRecord? = nil
    ) {
        self.target = target
        self.stsEndpoint = stsEndpoint
        self.region = region
        self.provider = provider
        self.providerId = providerId
        self.subject = subject
        self.roleArn = roleArn
        self.assumedRoleArn = assumedRoleArn
        self.roleSessionName = roleSessionName
        self.bucket = bucket
        self.prefix = prefix
        self.partitionTemplate = partitionTemplate
        self.token = token
        self.credentials = credentials
        self.signedInAt = signedInAt
        self.identityPool = identityPool
    }
}

extension StoredSession: CustomReflectable {
    /// No children: `dump` and `Mirror(reflecting:)` would otherwise list the stored secrets that
    /// ``description`` leaves out.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension StoredSession.TokenRecord: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// How the token is had again, without the token.
    public var description: String {
        var text = "TokenRecord(kind: \(self.kind.rawValue)"
        if self.value != nil { text += ", value: <redacted>" }
        if let path = self.path { text += ", path: \(path)" }
        if let account = self.account { text += ", account: \(account)" }
        return text + ")"
    }

    public var debugDescription: String { self.description }

    /// No children: `dump` and `Mirror(reflecting:)` would otherwise list the stored secrets that
    /// ``description`` leaves out.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension StoredSession.CredentialRecord: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The access key id and the expiry; the secret key and the session token are left out.
    public var description: String { "CredentialRecord(\(self.credentials.description))" }

    public var debugDescription: String { self.description }

    /// No children: `dump` and `Mirror(reflecting:)` would otherwise list the stored secrets that
    /// ``description`` leaves out.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
