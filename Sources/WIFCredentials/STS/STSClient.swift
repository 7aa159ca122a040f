import AsyncHTTPClient
import Foundation
import Logging
import WIFFoundation
import WIFHTTP

/// A client for STS's `AssumeRoleWithWebIdentity`: trades a web-identity token for temporary AWS
/// credentials.
///
/// The call is unsigned (the token is the proof of identity) and goes to the regional endpoint
/// `https://sts.<region>.amazonaws.com`, or to `AWS_ENDPOINT_URL_STS`, `AWS_ENDPOINT_URL` or an
/// explicit ``Configuration/endpoint``. Parameters are checked before sending. Transient failures
/// (throttling, `IDPCommunicationError`, 5xx answers, broken connections) are retried with jittered
/// exponential backoff; a token STS rejects (`InvalidIdentityToken`, `ExpiredTokenException`) is
/// read again from its source once. Expirations are moved onto the local clock using the answer's
/// `Date` header.
///
/// ```swift
/// let sts = try STSClient(configuration: .init(region: "eu-west-1"))
/// let result = try await sts.assumeRoleWithWebIdentity(
///     AssumeRoleWithWebIdentityRequest(roleArn: "arn:aws:iam::123456789012:role/web", roleSessionName: "alice"),
///     tokenSource: .string(idToken),
///     logger: logger
/// )
/// ```
public struct STSClient: Sendable {
    /// The configuration the client was created with.
    public let configuration: Configuration
    /// The region the client calls.
    public let region: String
    /// The endpoint the client sends requests to.
    public let endpoint: URL
    /// How long one call may take in all: the configuration's ``Configuration/deadline``, or
    /// `WIF_STS_DEADLINE`, or 15 seconds.
    public let deadline: Duration

    let transport: any HTTPTransport
    let timeSource: TimeSource
    let jitter: @Sendable () -> Double

    /// The largest answer the client reads; STS answers are about 2 KB.
    package static let maximumResponseBytes = 256 * 1024

    /// Creates a client.
    /// - Parameters:
    ///   - configuration: Region, endpoint, retry and timeout settings.
    ///   - environment: Environment variables consulted for the region and endpoint; pass a
    ///     dictionary to keep the process environment out of it.
    ///   - httpClient: The HTTP client to send requests with.
    ///   - timeSource: The clock for expiry and clock skew, and the sleep for backoff.
    /// - Throws: ``WIFCredentialsError`` with code `invalidConfiguration` for a malformed region,
    ///   endpoint URL or retry setting.
    public init(
        configuration: Configuration = Configuration(),
        environment: [String: String] = ProcessInfo.processInfo.environment,
        httpClient: HTTPClient = .wifShared,
        timeSource: TimeSource = .system
    ) throws(WIFCredentialsError) {
        try self.init(
            configuration: configuration,
            environment: environment,
            transport: AsyncHTTPClientTransport(httpClient: httpClient),
            timeSource: timeSource
        )
    }

    /// Creates a client that exchanges requests through `transport`.
    /// - Parameters:
    ///   - configuration: Region, endpoint, retry and timeout settings.
    ///   - environment: Environment variables consulted for the region and endpoint.
    ///   - transport: Sends requests and returns answers.
    ///   - timeSource: The clock and sleep.
    ///   - jitter: Returns a number in `0...1` that places each backoff within its jitter range.
    package init(
        configuration: Configuration,
        environment: [String: String] = [:],
        transport: any HTTPTransport,
        timeSource: TimeSource,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) throws(WIFCredentialsError) {
        try configuration.validateRetry()
        if configuration.timeout <= .zero {
            throw .invalidConfiguration("STS timeout is \(configuration.timeout); it must be positive")
        }
        self.deadline = try configuration.resolveDeadline(environment: environment)
        let (region, endpoint) = try configuration.resolve(environment: environment)
        self.configuration = configuration
        self.region = region
        self.endpoint = endpoint
        self.transport = transport
        self.timeSource = timeSource
        self.jitter = jitter
    }

