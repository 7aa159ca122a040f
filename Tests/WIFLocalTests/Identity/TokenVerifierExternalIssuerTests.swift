import Foundation
import JWTKit
import Testing

@testable import WIFLocal
import WIFTestSupport

@Suite("Token verification: external issuers")
struct TokenVerifierExternalIssuerTests {
    static let issuer = "https://idp.example.com/realms/apps"

    /// An EC issuer: its private key, and its JWKS.
    struct ECIssuer {
        let key = ES256PrivateKey()
        let keyId: String

        var jwks: String {
            let parameters = self.key.publicKey.parameters
            return #"{"keys":[{"kty":"EC","crv":"P-256","use":"sig","kid":"\#(self.keyId)","x":"\#(parameters?.x ?? "")","y":"\#(parameters?.y ?? "")"}]}"#
        }

        func sign(_ claims: String, alg: String = "ES256", keyId: String? = nil) async throws -> String {
            let keys = JWTKeyCollection()
            await keys.add(ecdsa: self.key, kid: "k")
            let algorithm = try await keys.getKey(for: "k")
            return try IdentityJWT.sign(header: #"{"alg":"\#(alg)","kid":"\#(keyId ?? self.keyId)","typ":"JWT"}"#, claims: claims, with: algorithm)
        }
    }

    private func claims(_ clock: TestClock, aud: String = "app-1", iss: String = Self.issuer) -> String {
        IdentityJWT.json(["iss": iss, "sub": "user-7", "aud": aud, "azp": "app-1", "amr": ["pwd", "mfa"], "iat": clock.seconds, "exp": clock.seconds + 300])
    }

