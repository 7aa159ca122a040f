import AsyncHTTPClient
import Foundation
import Logging
import Synchronization
import WIFFoundation
import WIFHTTP

/// An OAuth 2.0 / OpenID Connect client for one issuer: discovery, browser sign-in (authorization code
/// with PKCE and a loopback redirect), device sign-in, refresh with rotation, and revocation.
///
/// Every ID token received is verified with ``IDTokenVerifier`` against the issuer's keys. The
/// discovery document and the keys are fetched once and shared by copies of the client.
///
/// ```swift
/// let client = try OAuth2Client(configuration: .init(issuer: "https://accounts.example.com", clientId: "cli"))
/// let tokens = try await client.authorizeWithBrowser { url in try await openInBrowser(url) }
/// let renewed = try await client.refresh(tokens)
/// try await client.revoke(renewed)
/// ```
public struct OAuth2Client: Sendable, CustomStringConvertible {
    /// The issuer and client settings.
    public let configuration: OAuth2ClientConfiguration
    /// How long one HTTP exchange with the issuer may take.
    public let timeout: Duration
    /// How far the issuer's and this machine's clocks may disagree when judging ID tokens.
    public let leeway: Duration

    let transport: any HTTPTransport
    let timeSource: TimeSource
    let cache: Cache

    /// The largest answer read from an issuer.
    package static let maximumResponseBytes = 1 << 20

    /// Creates a client. Nothing is sent until a method needs the issuer.
    /// - Parameters:
    ///   - configuration: The issuer and client settings.
    ///   - timeout: How long one HTTP exchange with the issuer may take; 15 seconds by default, so an issuer that accepts connections and never answers fails the call in 15 s.
    ///   - leeway: Allowed clock disagreement for ID tokens; one minute by default.
    ///   - httpClient: The HTTP client to reach the issuer with.
    ///   - timeSource: The clock for expiries and the sleep for device-flow polling.
    /// - Throws: ``WIFCredentialsError`` `invalidConfiguration` from
    ///   ``OAuth2ClientConfiguration/validate()``, or for a timeout that is not positive.
    public init(
        configuration: OAuth2ClientConfiguration,
        timeout: Duration = .seconds(15),
        leeway: Duration = .seconds(60),
        httpClient: HTTPClient = .wifShared,
        timeSource: TimeSource = .system
    ) throws(WIFCredentialsError) {
        try self.init(
            configuration: configuration,
            timeout: timeout,
            leeway: leeway,
            transport: AsyncHTTPClientTransport(httpClient: httpClient),
            timeSource: timeSource
        )
    }

    /// Creates a client that reaches the issuer through `transport`.
    package init(
        configuration: OAuth2ClientConfiguration,
        timeout: Duration = .seconds(15),
        leeway: Duration = .seconds(60),
        transport: any HTTPTransport,
        timeSource: TimeSource
    ) throws(WIFCredentialsError) {
        try configuration.validate()
        if timeout <= .zero {
            throw .invalidConfiguration("the OAuth 2.0 client's timeout is \(timeout); it must be positive")
        }
        if leeway < .zero {
            throw .invalidConfiguration("the OAuth 2.0 client's leeway is \(leeway); it must not be negative")
        }
        self.configuration = configuration
        self.timeout = timeout
        self.leeway = leeway
        self.transport = transport
        self.timeSource = timeSource
        self.cache = Cache()
    }

    /// The issuer's metadata: the discovery document (fetched once, its issuer checked against the
    /// configured one) with the configuration's explicit endpoints over it, or the explicit endpoints
    /// alone when there is nothing to discover.
    /// - Parameter logger: Where to log.
    /// - Returns: The metadata.
    /// - Throws: ``WIFCredentialsError``: `network` when the document cannot be fetched,
    ///   `malformedResponse` when it is not a discovery document, `invalidConfiguration` when its
    ///   issuer is not the configured one.
    public func metadata(
        logger: Logger = .noop
    ) async throws -> OIDCProviderMetadata {
        if let cached = self.cache.metadata.withLock({ $0 }) { return cached }
        let metadata: OIDCProviderMetadata
        if let discoveryURL = self.configuration.effectiveDiscoveryURL {
            let response = try await self.send(
                TransportRequest(url: discoveryURL, method: "GET", headers: [("Accept", "application/json"), ("User-Agent", SwiftWIFVersion.userAgent())]),
                endpoint: "discovery document", logger: logger
            )
            let source = discoveryURL.absoluteString
            guard response.status == 200 else {
                throw WIFCredentialsError.malformedResponse(
                    "the discovery document at \(source) answered HTTP \(response.status) instead of 200")
            }
            let document = try OIDCProviderMetadata.decode(response.body, source: source)
            if let expected = self.configuration.issuer, document.issuer != expected {
                throw WIFCredentialsError.invalidConfiguration(
                    "the discovery document at \(source) is for issuer '\(document.issuer.prefix(200))', but '\(expected)' is configured; an issuer must publish its own document (OpenID Connect Discovery §4.3)")
            }
            metadata = document.overridden(by: self.configuration.endpoints)
            logger.debug("read the issuer's discovery document", metadata: ["wif.oauth.issuer": "\(document.issuer)", "wif.oauth.discovery": "\(source)"])
        } else {
            // validate() guarantees an issuer, a token endpoint and a JWKS here.
            metadata = OIDCProviderMetadata(issuer: self.configuration.issuer ?? "").overridden(by: self.configuration.endpoints)
        }
        self.cache.metadata.withLock { $0 = metadata }
        return metadata
    }