    /// Exchanges a web-identity token for temporary credentials.
    ///
    /// Before calling STS, a token whose `exp` has passed is read again with `forceRefresh: true`;
    /// if it is still expired the call fails without contacting STS.
    /// - Parameters:
    ///   - request: The role, session name and optional session policies.
    ///   - tokenSource: Where the token comes from; read again with `forceRefresh: true` once when
    ///     STS rejects it.
    ///   - logger: Where to log request ids and error codes (at debug); the token and the
    ///     credentials are never logged.
    /// - Returns: The credentials and the rest of STS's answer.
    /// - Throws: ``WIFCredentialsError``: `invalidParameter` for a parameter or token outside STS's
    ///   bounds, `tokenExpired` for a token that is still expired after a re-read,
    ///   `tokenUnavailable` from the source, `service` with STS's code, message and request id,
    ///   `malformedResponse` for an unreadable answer, `network` when STS could not be reached.
    ///   Transient failures are reported only once ``Configuration/Retry/maxAttempts`` is spent.
    ///   `CancellationError` when the task is cancelled.
    public func assumeRoleWithWebIdentity(
        _ request: AssumeRoleWithWebIdentityRequest,
        tokenSource: some WebIdentityTokenSource,
        logger: Logger = .noop
    ) async throws -> AssumeRoleWithWebIdentityResult {
        try request.validate()
        var token = try await self.currentToken(from: tokenSource, logger: logger)
        var attempt = 1
        var reloadedToken = false
        let deadline = CallDeadline(self.deadline, timeSource: self.timeSource)
        while true {
            do {
                guard let timeout = deadline.timeout(forAttempt: self.configuration.timeout) else {
                    throw WIFCredentialsError.network(deadline.exhausted(by: "STS at \(self.endpoint.absoluteString)", attempts: attempt - 1))
                }
                return try await self.send(request, token: token, attempt: attempt, timeout: timeout, logger: logger)
            } catch let error as WIFCredentialsError {
                switch error.recovery {
                case .reloadTokenAndRetryOnce where !reloadedToken:
                    reloadedToken = true
                    logger.debug(
                        "STS rejected the web-identity token; reading it again",
                        metadata: Self.metadata(error, attempt: attempt)
                    )
                    token = try await self.refreshedToken(from: tokenSource, replacing: token, logger: logger)
                case .retryWithBackoff where attempt < self.configuration.retry.maxAttempts:
                    let delay = self.configuration.retry.delay(beforeRetry: attempt, jitter: self.jitter())
                    guard deadline.allows(waiting: delay) else {
                        logger.debug("STS call failed; no time is left for a retry", metadata: Self.metadata(error, attempt: attempt))
                        throw error
                    }
                    var metadata = Self.metadata(error, attempt: attempt)
                    metadata["wif.sts.retry_delay"] = "\(delay)"
                    logger.debug("STS call failed transiently; retrying", metadata: metadata)
                    try await self.timeSource.sleep(delay)
                    attempt += 1
                default:
                    logger.debug("STS call failed", metadata: Self.metadata(error, attempt: attempt))
                    throw error
                }
            }
        }
    }

    /// Exchanges a web-identity token given as text for temporary credentials.
    ///
    /// Like ``assumeRoleWithWebIdentity(_:tokenSource:logger:)`` with a source that always returns
    /// `webIdentityToken`: a rejected token is sent again once, since there is nothing to re-read.
    /// - Parameters:
    ///   - request: The role, session name and optional session policies.
    ///   - webIdentityToken: The OIDC ID token or OAuth 2.0 access token, 4–20000 bytes; surrounding
    ///     whitespace and line breaks are removed.
    ///   - logger: Where to log.
    /// - Returns: The credentials and the rest of STS's answer.
    /// - Throws: See ``assumeRoleWithWebIdentity(_:tokenSource:logger:)``.
    public func assumeRoleWithWebIdentity(
        _ request: AssumeRoleWithWebIdentityRequest,
        webIdentityToken: String,
        logger: Logger = .noop
    ) async throws -> AssumeRoleWithWebIdentityResult {
        // Text pasted or read from a file often ends with a line break; STS wants the bare token.
        let trimmed = webIdentityToken.trimming(.whitespacesAndNewlines)
        return try await self.assumeRoleWithWebIdentity(
            request,
            tokenSource: FixedTokenSource(token: WebIdentityToken(inspecting: trimmed)),
            logger: logger
        )
    }
}

extension STSClient {
    /// Reads the token, reading it again once if its `exp` has already passed.
    func currentToken(from source: some WebIdentityTokenSource, logger: Logger) async throws -> WebIdentityToken {
        let token = try await source.token(forceRefresh: false, logger: logger)
        guard let expiration = token.expiration, expiration <= self.timeSource.now() else {
            try Self.validateToken(token)
            return token
        }
        logger.debug(
            "The web-identity token has expired; reading it again",
            metadata: ["wif.sts.token_expiration": "\(expiration.formatted(.iso8601))"]
        )
        return try await self.refreshedToken(from: source, logger: logger)
    }

