import Foundation
import Hummingbird
import JWTKit
import Testing

@testable import WIFLocal

@Suite("Development issuer endpoints")
struct IssuerServiceTests {
    private func request(_ path: String, method: HTTPRequest.Method = .get, host: String? = "127.0.0.1:8123") -> Request {
        Request(head: HTTPRequest(method: method, scheme: "http", authority: host, path: path), body: RequestBody(buffer: ByteBuffer()))
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("The discovery document names the configured issuer and a JWKS URL on the request's host")
    func discovery() async throws {
        try await withIdentityFixture { fixture in
            let service = try IssuerService(state: fixture.state)
            let response = try #require(await service.respond(to: self.request("/.well-known/openid-configuration")))
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            let document = try self.json(try await response.bodyText())
            #expect(document["issuer"] as? String == "https://wif.localhost")
            #expect(document["jwks_uri"] as? String == "http://127.0.0.1:8123/.well-known/jwks.json")
            #expect(document["id_token_signing_alg_values_supported"] as? [String] == ["RS256"])
            #expect(document["subject_types_supported"] as? [String] == ["public"])
            #expect(document["response_types_supported"] as? [String] == ["code"])
            let claims = try #require(document["claims_supported"] as? [String])
            #expect(Set(["iss", "sub", "aud", "exp", "iat"]).isSubset(of: Set(claims)))
        }
    }

    @Test("A configured issuer is served as configured")
    func configuredIssuer() async throws {
        try await withIdentityFixture(configure: { $0.issuer = "https://idp.test/realms/dev" }) { fixture in
            let service = try IssuerService(state: fixture.state)
            let response = try #require(await service.respond(to: self.request("/.well-known/openid-configuration", host: "localhost:9000")))
            let document = try self.json(try await response.bodyText())
            #expect(document["issuer"] as? String == "https://idp.test/realms/dev")
            #expect(document["jwks_uri"] as? String == "http://localhost:9000/.well-known/jwks.json")
        }
    }

    @Test("Without a usable Host header, the JWKS URL uses the configured address", arguments: [nil, "evil.example/path?x", "a b"])
    func hostFallback(host: String?) async throws {
        try await withIdentityFixture(configure: { $0.port = 4566 }) { fixture in
            let service = try IssuerService(state: fixture.state)
            let response = try #require(await service.respond(to: self.request("/.well-known/openid-configuration", host: host)))
            let document = try self.json(try await response.bodyText())
            #expect(document["jwks_uri"] as? String == "http://127.0.0.1:4566/.well-known/jwks.json")
        }
    }

    @Test("The JWKS holds one RS256 signing key with n, e and an x5c certificate of the same key")
    func jwks() async throws {
        try await withIdentityFixture { fixture in
            let service = try IssuerService(state: fixture.state)
            let response = try #require(await service.respond(to: self.request("/.well-known/jwks.json")))
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            let document = try self.json(try await response.bodyText())
            let keys = try #require(document["keys"] as? [[String: Any]])
            try #require(keys.count == 1)
            let key = keys[0]
            #expect(key["kty"] as? String == "RSA")
            #expect(key["use"] as? String == "sig")
            #expect(key["alg"] as? String == "RS256")
            #expect(key["kid"] as? String == (try fixture.stackKeyId()))
            let n = try #require(key["n"] as? String)
            let e = try #require(key["e"] as? String)
            #expect(e == "AQAB")
            #expect(!n.contains("=") && !n.contains("+") && !n.contains("/"))

            // The certificate, read by jwt-kit, carries the same modulus and exponent.
            let x5c = try #require(key["x5c"] as? [String])
            try #require(x5c.count == 1)
            let der = try #require(Data(base64Encoded: x5c[0]))
            var lines = ["-----BEGIN CERTIFICATE-----"]
            var body = Substring(der.base64EncodedString())
            while !body.isEmpty {
                lines.append(String(body.prefix(64)))
                body = body.dropFirst(64)
            }
            lines.append("-----END CERTIFICATE-----")
            let certified = try Insecure.RSA.PublicKey(certificatePEM: lines.joined(separator: "\n")).getKeyPrimitives()
            #expect(IdentityJWT.decodeBase64URL(n) == certified.modulus)
            #expect(IdentityJWT.decodeBase64URL(e) == certified.publicExponent)

            // The key id is the key's RFC 7638 thumbprint.
            #expect(key["kid"] as? String == IssuerSigningKey.thumbprint(modulus: n, exponent: e))
        }
    }

    @Test("The JWKS is the same after a restart over the same data directory")
    func jwksStableAcrossRestart() async throws {
        try await withIdentityFixture { fixture in
            let before = try await #require(await IssuerService(state: fixture.state).respond(to: self.request("/.well-known/jwks.json"))).bodyText()
            let reopened = try IdentityFixture(directory: fixture.directory, clock: fixture.clock)
            let after = try await #require(await IssuerService(state: reopened.state).respond(to: self.request("/.well-known/jwks.json"))).bodyText()
            #expect(before == after)
        }
    }

    @Test("Development ID tokens verify with jwt-kit against the served JWKS", arguments: ["google", "cognito", "oidc"])
    func tokensVerifyWithPublishedKeys(profile: String) async throws {
        struct Claims: JWTPayload {
            var iss: IssuerClaim
            var sub: SubjectClaim
            var aud: AudienceClaim
            var exp: ExpirationClaim
            func verify(using algorithm: some JWTAlgorithm) async throws {}
        }
        try await withIdentityFixture { fixture in
            let service = try IssuerService(state: fixture.state)
            let jwks = try await #require(await service.respond(to: self.request("/.well-known/jwks.json"))).bodyText()
            let keys = JWTKeyCollection()
            try await keys.add(jwksJSON: jwks)
            let token = try fixture.token(profile, user: "alice")
            let claims = try await keys.verify(token, as: Claims.self)
            #expect(claims.sub.value == "alice")
            #expect(claims.aud.value == [ProviderProfile.developmentClientId(for: try fixture.profile(profile).kind)])
        }
    }

    @Test("HEAD answers the headers only; other methods are not allowed")
    func methods() async throws {
        try await withIdentityFixture { fixture in
            let service = try IssuerService(state: fixture.state)
            let head = try #require(await service.respond(to: self.request("/.well-known/jwks.json", method: .head)))
            #expect(head.status == .ok)
            #expect(try await head.bodyText().isEmpty)
            #expect(Int(head.headers[.contentLength] ?? "") ?? 0 > 100)
            let post = try #require(await service.respond(to: self.request("/.well-known/openid-configuration", method: .post)))
            #expect(post.status == .methodNotAllowed)
            #expect(post.headers[.allow] == "GET, HEAD")
        }
    }

    @Test("Other paths are left to the other services", arguments: ["/", "/wif-personal/key", "/.well-known/other", "/.well-known/jwks.json/x"])
    func otherPaths(path: String) async throws {
        try await withIdentityFixture { fixture in
            let service = try IssuerService(state: fixture.state)
            #expect(await service.respond(to: self.request(path)) == nil)
        }
    }
}
