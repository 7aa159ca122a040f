public import AccessRules
public import Foundation
public import Logging
public import WIFCredentials
import WIFFoundation
import WIFHTTP
import WIFSigV4

/// A request to an API, as interceptors see and change it.
public struct APIRequest: Sendable {
    /// The method.
    public var method: String
    /// The full URL.
    public var url: URL
    /// The headers, in order.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]

    /// Creates a request.
    public init(method: String, url: URL, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// Sets a header, replacing any of the same name.
    public mutating func setHeader(_ name: String, _ value: String) {
        self.headers.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
        self.headers.append((name, value))
    }

    /// The value of a header.
    public func header(_ name: String) -> String? {
        self.headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// An API's answer.
public struct APIResponse: Sendable {
    /// The status.
    public var status: Int
    /// The headers.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]

    /// The `errorType` of an error answer: `x-amzn-ErrorType`, else the body's `errorType`.
    public var errorType: String? {
        if let header = self.headers.first(where: { $0.name.caseInsensitiveCompare("x-amzn-ErrorType") == .orderedSame })?.value {
            return String(header.split(separator: ":").first ?? Substring(header))
        }
        return (try? JSONParser.parse(self.body))?.member("errorType")?.stringValue
    }

    /// Whether this answer refuses the credentials of the mode used, so another mode may be tried: 401, or
    /// 403 with `UnauthorizedException`, `ForbiddenException` or `AccessDeniedException`.
    public var isAuthorizationFailure: Bool {
        if self.status == 401 { return true }
        guard self.status == 403 else { return false }
        switch self.errorType {
        case "UnauthorizedException", "ForbiddenException", "AccessDeniedException", nil: return true
        default: return false
        }
    }
}

/// Changes or refuses a request before it is sent. Interceptors of an API run after the mode's own
/// authorization and custom headers, and before SigV4 signing, which is always last.
public protocol APIRequestInterceptor: Sendable {
    /// Changes the request, or throws to refuse it.
    func intercept(_ request: inout APIRequest, mode: APIAuthorizationMode) async throws
}

/// The credentials a client has for each mode; a mode without them is skipped by multi-auth (the local
/// "no token" failure) and refused by a single-mode call.
public struct APIClientCredentials: Sendable {
    /// The user pool's ID or access token.
    public var userPoolTokens: (any APITokenProvider)?
    /// The OpenID Connect provider's token.
    public var oidcTokens: (any APITokenProvider)?
    /// The custom token of `AWS_LAMBDA`.
    public var lambdaTokens: (any APITokenProvider)?
    /// Identity pool credentials (signed in or guest), for `AWS_IAM`.
    public var iam: (any CredentialProvider)?
    /// An API key overriding the configuration's.
    public var apiKey: String?

    /// Creates credentials.
    public init(
        userPoolTokens: (any APITokenProvider)? = nil, oidcTokens: (any APITokenProvider)? = nil, lambdaTokens: (any APITokenProvider)? = nil,
        iam: (any CredentialProvider)? = nil, apiKey: String? = nil
    ) {
        self.userPoolTokens = userPoolTokens
        self.oidcTokens = oidcTokens
        self.lambdaTokens = lambdaTokens
        self.iam = iam
        self.apiKey = apiKey
    }
}

/// One try in one mode.
public struct APIAttempt: Sendable, Hashable {
    /// The mode.
    public var mode: APIAuthorizationMode
    /// What it came to.
    public var outcome: APIAttemptOutcome
}

/// The answer of a call, with the mode that answered and every attempt before it.
public struct APIResult: Sendable {
    /// The answer.
    public var response: APIResponse
    /// The mode whose request produced the answer.
    public var mode: APIAuthorizationMode
    /// Every attempt, in order; the last produced ``response``.
    public var attempts: [APIAttempt]
}

/// Why a call could not be sent at all.
public struct APIClientError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// Every mode tried, with why it failed.
    public var attempts: [APIAttempt]

    public var description: String { self.message }
}

/// Calls an API in any of its authorization modes: one mode, or several in multi-auth order with
/// fallback only after an authorization failure.
///
/// Each request is built in Amplify's order: the mode's authorization (`x-api-key`, or the token in
/// `Authorization` without a `Bearer ` prefix), the custom headers, the interceptors, and SigV4 signing
/// last, of the host the request really goes to with the API's signing service.
public struct APIClient: Sendable {
    /// The API.
    public var endpoint: APIEndpoint
    /// The credentials for each mode.
    public var credentials: APIClientCredentials
    /// Headers added to every request after the mode's authorization.
    public var customHeaders: [(name: String, value: String)]
    /// Interceptors, in order.
    public var interceptors: [any APIRequestInterceptor]
    /// How long one request may take.
    public var timeout: Duration

    let transport: any HTTPTransport

    /// Creates a client.
    public init(
        endpoint: APIEndpoint, credentials: APIClientCredentials, customHeaders: [(name: String, value: String)] = [],
        interceptors: [any APIRequestInterceptor] = [], timeout: Duration = .seconds(30)
    ) {
        self.init(
            endpoint: endpoint, credentials: credentials, customHeaders: customHeaders, interceptors: interceptors, timeout: timeout,
            transport: AsyncHTTPClientTransport())
    }

    init(
        endpoint: APIEndpoint, credentials: APIClientCredentials, customHeaders: [(name: String, value: String)],
        interceptors: [any APIRequestInterceptor], timeout: Duration, transport: any HTTPTransport
    ) {
        self.endpoint = endpoint
        self.credentials = credentials
        self.customHeaders = customHeaders
        self.interceptors = interceptors
        self.timeout = timeout
        self.transport = transport
    }

    /// The largest answer read.
    static let maximumBodyBytes = 16 << 20

    /// The URL of a path relative to the API's URL (`/Todo/1` → `<url>/Todo/1`).
    public func url(for path: String) throws(APIClientError) -> URL {
        var base = self.endpoint.url.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let relative = path.hasPrefix("/") ? path : "/" + path
        guard let url = URL(string: base + relative) else { throw APIClientError(message: "'\(path)' is not a valid path", attempts: []) }
        return url
    }

    /// Sends a request in one mode.
    /// - Parameters:
    ///   - method: The method.
    ///   - path: The path below the API's URL.
    ///   - body: The body.
    ///   - headers: Extra headers.
    ///   - mode: The mode; the API's default when `nil`.
    ///   - logger: Where to log, at debug: mode and outcome of the attempt.
    /// - Returns: The answer, whatever its status.
    /// - Throws: ``APIClientError`` when the mode's credentials are missing, an interceptor refuses, or the
    ///   API cannot be reached.
    public func send(
        _ method: String, _ path: String, body: [UInt8] = [], headers: [(name: String, value: String)] = [],
        mode: APIAuthorizationMode? = nil, logger: Logger = .noop
    ) async throws(APIClientError) -> APIResult {
        try await self.send(method, path, body: body, headers: headers, modes: [mode ?? self.endpoint.defaultMode], logger: logger)
    }

    /// Sends a request trying `modes` in order: the next only after an authorization failure (a 401 or
    /// an authorization 403, or no credentials for the mode), never after a success or another error.
    /// - Returns: The first answer that is not an authorization failure, or the last one.
    /// - Throws: ``APIClientError`` when no mode had credentials, or the API cannot be reached.
    public func send(
        _ method: String, _ path: String, body: [UInt8] = [], headers: [(name: String, value: String)] = [],
        modes: [APIAuthorizationMode], logger: Logger = .noop
    ) async throws(APIClientError) -> APIResult {
        let url = try self.url(for: path)
        var attempts: [APIAttempt] = []
        var last: (APIResponse, APIAuthorizationMode)?
        for mode in modes {
            var request = APIRequest(method: method, url: url, headers: headers, body: body)
            do {
                try await self.prepare(&request, mode: mode)
            } catch let missing as MissingCredentials {
                attempts.append(APIAttempt(mode: mode, outcome: .noCredentials(missing.reason)))
                logger.debug("api attempt", metadata: ["wif.api.mode": "\(mode.rawValue)", "wif.api.outcome": "no credentials"])
                continue
            } catch {
                throw APIClientError(message: "the request in \(mode) could not be prepared: \(error)", attempts: attempts)
            }
            let response: TransportResponse
            var sentHeaders = request.headers
            if !sentHeaders.contains(where: { $0.name.lowercased() == "user-agent" }) {
                sentHeaders.append(("User-Agent", SwiftWIFVersion.userAgent()))
            }
            let sent = TransportRequest(url: request.url, method: request.method, headers: sentHeaders, body: request.body)
            do {
                response = try await self.transport.send(sent, timeout: self.timeout, maximumBodyBytes: Self.maximumBodyBytes, logger: logger)
            } catch {
                throw APIClientError(message: "\(sent.hostDescription) could not be reached: \(TransportFailure.reason(error))", attempts: attempts)
            }
            let answer = APIResponse(status: response.status, headers: response.headers, body: response.body)
            let failure = answer.isAuthorizationFailure
            attempts.append(APIAttempt(mode: mode, outcome: failure ? .unauthorized(status: answer.status) : .answered(status: answer.status)))
            logger.debug("api attempt", metadata: ["wif.api.mode": "\(mode.rawValue)", "wif.api.status": "\(answer.status)"])
            last = (answer, mode)
            if !failure { break }
        }
        guard let (response, mode) = last else {
            let reasons = attempts.map { attempt -> String in
                if case .noCredentials(let reason) = attempt.outcome { return "\(attempt.mode): \(reason)" }
                return "\(attempt.mode)"
            }
            throw APIClientError(
                message: modes.isEmpty ? "no authorization mode applies to this call" : "no credentials for any mode tried (\(reasons.joined(separator: "; ")))",
                attempts: attempts)
        }
        return APIResult(response: response, mode: mode, attempts: attempts)
    }

    struct MissingCredentials: Error {
        var reason: String
    }

    /// Builds the request of one mode: its authorization, the custom headers, the interceptors, then SigV4.
    func prepare(_ request: inout APIRequest, mode: APIAuthorizationMode) async throws {
        switch mode {
        case .apiKey:
            guard let key = self.credentials.apiKey ?? self.endpoint.apiKey else { throw MissingCredentials(reason: "no API key") }
            request.setHeader("x-api-key", key)
        case .userPools, .oidc, .lambda:
            let provider: (any APITokenProvider)?
            let missing: String
            switch mode {
            case .userPools: (provider, missing) = (self.credentials.userPoolTokens, "no user pool token (not signed in to a user pool)")
            case .oidc: (provider, missing) = (self.credentials.oidcTokens, "no OpenID Connect token (not signed in with an OpenID Connect issuer)")
            default: (provider, missing) = (self.credentials.lambdaTokens, "no token for the Lambda authorizer")
            }
            guard let provider else { throw MissingCredentials(reason: missing) }
            request.setHeader("Authorization", try await provider.latestToken())
        case .iam:
            guard self.credentials.iam != nil else { throw MissingCredentials(reason: "no identity pool credentials") }
        case .none:
            break
        }
        for header in self.customHeaders { request.setHeader(header.name, header.value) }
        for interceptor in self.interceptors { try await interceptor.intercept(&request, mode: mode) }
        if mode == .iam, let provider = self.credentials.iam {
            let credentials = try await provider.getCredentials()
            var signed = try SigV4Request(
                method: request.method, url: request.url, headers: request.headers.map { SigV4Request.Header($0.name, $0.value) })
            let signer = SigV4Signer(credentials: credentials, region: self.endpoint.region, service: self.endpoint.signingService)
            try signer.sign(&signed, payload: .bytes(request.body), date: Date())
            request.headers = signed.headers.map { ($0.name, $0.value) }
        }
    }
}

extension StaticAPIToken: CustomReflectable {
    /// No children: `dump` and `Mirror(reflecting:)` would otherwise list the stored secrets that
    /// ``description`` leaves out.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension APIRequest: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Headers whose values are credentials: shown as `<redacted>`.
    static let secretHeaders: Set<String> = ["authorization", "proxy-authorization", "x-api-key", "x-amz-security-token", "cookie"]

    /// The method, the URL without its query (a presigned URL carries its signature there), the
    /// headers with credential values redacted, and the body's length.
    public var description: String {
        var components = URLComponents(url: self.url, resolvingAgainstBaseURL: false)
        let hadQuery = components?.query != nil
        components?.query = nil
        let url = (components?.string ?? "?") + (hadQuery ? "?…" : "")
        let headers = self.headers.map { header in
            "\(header.name): " + (Self.secretHeaders.contains(header.name.lowercased()) ? "<redacted>" : header.value)
        }
        return "APIRequest(\(self.method) \(url), headers: [\(headers.joined(separator: ", "))], body: \(self.body.count) bytes)"
    }

    public var debugDescription: String { self.description }

    /// No children: `dump` and `Mirror(reflecting:)` would otherwise list the stored secrets that
    /// ``description`` leaves out.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension APIClientCredentials: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Which credentials are set, without any of them.
    public var description: String {
        let set = [
            ("userPoolTokens", self.userPoolTokens != nil), ("oidcTokens", self.oidcTokens != nil),
            ("lambdaTokens", self.lambdaTokens != nil), ("iam", self.iam != nil), ("apiKey", self.apiKey != nil),
        ].filter(\.1).map(\.0)
        return "APIClientCredentials(\(set.joined(separator: ", ")); secrets: <redacted>)"
    }

    public var debugDescription: String { self.description }

    /// No children: `dump` and `Mirror(reflecting:)` would otherwise list the stored secrets that
    /// ``description`` leaves out.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