    private func writeJWKS(_ text: String) throws -> String {
        let path = TemporaryFolder.url("wif-jwks", suffix: ".json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("A token of an issuer configured with a JWKS file verifies as that OIDC provider's identity")
    func jwksFile() async throws {
        let external = ECIssuer(keyId: "ec-1")
        let path = try self.writeJWKS(external.jwks)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await withIdentityFixture(configure: {
            $0.externalIssuers = [ExternalIssuer(issuer: Self.issuer, jwksFile: path, clientIds: ["app-1"])]
        }) { fixture in
            let verifier = try fixture.verifier()
            let verified = try await verifier.verify(try await external.sign(self.claims(fixture.clock)), providerId: nil)
            #expect(
                verified.identity
                    == IdentityRecord(kind: .oidc, issuer: Self.issuer, subject: "user-7", audiences: ["app-1"], authorizedParty: "app-1", amr: ["pwd", "mfa"])
            )
            let identity = verified.identity.webIdentity
            #expect(identity.keys["idp.example.com/realms/apps:sub"] == "user-7")
            #expect(identity.federatedPrincipal(account: "000000000000") == "arn:aws:iam::000000000000:oidc-provider/idp.example.com/realms/apps")

            // Another key under the same kid, another client id, the stack's key, a wrong algorithm: refused.
            let impostor = ECIssuer(keyId: "ec-1")
            for token in [
                try await impostor.sign(self.claims(fixture.clock)),
                try await external.sign(self.claims(fixture.clock, aud: "app-2")),
                try await external.sign(self.claims(fixture.clock), keyId: "ec-2"),
                try await fixture.signWithStackKey(header: fixture.stackHeader(), claims: self.claims(fixture.clock)),
                try await external.sign(self.claims(fixture.clock), alg: "ES384"),
            ] {
                await expectRejection("InvalidIdentityToken") { () async throws(AWSErrorResponse) in try await verifier.verify(token, providerId: nil) }
            }
            // The external key does not vouch for the stack's issuers either.
            let stackIssuer = try await external.sign(self.claims(fixture.clock, aud: "wif-local", iss: "https://wif.localhost"))
            await expectRejection("InvalidIdentityToken") { () async throws(AWSErrorResponse) in try await verifier.verify(stackIssuer, providerId: nil) }
        }
    }

    @Test("A JWKS URL is fetched once and its keys reused")
    func jwksURLFetchedOnce() async throws {
        let external = ECIssuer(keyId: "ec-1")
        let fetches = IdentityBox(0)
        let document = external.jwks
        try await withIdentityFixture(configure: {
            $0.externalIssuers = [ExternalIssuer(issuer: Self.issuer, jwksURL: "https://idp.example.com/jwks", clientIds: ["app-1"])]
        }) { fixture in
            let verifier = try TokenVerifier(state: fixture.state) { url, _ throws(LocalStackError) in
                #expect(url.absoluteString == "https://idp.example.com/jwks")
                fetches.update { $0 += 1 }
                return Array(document.utf8)
            }
            for _ in 0..<3 {
                let verified = try await verifier.verify(try await external.sign(self.claims(fixture.clock)), providerId: nil)
                #expect(verified.identity.subject == "user-7")
            }
            #expect(fetches.value == 1)
        }
    }

    @Test("An unreachable JWKS URL gives AWS's key retrieval error, and is tried again after a pause")
    func jwksURLFailure() async throws {
        let external = ECIssuer(keyId: "ec-1")
        let available = IdentityBox(false)
        let fetches = IdentityBox(0)
        let document = external.jwks
        try await withIdentityFixture(configure: {
            $0.externalIssuers = [ExternalIssuer(issuer: Self.issuer, jwksURL: "https://idp.example.com/jwks", clientIds: ["app-1"])]
        }) { fixture in
            let verifier = try TokenVerifier(state: fixture.state) { _, _ throws(LocalStackError) in
                fetches.update { $0 += 1 }
                guard available.value else { throw LocalStackError("connection refused") }
                return Array(document.utf8)
            }
            let token = try await external.sign(self.claims(fixture.clock))
            for _ in 0..<2 {
                let error = await expectRejection("InvalidIdentityToken") { () async throws(AWSErrorResponse) in
                    try await verifier.verify(token, providerId: nil)
                }
                #expect(error?.message.hasPrefix("Couldn't retrieve verification key from your identity provider") == true)
            }
            #expect(fetches.value == 1)
            available.value = true
            fixture.clock.advance(by: KeyRingCache.retryInterval + 1)
            let verified = try await verifier.verify(token, providerId: nil)
            #expect(verified.identity.subject == "user-7")
            #expect(fetches.value == 2)
        }
    }

    @Test("An unusable external issuer stops the verifier from starting, naming it")
    func badConfiguration() async throws {
        let cases: [(ExternalIssuer, String)] = [
            (ExternalIssuer(issuer: Self.issuer, jwksFile: "/nonexistent/jwks.json", clientIds: ["a"]), "cannot read the JWKS file"),
            (ExternalIssuer(issuer: Self.issuer, jwksURL: "ftp://idp.example.com/jwks", clientIds: ["a"]), "not an http or https URL"),
            (ExternalIssuer(issuer: Self.issuer, clientIds: ["a"]), "needs a jwksFile or a jwksURL"),
        ]
        for (external, message) in cases {
            try await withIdentityFixture(configure: { $0.externalIssuers = [external] }) { fixture in
                let error = #expect(throws: LocalStackError.self) { try fixture.verifier() }
                #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
            }
        }
        let path = try self.writeJWKS(#"{"keys":"nope"}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await withIdentityFixture(configure: {
            $0.externalIssuers = [ExternalIssuer(issuer: Self.issuer, jwksFile: path, clientIds: ["a"])]
        }) { fixture in
            let error = #expect(throws: LocalStackError.self) { try fixture.verifier() }
            #expect(error?.message.contains("is not a JSON Web Key Set") == true)
        }
    }

    @Test("A JWKS without a usable signing key makes the issuer's tokens fail, not the stack")
    func jwksWithoutSigningKeys() async throws {
        let external = ECIssuer(keyId: "ec-1")
        let path = try self.writeJWKS(#"{"keys":[{"kty":"oct","kid":"s","k":"c2VjcmV0"}]}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await withIdentityFixture(configure: {
            $0.externalIssuers = [ExternalIssuer(issuer: Self.issuer, jwksFile: path, clientIds: ["app-1"])]
        }) { fixture in
            let verifier = try fixture.verifier()
            let token = try await external.sign(self.claims(fixture.clock))
            await expectRejection("InvalidIdentityToken") { () async throws(AWSErrorResponse) in try await verifier.verify(token, providerId: nil) }
            // The stack's own tokens still verify.
            _ = try await verifier.verify(try fixture.token("oidc"), providerId: nil)
        }
    }
}