    /// Reads the token bypassing the source's caches (asking for a replacement of `rejected` when STS
    /// refused one); fails when it is still expired.
    func refreshedToken(
        from source: some WebIdentityTokenSource,
        replacing rejected: WebIdentityToken? = nil,
        logger: Logger
    ) async throws -> WebIdentityToken {
        let token: WebIdentityToken
        if let rejected {
            token = try await source.token(replacing: rejected, logger: logger)
        } else {
            token = try await source.token(forceRefresh: true, logger: logger)
        }
        let now = self.timeSource.now()
        if let expiration = token.expiration, expiration <= now {
            throw WIFCredentialsError.tokenExpired(
                "the web-identity token expired at \(expiration.formatted(.iso8601)) (now \(now.formatted(.iso8601))), and reading it again gave no fresher token"
            )
        }
        try Self.validateToken(token)
        return token
    }

    static func validateToken(_ token: WebIdentityToken) throws(WIFCredentialsError) {
        let length = token.value.utf8.count
        if length < WebIdentityToken.minimumLength || length > WebIdentityToken.maximumLength {
            throw .invalidParameter(
                "WebIdentityToken is \(length) bytes; STS accepts \(WebIdentityToken.minimumLength)–\(WebIdentityToken.maximumLength)"
            )
        }
        if token.value.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) {
            throw .invalidParameter("WebIdentityToken contains whitespace or control characters; a token is a single word")
        }
    }

    /// One attempt: send, read, decode.
    func send(
        _ request: AssumeRoleWithWebIdentityRequest,
        token: WebIdentityToken,
        attempt: Int,
        timeout: Duration,
        logger: Logger
    ) async throws -> AssumeRoleWithWebIdentityResult {
        let httpRequest = TransportRequest(
            url: self.endpoint,
            headers: [
                ("Content-Type", "application/x-www-form-urlencoded; charset=utf-8"),
                ("Accept", "text/xml"),
                ("User-Agent", SwiftWIFVersion.userAgent()),
            ],
            body: request.formBody(webIdentityToken: token.value)
        )
        logger.debug(
            "Calling STS AssumeRoleWithWebIdentity",
            metadata: [
                "wif.sts.endpoint": "\(self.endpoint.absoluteString)",
                "wif.sts.role_arn": "\(request.roleArn)",
                "wif.sts.attempt": "\(attempt)",
            ]
        )
        let response = try await self.exchange(httpRequest, timeout: timeout, logger: logger)
        let receivedAt = self.timeSource.now()
        let result = try STSResponseDecoder.decodeAssumeRoleWithWebIdentity(
            response,
            roleArn: request.roleArn,
            receivedAt: receivedAt,
            redacting: [token.value, PercentEncoding.encode(token.value)]
        )
        var metadata: Logger.Metadata = [
            "wif.sts.request_id": "\(result.requestId ?? "-")",
            "wif.sts.attempt": "\(attempt)",
            "wif.sts.expiration": "\(result.serverExpiration.formatted(.iso8601))",
        ]
        if let clockSkew = result.clockSkew { metadata["wif.sts.clock_skew"] = "\(clockSkew)" }
        if let arn = result.assumedRoleUser?.arn { metadata["wif.sts.assumed_role_arn"] = "\(arn)" }
        logger.debug("STS issued credentials", metadata: metadata)
        return result
    }

    /// Sends a request to STS, turning a transport failure into ``WIFCredentialsError`` `network` (not
    /// reached, no answer in time) or `malformedResponse` (an answer that could not be read).
    func exchange(_ httpRequest: TransportRequest, timeout: Duration, logger: Logger) async throws -> TransportResponse {
        do {
            return try await self.transport.send(
                httpRequest,
                timeout: timeout,
                maximumBodyBytes: Self.maximumResponseBytes,
                logger: logger
            )
        } catch let error as WIFCredentialsError {
            throw error
        } catch HTTPTransportError.timedOut(let after) {
            throw WIFCredentialsError.network("STS at \(self.endpoint.absoluteString) did not answer within \(HTTPTransportError.describe(after))")
        } catch let error as HTTPTransportError {
            throw WIFCredentialsError.malformedResponse("STS \(error)")
        } catch {
            if Task.isCancelled || error is CancellationError { throw CancellationError() }
            throw WIFCredentialsError.network(
                "could not reach STS at \(httpRequest.hostDescription): \(TransportFailure.reason(error))"
            )
        }
    }

    static func metadata(_ error: WIFCredentialsError, attempt: Int) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["wif.sts.attempt": "\(attempt)", "wif.sts.error": "\(error.code)"]
        if let serviceError = error.serviceError {
            metadata["wif.sts.error_code"] = "\(serviceError.code)"
            metadata["wif.sts.http_status"] = "\(serviceError.httpStatus)"
            if let requestId = serviceError.requestId { metadata["wif.sts.request_id"] = "\(requestId)" }
        }
        return metadata
    }
}

/// The source behind the string overload: always the same token.
private struct FixedTokenSource: WebIdentityTokenSource {
    let token: WebIdentityToken

    func token(forceRefresh: Bool, logger: Logger) async throws -> WebIdentityToken { self.token }
}
