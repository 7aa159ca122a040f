import AsyncHTTPClient
import Foundation
import Logging
import WIFFoundation
import WIFHTTP

/// A client for Amazon Cognito Identity (identity pools): `GetId`, `GetCredentialsForIdentity` and
/// `GetOpenIdToken`, in the JSON 1.1 API (`X-Amz-Target: AWSCognitoIdentityService.<Operation>`).
///
/// The calls are unsigned, as AWS allows: the logins' tokens are the proof of identity, and a guest needs
/// none. Parameters are checked before sending; AWS's errors (`NotAuthorizedException`,
/// `ResourceNotFoundException`, `ResourceConflictException`, …) arrive as ``WIFCredentialsError`` with code
/// `service` and the service's code, message and request id; `TooManyRequestsException`, 5xx answers and
/// broken connections are retried with jittered backoff. Tokens never appear in logs or errors.
///
/// ```swift
/// let cognito = try CognitoIdentityClient(configuration: .init(region: "us-east-1"))
/// let identityId = try await cognito.getId(identityPoolId: poolId, logins: ["accounts.google.com": idToken])
/// let result = try await cognito.getCredentialsForIdentity(identityId: identityId, logins: ["accounts.google.com": idToken])
/// ```
public struct CognitoIdentityClient: Sendable {
    /// The configuration the client was created with.
    public let configuration: Configuration
    /// The region the client calls.
    public let region: String
    /// The endpoint the client sends requests to.
    public let endpoint: URL

    let transport: any HTTPTransport
    let timeSource: TimeSource
    let jitter: @Sendable () -> Double

    /// The largest answer the client reads.
    static let maximumResponseBytes = 256 * 1024

    /// Creates a client.
    /// - Parameters:
    ///   - configuration: Region, endpoint, retry and timeout settings.
    ///   - environment: Variables consulted for the region and endpoint.
    ///   - httpClient: The HTTP client to send requests with.
    ///   - timeSource: The clock for expiry and clock skew, and the sleep for backoff.
    /// - Throws: ``WIFCredentialsError`` `invalidConfiguration` for a malformed region, endpoint or setting.
    public init(
        configuration: Configuration = Configuration(),
        environment: [String: String] = ProcessInfo.processInfo.environment,
        httpClient: HTTPClient = .wifShared,
        timeSource: TimeSource = .system
    ) throws(WIFCredentialsError) {
        try self.init(
            configuration: configuration, environment: environment, transport: AsyncHTTPClientTransport(httpClient: httpClient),
            timeSource: timeSource)
    }

    /// Creates a client that exchanges requests through `transport`.
    package init(
        configuration: Configuration,
        environment: [String: String] = [:],
        transport: any HTTPTransport,
        timeSource: TimeSource,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) throws(WIFCredentialsError) {
        try configuration.validate()
        let resolved = try configuration.resolve(environment: environment)
        self.region = resolved.region
        self.endpoint = resolved.endpoint
        self.configuration = configuration
        self.transport = transport
        self.timeSource = timeSource
        self.jitter = jitter
    }

    /// Returns the identity of a set of logins in a pool, creating it when the logins are new; without
    /// logins, a new guest identity.
    /// - Parameters:
    ///   - identityPoolId: The pool, `REGION:UUID`.
    ///   - logins: Logins key (`accounts.google.com`, `cognito-idp.REGION.amazonaws.com/POOL`, an OIDC
    ///     issuer's host and path) → token; at most ten.
    ///   - accountId: The AWS account that owns the pool, if the pool needs it.
    ///   - logger: Where to log (never the tokens).
    /// - Returns: The identity id.
    /// - Throws: ``WIFCredentialsError``: `invalidParameter` before sending, `service` with Cognito's
    ///   code, `malformedResponse`, `network`.
    public func getId(
        identityPoolId: String, logins: [String: String] = [:], accountId: String? = nil, logger: Logger = .noop
    ) async throws -> String {
        try Self.checkId(identityPoolId, name: "IdentityPoolId")
        try Self.checkLogins(logins)
        if let accountId, !(1...15).contains(accountId.utf8.count) || !accountId.utf8.allSatisfy({ (48...57).contains($0) }) {
            throw WIFCredentialsError.invalidParameter("AccountId '\(accountId.prefix(32))' is not 1 to 15 digits")
        }
        var body = JSONWriter(pretty: false)
        body.beginObject()
        body.key("IdentityPoolId")
        body.string(identityPoolId)
        if let accountId {
            body.key("AccountId")
            body.string(accountId)
        }
        Self.write(logins, into: &body)
        body.endObject()
        let answer = try await self.call("GetId", body: body.output, secrets: Array(logins.values), logger: logger)
        return try Self.requiredString(answer.json, "IdentityId", operation: "GetId")
    }

