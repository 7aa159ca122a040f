import Foundation
import Logging
import Testing
import WIFHTTP

@testable import WIFEngines

/// Reading an issuer's discovery document and keys from a scripted transport: what an unreachable
/// issuer and one that serves something else are told apart by.
@Suite("Issuer documents")
struct IssuerDocumentsTests {
    /// Answers each URL with a status and body; an unknown URL fails like a refused connection.
    struct ScriptedTransport: HTTPTransport {
        var answers: [String: (Int, String)]

        struct Refused: Error, CustomStringConvertible {
            var description: String { "connection refused" }
        }

        func send(_ request: TransportRequest, timeout: Duration, maximumBodyBytes: Int, logger: Logger) async throws -> TransportResponse {
            guard let (status, body) = self.answers[request.url.absoluteString] else { throw Refused() }
            return TransportResponse(status: status, body: Array(body.utf8))
        }
    }

    static let discovery = "http://issuer.test/.well-known/openid-configuration"

    static func fetch(_ answers: [String: (Int, String)]) async throws(EngineSetupError) -> IssuerDocuments {
        try await IssuerDocuments.fetch(
            issuer: "http://issuer.test/", transport: ScriptedTransport(answers: answers), timeout: .seconds(1), logger: Logger.noop)
    }

    @Test func theDiscoveryDocumentNamesTheKeys() async throws {
        let documents = try await Self.fetch([
            Self.discovery: (200, #"{"issuer": "http://issuer.test", "jwks_uri": "http://issuer.test/keys"}"#),
            "http://issuer.test/keys": (200, #"{"keys": [{"kty": "RSA", "n": "AQAB", "e": "AQAB"}, {"kty": "EC"}]}"#),
        ])
        #expect(documents.issuer == "http://issuer.test")
        #expect(documents.jwksURI == "http://issuer.test/keys")
        #expect(documents.keys.count == 2)
        #expect(documents.keys.first?.member("kty")?.stringValue == "RSA")
    }

    @Test func anUnreachableIssuerIsANetworkError() async {
        let error = await #expect(throws: EngineSetupError.self) { try await Self.fetch([:]) }
        #expect(error?.code == .network)
        #expect(error?.reason == "the issuer's discovery document \(Self.discovery) cannot be read: connection refused")
        let refused = await #expect(throws: EngineSetupError.self) { try await Self.fetch([Self.discovery: (404, "")]) }
        #expect(refused?.code == .network)
        #expect(refused?.httpStatus == 404)
    }

    @Test(arguments: [
        ("<html>hello</html>", "is not a JSON object"), ("[1]", "is not a JSON object"), (#"{"issuer": "x"}"#, "has no jwks_uri"),
    ])
    func anIssuerServingSomethingElseIsInvalid(body: String, text: String) async {
        let error = await #expect(throws: EngineSetupError.self) { try await Self.fetch([Self.discovery: (200, body)]) }
        #expect(error?.code == .invalidIssuer)
        #expect(error?.reason.contains(text) == true, "\(error?.reason ?? "")")
    }
}
