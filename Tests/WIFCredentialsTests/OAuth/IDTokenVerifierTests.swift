import Crypto
import Foundation
import Testing

@testable import WIFCredentials
import WIFTestSupport

@Suite struct IDTokenVerifierTests {
    let clock = ManualTimeSource()
    let issuer: OAuthTestIssuer

    init() {
        let clock = self.clock
        self.issuer = OAuthTestIssuer(now: { clock.now })
    }

    func verifier(leeway: Duration = .seconds(60)) throws -> IDTokenVerifier {
        IDTokenVerifier(jwks: Array(self.issuer.jwks.utf8), issuer: OAuthTestIssuer.issuer, clientId: OAuthTestIssuer.clientId, leeway: leeway, timeSource: self.clock.timeSource)
    }

    func expectRefusal(_ token: String, nonce: String? = nil, _ expected: String, leeway: Duration = .seconds(60)) async throws {
        let verifier = try self.verifier(leeway: leeway)
        await #expect {
            try await verifier.verify(token, nonce: nonce)
        } throws: { error in
            let error = error as? WIFCredentialsError
            let matches = error?.code == .invalidIDToken && error?.reason.contains(expected) == true
            if !matches { Issue.record("got \(String(describing: error))") }
            // The token itself is never quoted.
            return matches && error?.reason.contains(token) == false
        }
    }

    @Test func aGoodTokenVerifiesAndItsClaimsAreRead() async throws {
        let token = self.issuer.idToken(subject: "alice", nonce: "n-1", claims: ["email": "alice@example.com", "azp": OAuthTestIssuer.clientId])
        let claims = try await self.verifier().verify(token, nonce: "n-1")
        #expect(claims.subject == "alice")
        #expect(claims.issuer == OAuthTestIssuer.issuer)
        #expect(claims.audience == [OAuthTestIssuer.clientId])
        #expect(claims.email == "alice@example.com")
        #expect(claims.expiresAt == self.clock.now.addingTimeInterval(3600))
        #expect(claims.keyId == OAuthTestIssuer.keyId)
        #expect(claims.algorithm == "ES256")
    }

    @Test func theIssuerMustMatch() async throws {
        self.issuer.configure { $0.issuerInTokens = "https://evil.example" }
        try await self.expectRefusal(self.issuer.idToken(subject: "alice", nonce: nil), "iss is 'https://evil.example'")
    }

    @Test func theAudienceMustIncludeTheClient() async throws {
        try await self.expectRefusal(self.issuer.idToken(subject: "a", nonce: nil, claims: ["aud": "other-app"]), "does not include this client id")
        try await self.expectRefusal(
            self.issuer.idToken(subject: "a", nonce: nil, claims: ["aud": [OAuthTestIssuer.clientId, "other"]]), "several audiences but no azp")
        try await self.expectRefusal(self.issuer.idToken(subject: "a", nonce: nil, claims: ["azp": "other"]), "azp is 'other'")
    }

    @Test func expiryCountsTheLeeway() async throws {
        let token = self.issuer.idToken(subject: "alice", nonce: nil, lifetime: 100)
        self.clock.advance(seconds: 150)
        _ = try await self.verifier().verify(token, nonce: nil)
        self.clock.advance(seconds: 10)
        try await self.expectRefusal(token, "expired at")
        try await self.expectRefusal(self.issuer.idToken(subject: "a", nonce: nil, lifetime: -1), "expired at", leeway: .zero)
    }

    @Test func aTokenNotYetValidIsRefused() async throws {
        let future = self.clock.now.timeIntervalSince1970 + 600
        try await self.expectRefusal(self.issuer.idToken(subject: "a", nonce: nil, claims: ["nbf": future]), "not valid before")
    }

    @Test func theNonceMustBeTheOneSent() async throws {
        try await self.expectRefusal(self.issuer.idToken(subject: "a", nonce: "other"), nonce: "mine", "nonce is not the one this sign-in sent")
        try await self.expectRefusal(self.issuer.idToken(subject: "a", nonce: nil), nonce: "mine", "has no nonce")
    }

    @Test func requiredClaimsMustBePresent() async throws {
        try await self.expectRefusal(self.issuer.idToken(subject: "", nonce: nil), "has no sub")
        try await self.expectRefusal(self.issuer.idToken(subject: "a", nonce: nil, claims: ["iat": "yesterday"]), "no numeric iat")
        try await self.expectRefusal(self.issuer.idToken(subject: "a", nonce: nil, claims: ["exp": "tomorrow"]), "no numeric exp")
    }

    @Test func aClaimNamedTwiceIsRefused() async throws {
        let now = Int(self.clock.now.timeIntervalSince1970)
        let claims = #""iss":"\#(OAuthTestIssuer.issuer)","aud":"\#(OAuthTestIssuer.clientId)","iat":\#(now),"exp":\#(now + 3600)"#
        // The same claims with one sub verify; with two, whichever one a reader kept, the token is refused.
        let verified = try await self.verifier().verify(self.issuer.idToken(payload: "{" + claims + #","sub":"alice"}"#), nonce: nil)
        #expect(verified.subject == "alice")
        try await self.expectRefusal(
            self.issuer.idToken(payload: "{" + claims + #","sub":"alice","sub":"admin"}"#), "payload is not a base64url JSON object: the key 'sub' appears twice")
    }

    @Test func aNumericDateIsANumberNotABoolean() async throws {
        try await self.expectRefusal(self.issuer.idToken(subject: "a", nonce: nil, claims: ["iat": true]), "no numeric iat")
        let token = self.issuer.idToken(subject: "a", nonce: nil, claims: ["iat": 0])
        #expect(try await self.verifier().verify(token, nonce: nil).issuedAt == Date(timeIntervalSince1970: 0))
    }

    @Test func aChangedPayloadBreaksTheSignature() async throws {
        let token = self.issuer.idToken(subject: "alice", nonce: nil)
        let parts = token.split(separator: ".").map(String.init)
        let forged = OAuthTestIssuer.sign(
            claims: ["iss": OAuthTestIssuer.issuer, "sub": "mallory", "aud": OAuthTestIssuer.clientId, "iat": 1, "exp": 9_999_999_999],
            header: ["alg": "ES256", "kid": OAuthTestIssuer.keyId], key: P256.Signing.PrivateKey()
        )
        let forgedPayload = forged.split(separator: ".")[1]
        try await self.expectRefusal("\(parts[0]).\(forgedPayload).\(parts[2])", "signature does not verify")
        try await self.expectRefusal(forged, "signature does not verify")
    }

    @Test(arguments: ["none", "HS256"])
    func unsignedAndSymmetricAlgorithmsAreRefused(algorithm: String) async throws {
        let token = self.issuer.idToken(subject: "a", nonce: nil, header: ["alg": algorithm, "kid": OAuthTestIssuer.keyId])
        try await self.expectRefusal(token, "only RS*, PS* and ES* signatures")
    }

    @Test func anAlgorithmOtherThanTheKeysIsRefused() async throws {
        let token = self.issuer.idToken(subject: "a", nonce: nil, header: ["alg": "RS256", "kid": OAuthTestIssuer.keyId])
        try await self.expectRefusal(token, "the issuer's key 'key-1' is for ES256")
    }

    @Test func malformedTokensAreRefused() async throws {
        try await self.expectRefusal("not-a-jwt", "not a signed JWT")
        try await self.expectRefusal("a.b.c.d", "not a signed JWT")
        try await self.expectRefusal("eyJ.e30.c2ln", "header is not a base64url JSON object")
    }

    @Test func anUnknownKeyIdReloadsTheKeysOnceThenFails() async throws {
        let client = try self.issuer.client(timeSource: self.clock.timeSource)
        let verifier = try await client.idTokenVerifier()
        _ = try await verifier.verify(self.issuer.idToken(subject: "alice", nonce: nil), nonce: nil)
        #expect(self.issuer.jwksFetches == 1)

        // The issuer rotates its key: the new kid is unknown, so the keys are loaded again.
        self.clock.advance(seconds: 120)
        self.issuer.rotateKey(to: "key-2")
        let claims = try await verifier.verify(self.issuer.idToken(subject: "alice", nonce: nil), nonce: nil)
        #expect(claims.keyId == "key-2")
        #expect(self.issuer.jwksFetches == 2)

        // A kid the issuer never had reloads at most once a minute.
        let stranger = self.issuer.idToken(subject: "a", nonce: nil, header: ["alg": "ES256", "kid": "nobody"])
        for _ in 0..<3 {
            await #expect(throws: WIFCredentialsError.invalidIDToken("")) { try await verifier.verify(stranger, nonce: nil) }
        }
        #expect(self.issuer.jwksFetches == 2)
    }

    @Test func aKeySetWithoutSigningKeysIsAClearError() async throws {
        let verifier = IDTokenVerifier(
            jwks: Array(#"{"keys":[{"kty":"oct","k":"c2VjcmV0","kid":"h"}]}"#.utf8), issuer: OAuthTestIssuer.issuer,
            clientId: OAuthTestIssuer.clientId, timeSource: self.clock.timeSource)
        await #expect {
            try await verifier.verify(self.issuer.idToken(subject: "a", nonce: nil), nonce: nil)
        } throws: { error in
            (error as? WIFCredentialsError)?.reason.contains("holds no RSA or EC signing key") == true
        }
    }
}
