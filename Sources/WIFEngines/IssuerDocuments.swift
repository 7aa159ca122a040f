import Foundation
import Logging
import WIFFoundation
import WIFHTTP

/// An OpenID Connect issuer's discovery document and key set, read the way an engine reads them when it
/// trusts the issuer's tokens: `<issuer>/.well-known/openid-configuration`, then the JWKS it names.
///
/// Each engine checks what it needs of them (Ceph RGW the keys' `x5c` certificates, SeaweedFS their RSA
/// modulus and exponent); reading them is the same for both.
struct IssuerDocuments: Sendable {
    /// Where the discovery document was read.
    var discoveryURL: String
    /// The discovery document's `issuer`: the tokens' `iss`; `nil` when it has none.
    var issuer: String?
    /// The discovery document's `jwks_uri`.
    var jwksURI: String
    /// The JWKS's `keys`, each a JSON object.
    var keys: [JSONNode]

    /// The largest document read.
    static let maximumBytes = 1024 * 1024

    /// Reads an issuer's discovery document and key set.
    /// - Parameters:
    ///   - issuer: The issuer's URL; trailing slashes are ignored.
    ///   - transport: How to send the requests.
    ///   - timeout: How long each request may take.
    ///   - logger: Where to log.
    /// - Returns: The documents.
    /// - Throws: ``EngineSetupError`` with code ``EngineSetupError/Code/network`` when either document
    ///   cannot be fetched or answers another status than `200`, or
    ///   ``EngineSetupError/Code/invalidIssuer`` when one is not a JSON object or the discovery document
    ///   names no `jwks_uri`.
    static func fetch(
        issuer: String, transport: some HTTPTransport, timeout: Duration, logger: Logger
    ) async throws(EngineSetupError) -> IssuerDocuments {
        var base = issuer
        while base.hasSuffix("/") { base.removeLast() }
        let discoveryURL = base + "/.well-known/openid-configuration"
        let discovery = try await Self.fetchObject(
            discoveryURL, what: "discovery document", transport: transport, timeout: timeout, logger: logger)
        guard let jwksURI = discovery.member("jwks_uri")?.stringValue, !jwksURI.isEmpty else {
            throw .invalidIssuer("the issuer's discovery document \(discoveryURL) has no jwks_uri")
        }
        let jwks = try await Self.fetchObject(jwksURI, what: "JWKS", transport: transport, timeout: timeout, logger: logger)
        return IssuerDocuments(
            discoveryURL: discoveryURL, issuer: discovery.member("issuer")?.stringValue, jwksURI: jwksURI,
            keys: jwks.member("keys")?.arrayValue ?? [])
    }

    private static func fetchObject(
        _ address: String, what: String, transport: some HTTPTransport, timeout: Duration, logger: Logger
    ) async throws(EngineSetupError) -> JSONNode {
        guard let url = URL(string: address), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidIssuer("the issuer's \(what) address '\(address)' is not an http or https URL")
        }
        let response: TransportResponse
        do {
            response = try await transport.send(
                TransportRequest(url: url, method: "GET", headers: [("Accept", "application/json"), ("User-Agent", SwiftWIFVersion.userAgent())]), timeout: timeout,
                maximumBodyBytes: Self.maximumBytes, logger: logger)
        } catch {
            throw .network("the issuer's \(what) \(address) cannot be read: \(TransportFailure.reason(error))")
        }
        guard response.status == 200 else {
            throw .network("the issuer's \(what) \(address) answered HTTP \(response.status)", httpStatus: response.status)
        }
        guard let object = try? JSONParser.parse(response.body), case .object = object.kind else {
            throw .invalidIssuer("the issuer's \(what) \(address) is not a JSON object")
        }
        return object
    }
}
