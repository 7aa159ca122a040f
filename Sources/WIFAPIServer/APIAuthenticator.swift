public import AccessRules
import Foundation
public import HTTPTypes
public import Hummingbird
import Logging
import NIOCore
import WIFCredentials
import WIFFoundation
import WIFHTTP

/// Verifies the SigV4 signature of an `AWS_IAM` request and authorizes `execute-api:Invoke` on its
/// resource with the caller's policies. A server that knows its callers' credentials (the local stack
/// issues them) implements it; an API behind AWS's own gateway has AWS do this.
public protocol APISignatureVerifier: Sendable {
    /// Verifies and authorizes one request.
    /// - Parameters:
    ///   - request: The request as received.
    ///   - body: Its whole body, whose hash the signature covers.
    ///   - resource: The `execute-api:Invoke` resource of the call.
    /// - Returns: The signing role.
    /// - Throws: ``APIAuthorizationError``: 401 for a missing, malformed, expired or wrong signature;
    ///   403 when no policy allows the call.
    func verify(_ request: Request, body: ByteBuffer, resource: String) async throws(APIAuthorizationError) -> APISignedCaller
}

/// The role behind a verified SigV4 request.
public struct APISignedCaller: Sendable, Hashable {
    /// The ARN of the role the session was issued for.
    public var roleArn: String
    /// Whether the role is an identity pool's authenticated or guest role.
    public var role: Caller.Role
    /// Claims of the session's web identity (`sub`, the identity id …), for rules that read them.
    public var claims: [String: ClaimValue]

    /// Creates a signed caller.
    public init(roleArn: String, role: Caller.Role, claims: [String: ClaimValue] = [:]) {
        self.roleArn = roleArn
        self.role = role
        self.claims = claims
    }
}

/// What an `AWS_LAMBDA` authorizer is asked to decide: the token and the call it came with. Its
/// `description` leaves the token out.
public struct APILambdaRequest: Sendable, CustomStringConvertible {
    /// The token, without a `Bearer ` prefix.
    public var token: String
    /// The request's method.
    public var method: String
    /// The path below the API's URL.
    public var path: String
    /// The request's headers, as AppSync hands them to its function.
    public var headers: HTTPFields

    /// Creates a request.
    /// - Parameters:
    ///   - token: The token.
    ///   - method: The method.
    ///   - path: The path below the API's URL.
    ///   - headers: The request's headers.
    public init(token: String, method: String, path: String, headers: HTTPFields = [:]) {
        self.token = token
        self.method = method
        self.path = path
        self.headers = headers
    }

    /// The method and path; never the token or the headers, which carry it.
    public var description: String { "APILambdaRequest(\(self.method) \(self.path), token: <redacted>)" }
}

/// What an `AWS_LAMBDA` authorizer decided about a token.
public struct APILambdaDecision: Sendable, Hashable {
    /// Whether the token is good.
    public var isAuthorized: Bool
    /// The context handed to the rules as the caller's claims.
    public var resolvedContext: [String: ClaimValue]
    /// Fields the caller may neither read nor write, as `Type.field` or a field's ARN
    /// (`…:apis/<api>/types/<Type>/fields/<field>`).
    public var deniedFields: [String]

    /// Creates a decision.
    public init(isAuthorized: Bool, resolvedContext: [String: ClaimValue] = [:], deniedFields: [String] = []) {
        self.isAuthorized = isAuthorized
        self.resolvedContext = resolvedContext
        self.deniedFields = deniedFields
    }
}

/// Decides an `AWS_LAMBDA` token: the server's own code standing in for the API's function.
public typealias APILambdaAuthorizer = @Sendable (APILambdaRequest) async -> APILambdaDecision

