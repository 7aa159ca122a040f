import Foundation
import Testing

@testable import WIFLocal
import WIFTestSupport

/// An external issuer that rotates its keys: its JWKS changes while the verifier keeps running.
@Suite("Token verification: external issuer key rotation")
struct TokenVerifierKeyRotationTests {
    typealias ECIssuer = TokenVerifierExternalIssuerTests.ECIssuer
    static let issuer = TokenVerifierExternalIssuerTests.issuer

    /// An in-process issuer: the JWKS it publishes now, and how often it was fetched.
    final class PublishedKeys: Sendable {
        let document: IdentityBox<String>
        let fetches = IdentityBox(0)
        let reachable = IdentityBox(true)

        init(_ document: String) {
            self.document = IdentityBox(document)
        }

        var fetcher: TokenVerifier.JWKSFetcher {
            { _, _ throws(LocalStackError) in
                self.fetches.update { $0 += 1 }
                guard self.reachable.value else { throw LocalStackError("connection refused") }
                return Array(self.document.value.utf8)
            }
        }
    }

    private func claims(_ clock: TestClock) -> String {
        IdentityJWT.json(["iss": Self.issuer, "sub": "user-7", "aud": "app-1", "iat": clock.seconds, "exp": clock.seconds + 300])
    }

    private func withVerifier(_ keys: PublishedKeys, _ body: (TokenVerifier, TestClock) async throws -> Void) async throws {
        try await withIdentityFixture(configure: {
            $0.externalIssuers = [ExternalIssuer(issuer: Self.issuer, jwksURL: "https://idp.example.com/jwks", clientIds: ["app-1"])]
        }) { fixture in
            try await body(try TokenVerifier(state: fixture.state, fetchJWKS: keys.fetcher), fixture.clock)
        }
    }

    @Test("A token signed with a key the issuer rotated in verifies once the issuer publishes it")
    func rotatedKeyIsFetched() async throws {
        let old = ECIssuer(keyId: "ec-1")
        let new = ECIssuer(keyId: "ec-2")
        let keys = PublishedKeys(old.jwks)
        try await self.withVerifier(keys) { verifier, clock in
            _ = try await verifier.verify(try await old.sign(self.claims(clock)), providerId: nil)
            #expect(keys.fetches.value == 1)

            clock.advance(by: 300)
            keys.document.value = new.jwks
            let verified = try await verifier.verify(try await new.sign(self.claims(clock)), providerId: nil)
            #expect(verified.identity.subject == "user-7")
            #expect(keys.fetches.value == 2)
            // The retired key is gone with the old set; the new one is served without fetching again.
            let retired = try await old.sign(self.claims(clock))
            await expectRejection("InvalidIdentityToken") { () async throws(AWSErrorResponse) in try await verifier.verify(retired, providerId: nil) }
            _ = try await verifier.verify(try await new.sign(self.claims(clock)), providerId: nil)
            #expect(keys.fetches.value == 2)
        }
    }

    @Test("Tokens with made-up key ids fetch the JWKS at most once per interval, however many come at once")
    func unknownKeyIdsAreRateLimited() async throws {
        let issuer = ECIssuer(keyId: "ec-1")
        let keys = PublishedKeys(issuer.jwks)
        try await self.withVerifier(keys) { verifier, clock in
            _ = try await verifier.verify(try await issuer.sign(self.claims(clock)), providerId: nil)
            #expect(keys.fetches.value == 1)
            // Within the interval of the first load: no fetch at all.
            for index in 0..<20 {
                let token = try await issuer.sign(self.claims(clock), keyId: "forged-\(index)")
                let error = await expectRejection("InvalidIdentityToken") { () async throws(AWSErrorResponse) in
                    try await verifier.verify(token, providerId: nil)
                }
                #expect(error?.message.hasPrefix("Couldn't retrieve verification key") == false)
            }
            #expect(keys.fetches.value == 1)

            // After it, a burst of concurrent ones shares one fetch.
            clock.advance(by: KeyRingCache.minimumReloadInterval)
            var tokens: [String] = []
            for index in 0..<16 { tokens.append(try await issuer.sign(self.claims(clock), keyId: "burst-\(index)")) }
            let refusals = await withTaskGroup(of: Bool.self, returning: Int.self) { group in
                for token in tokens {
                    group.addTask {
                        do throws(AWSErrorResponse) {
                            _ = try await verifier.verify(token, providerId: nil)
                            return false
                        } catch {
                            return error.code == "InvalidIdentityToken"
                        }
                    }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(refusals == tokens.count)
            #expect(keys.fetches.value == 2)
            // The known key still verifies throughout.
            _ = try await verifier.verify(try await issuer.sign(self.claims(clock)), providerId: nil)
            #expect(keys.fetches.value == 2)
        }
    }

    @Test("A failed fetch for an unknown key id keeps the known keys and waits the interval before trying again")
    func failedRefetchKeepsKnownKeys() async throws {
        let issuer = ECIssuer(keyId: "ec-1")
        let keys = PublishedKeys(issuer.jwks)
        try await self.withVerifier(keys) { verifier, clock in
            _ = try await verifier.verify(try await issuer.sign(self.claims(clock)), providerId: nil)
            clock.advance(by: KeyRingCache.minimumReloadInterval + 1)
            keys.reachable.value = false
            let unknown = try await issuer.sign(self.claims(clock), keyId: "ec-9")
            await expectRejection("InvalidIdentityToken") { () async throws(AWSErrorResponse) in try await verifier.verify(unknown, providerId: nil) }
            #expect(keys.fetches.value == 2)
            _ = try await verifier.verify(try await issuer.sign(self.claims(clock)), providerId: nil)
            await expectRejection("InvalidIdentityToken") { () async throws(AWSErrorResponse) in try await verifier.verify(unknown, providerId: nil) }
            #expect(keys.fetches.value == 2)

            keys.reachable.value = true
            clock.advance(by: KeyRingCache.minimumReloadInterval)
            await expectRejection("InvalidIdentityToken") { () async throws(AWSErrorResponse) in try await verifier.verify(unknown, providerId: nil) }
            #expect(keys.fetches.value == 3)
        }
    }
}