    /// The verifier of this issuer's ID tokens for this client, with the keys from its `jwks_uri`.
    /// - Parameter logger: Where to log.
    /// - Returns: The verifier.
    /// - Throws: What ``metadata(logger:)`` throws; `invalidConfiguration` when the issuer publishes no
    ///   `jwks_uri`.
    public func idTokenVerifier(
        logger: Logger = .noop
    ) async throws -> IDTokenVerifier {
        let metadata = try await self.metadata(logger: logger)
        guard let jwksURI = metadata.jwksURI else {
            throw WIFCredentialsError.invalidConfiguration(
                "the issuer \(metadata.issuer) publishes no jwks_uri, so its ID tokens cannot be verified; set OAuth2ClientConfiguration.endpoints.jwks")
        }
        let keys = self.cache.keys.withLock { cached -> IDTokenKeyCache in
            if let cached { return cached }
            let transport = self.transport
            let timeout = self.timeout
            let created = IDTokenKeyCache(source: "the JWKS at \(jwksURI.absoluteString)", timeSource: self.timeSource) { logger in
                let response = try await Self.send(
                    TransportRequest(url: jwksURI, method: "GET", headers: [("Accept", "application/json"), ("User-Agent", SwiftWIFVersion.userAgent())]),
                    endpoint: "JWKS", transport: transport, timeout: timeout, logger: logger
                )
                guard response.status == 200 else {
                    throw WIFCredentialsError.malformedResponse(
                        "the JWKS at \(jwksURI.absoluteString) answered HTTP \(response.status) instead of 200")
                }
                return response.body
            }
            cached = created
            return created
        }
        return IDTokenVerifier(
            issuer: metadata.issuer, clientId: self.configuration.clientId, leeway: self.leeway, timeSource: self.timeSource, keys: keys)
    }

    /// The issuer and client id; never the secret.
    public var description: String {
        "OAuth2Client(\(self.configuration.issuer ?? self.configuration.effectiveDiscoveryURL?.absoluteString ?? "-"), clientId: \(self.configuration.clientId))"
    }

    /// What copies of a client share: the discovery document and the key cache.
    final class Cache: Sendable {
        let metadata = Mutex<OIDCProviderMetadata?>(nil)
        let keys = Mutex<IDTokenKeyCache?>(nil)
    }
}

extension OAuth2Client {
    /// Sends one request, turning transport failures into `network` errors that name the endpoint.
    func send(_ request: TransportRequest, endpoint: String, logger: Logger) async throws -> TransportResponse {
        try await Self.send(request, endpoint: endpoint, transport: self.transport, timeout: self.timeout, logger: logger)
    }

    static func send(
        _ request: TransportRequest,
        endpoint: String,
        transport: any HTTPTransport,
        timeout: Duration,
        logger: Logger
    ) async throws -> TransportResponse {
        logger.debug("calling the issuer", metadata: ["wif.oauth.endpoint": "\(endpoint)", "wif.oauth.host": "\(request.url.host ?? "-")"])
        do {
            return try await transport.send(request, timeout: timeout, maximumBodyBytes: Self.maximumResponseBytes, logger: logger)
        } catch let error as WIFCredentialsError {
            throw error
        } catch HTTPTransportError.timedOut(let after) {
            throw WIFCredentialsError.network(
                "the issuer's \(endpoint) at \(request.url.absoluteString) did not answer within \(HTTPTransportError.describe(after))")
        } catch let error as HTTPTransportError {
            throw WIFCredentialsError.malformedResponse("\(request.url.host ?? "the issuer") \(error)")
        } catch {
            if Task.isCancelled || error is CancellationError { throw CancellationError() }
            throw WIFCredentialsError.network(
                "could not reach the issuer's \(endpoint) at \(request.hostDescription): \(TransportFailure.reason(error))")
        }
    }
}