/// Authenticates API requests in every mode an API accepts, as AppSync and API Gateway tell them apart:
/// `x-api-key` is `API_KEY`; an `Authorization` of `AWS4-HMAC-SHA256 …` (or a presigned query) is
/// `AWS_IAM`; another `Authorization` is a user pool or OIDC token when its issuer is one of the API's,
/// else an `AWS_LAMBDA` token; nothing at all is `NONE` when the API allows it.
///
/// ```swift
/// let authenticator = APIAuthenticator(
///     modes: [.userPools, .apiKey],
///     apiKeys: [APIKey(name: "web", value: key, expires: nextMonth)],
///     userPool: APITokenAuthority(kind: .userPool, issuer: poolIssuer, clientIds: [appClient], loadJWKS: fetchKeys))
/// let caller = try await authenticator.authenticate(request, body: nil)
/// ```
public struct APIAuthenticator: Sendable {
    /// The modes the API accepts.
    public var modes: [APIAuthorizationMode]
    /// The API keys.
    public var apiKeys: [APIKey]
    /// The user pool whose tokens the API accepts.
    public var userPool: APITokenAuthority?
    /// The OpenID Connect provider whose tokens the API accepts.
    public var oidc: APITokenAuthority?
    /// The verifier of SigV4 requests, for `AWS_IAM`.
    public var signatureVerifier: (any APISignatureVerifier)?
    /// The authorizer of custom tokens, for `AWS_LAMBDA`.
    public var lambda: APILambdaAuthorizer?
    /// The API's IAM resource, for `execute-api:Invoke`.
    public var resource: APIResource?
    /// The clock judging API key expiry.
    public var timeSource: TimeSource

    /// Creates an authenticator.
    public init(
        modes: [APIAuthorizationMode], apiKeys: [APIKey] = [], userPool: APITokenAuthority? = nil, oidc: APITokenAuthority? = nil,
        signatureVerifier: (any APISignatureVerifier)? = nil, lambda: APILambdaAuthorizer? = nil, resource: APIResource? = nil,
        timeSource: TimeSource = .system
    ) {
        self.modes = modes
        self.apiKeys = apiKeys
        self.userPool = userPool
        self.oidc = oidc
        self.signatureVerifier = signatureVerifier
        self.lambda = lambda
        self.resource = resource
        self.timeSource = timeSource
    }

    /// `x-api-key`.
    public static let apiKeyHeader = HTTPField.Name("x-api-key")!