    /// Returns credentials for an identity (the enhanced flow): the pool chooses the role.
    /// - Parameters:
    ///   - identityId: The identity, from ``getId(identityPoolId:logins:accountId:logger:)``.
    ///   - logins: The identity's logins; none for a guest.
    ///   - customRoleArn: The role to get when the pool's role mapping offers several.
    ///   - logger: Where to log.
    /// - Returns: The identity id and the credentials, with the expiration moved onto the local clock.
    /// - Throws: See ``getId(identityPoolId:logins:accountId:logger:)``.
    public func getCredentialsForIdentity(
        identityId: String, logins: [String: String] = [:], customRoleArn: String? = nil, logger: Logger = .noop
    ) async throws -> IdentityPoolCredentials {
        try Self.checkId(identityId, name: "IdentityId")
        try Self.checkLogins(logins)
        if let customRoleArn, !(20...2048).contains(customRoleArn.utf8.count) {
            throw WIFCredentialsError.invalidParameter("CustomRoleArn is \(customRoleArn.utf8.count) characters; 20 to 2048 are accepted")
        }
        var body = JSONWriter(pretty: false)
        body.beginObject()
        body.key("IdentityId")
        body.string(identityId)
        Self.write(logins, into: &body)
        if let customRoleArn {
            body.key("CustomRoleArn")
            body.string(customRoleArn)
        }
        body.endObject()
        let answer = try await self.call("GetCredentialsForIdentity", body: body.output, secrets: Array(logins.values), logger: logger)
        return try Self.credentials(answer, receivedAt: answer.receivedAt)
    }

    /// Returns an OpenID token for an identity (the basic flow), to pass to STS
    /// `AssumeRoleWithWebIdentity` on a role of your choice.
    /// - Parameters:
    ///   - identityId: The identity.
    ///   - logins: The identity's logins; none for a guest.
    ///   - logger: Where to log.
    /// - Returns: The identity id and the token.
    /// - Throws: See ``getId(identityPoolId:logins:accountId:logger:)``.
    public func getOpenIdToken(identityId: String, logins: [String: String] = [:], logger: Logger = .noop) async throws -> IdentityPoolOpenIdToken {
        try Self.checkId(identityId, name: "IdentityId")
        try Self.checkLogins(logins)
        var body = JSONWriter(pretty: false)
        body.beginObject()
        body.key("IdentityId")
        body.string(identityId)
        Self.write(logins, into: &body)
        body.endObject()
        let answer = try await self.call("GetOpenIdToken", body: body.output, secrets: Array(logins.values), logger: logger)
        return IdentityPoolOpenIdToken(
            identityId: try Self.requiredString(answer.json, "IdentityId", operation: "GetOpenIdToken"),
            token: try Self.requiredString(answer.json, "Token", operation: "GetOpenIdToken"))
    }

    private static func write(_ logins: [String: String], into body: inout JSONWriter) {
        guard !logins.isEmpty else { return }
        body.key("Logins")
        body.beginObject()
        for (key, token) in logins.sorted(by: { $0.key < $1.key }) {
            body.key(key)
            body.string(token)
        }
        body.endObject()
    }
}

/// Credentials from `GetCredentialsForIdentity`, with the identity they are for.
public struct IdentityPoolCredentials: Sendable, Hashable {
    /// The identity id.
    public var identityId: String
    /// The temporary credentials.
    public var credentials: AWSCredentials

    /// Creates a result.
    public init(identityId: String, credentials: AWSCredentials) {
        self.identityId = identityId
        self.credentials = credentials
    }
}

/// An OpenID token from `GetOpenIdToken`; ``description`` never shows the token.
public struct IdentityPoolOpenIdToken: Sendable, Hashable, CustomStringConvertible {
    /// The identity id.
    public var identityId: String
    /// The token, for STS `AssumeRoleWithWebIdentity`.
    public var token: String

    /// Creates a result.
    public init(identityId: String, token: String) {
        self.identityId = identityId
        self.token = token
    }

    /// The identity id only.
    public var description: String { "IdentityPoolOpenIdToken(identityId: \(self.identityId), token: <redacted>)" }
}

extension IdentityPoolOpenIdToken: CustomReflectable {
    /// No children: `dump` and `Mirror(reflecting:)` would otherwise list the stored secrets that
    /// ``description`` leaves out.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