    /// Whether a request is SigV4-signed, so its whole body must be read before it can be authenticated.
    public static func isSigned(_ request: Request) -> Bool {
        if let authorization = request.headers.value(of: .authorization) { return authorization.hasPrefix("AWS4-HMAC-SHA256") }
        guard let target = request.head.path, let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return false }
        return target[mark...].contains("X-Amz-Signature=")
    }

    /// Authenticates one request.
    /// - Parameters:
    ///   - request: The request.
    ///   - body: The whole body of a signed request (see ``isSigned(_:)``); `nil` otherwise.
    ///   - path: The path below the API's URL, for the IAM resource; the request's path by default.
    ///   - logger: Where to log, at debug: the mode and outcome, never a credential.
    /// - Returns: The caller.
    /// - Throws: ``APIAuthorizationError`` 401 for missing or bad credentials of the mode used, 403 when an
    ///   IAM policy refuses.
    public func authenticate(
        _ request: Request, body: ByteBuffer?, path: String? = nil, logger: Logger = .noop
    ) async throws(APIAuthorizationError) -> APICaller {
        do {
            let caller = try await self.identify(request, body: body, path: path ?? request.uri.path, logger: logger)
            logger.debug("api request authenticated", metadata: ["wif.api.mode": "\(caller.mode.rawValue)"])
            return caller
        } catch {
            logger.debug(
                "api request refused",
                metadata: ["wif.api.mode": "\(error.mode?.rawValue ?? "-")", "wif.api.status": "\(error.status.code)"])
            throw error
        }
    }

    private func identify(_ request: Request, body: ByteBuffer?, path: String, logger: Logger) async throws(APIAuthorizationError) -> APICaller {
        if let key = request.headers.value(of: Self.apiKeyHeader) {
            return try self.checkAPIKey(key)
        }
        if Self.isSigned(request) {
            guard self.modes.contains(.iam), let verifier = self.signatureVerifier, let resource = self.resource else {
                throw .unauthorized("this API does not accept SigV4-signed (AWS_IAM) requests; it accepts \(self.modeList)", mode: .iam)
            }
            let signed = try await verifier.verify(
                request, body: body ?? ByteBuffer(), resource: resource.arn(method: request.method.rawValue, path: path))
            let caller = Caller(authMode: .iam, claims: signed.claims, role: signed.role)
            return APICaller(mode: .iam, caller: caller, roleArn: signed.roleArn)
        }
        if let authorization = request.headers.value(of: .authorization), !authorization.isEmpty {
            return try await self.checkToken(authorization, request: request, path: path, logger: logger)
        }
        guard self.modes.contains(.none) else {
            throw .unauthorized(
                "the request has no credentials; this API accepts \(self.modeList)", mode: self.modes.first)
        }
        return APICaller(mode: .none, caller: nil)
    }

    private var modeList: String {
        self.modes.isEmpty ? "no mode" : self.modes.map(\.rawValue).joined(separator: ", ")
    }

    private func checkAPIKey(_ presented: String) throws(APIAuthorizationError) -> APICaller {
        guard self.modes.contains(.apiKey) else {
            throw .unauthorized("this API does not accept API keys; it accepts \(self.modeList)", mode: .apiKey)
        }
        guard let key = self.apiKeys.first(where: { SigV4Canonical.constantTimeEquals($0.value, presented) }) else {
            throw .unauthorized("the API key is not valid", mode: .apiKey)
        }
        if let expires = key.expires, self.timeSource.now() >= expires {
            throw .unauthorized("the API key '\(key.name)' expired at \(AWSDateText.text(expires))", mode: .apiKey)
        }
        return APICaller(mode: .apiKey, caller: .apiKey, apiKeyName: key.name)
    }

    private func checkToken(_ authorization: String, request: Request, path: String, logger: Logger) async throws(APIAuthorizationError) -> APICaller {
        // A token verified before is known by its text, before any parsing.
        let key = ExactText(token: authorization.hasPrefix("Bearer ") ? authorization.dropFirst(7) : Substring(authorization))
        for authority in [self.userPool, self.oidc].compactMap({ $0 }) where self.modes.contains(authority.mode) {
            if let caller = try authority.cached(key) { return APICaller(mode: authority.mode, caller: caller) }
        }
        let parsed = ParsedToken(authorization)
        let issuer = parsed?.issuer
        if let parsed, let issuer {
            for authority in [self.userPool, self.oidc].compactMap({ $0 }) where authority.issuer == issuer {
                guard self.modes.contains(authority.mode) else { continue }
                let caller = try await authority.verify(parsed, logger: logger)
                return APICaller(mode: authority.mode, caller: caller)
            }
        }
        if self.modes.contains(.lambda), let lambda = self.lambda {
            let token = authorization.hasPrefix("Bearer ") ? String(authorization.dropFirst(7)) : authorization
            let decision = await lambda(APILambdaRequest(token: token, method: request.method.rawValue, path: path, headers: request.headers))
            guard decision.isAuthorized else { throw .unauthorized("the API's authorizer refused the token", mode: .lambda) }
            return APICaller(mode: .lambda, caller: .function(claims: decision.resolvedContext), deniedFields: decision.deniedFields)
        }
        if let issuer {
            throw .unauthorized("the token's issuer '\(issuer.prefix(200))' is not one this API accepts; it accepts \(self.modeList)")
        }
        throw .unauthorized("the Authorization header holds no token this API accepts; it accepts \(self.modeList)")
    }

}

/// Dates in messages.
enum AWSDateText {
    static func text(_ date: Date) -> String {
        AWSDate.extended(Int64(date.timeIntervalSince1970.rounded(.down)))
    }
}
