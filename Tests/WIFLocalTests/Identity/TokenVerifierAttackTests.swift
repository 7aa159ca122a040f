import Crypto
import Foundation
import JWTKit
import Testing
import WIFFoundation

@testable import WIFLocal

@Suite("Token verification: attacks")
struct TokenVerifierAttackTests {
    private func verifyID(_ fixture: IdentityFixture, _ token: String) async -> AWSErrorResponse? {
        await self.refuse(fixture, token, providerId: nil, code: "InvalidIdentityToken")
    }

    @discardableResult
    private func refuse(
        _ fixture: IdentityFixture, _ token: String, providerId: String?, code: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> AWSErrorResponse? {
        do {
            let verifier = try fixture.verifier()
            let error = await expectRejection(code, sourceLocation: sourceLocation) { () async throws(AWSErrorResponse) in
                try await verifier.verify(token, providerId: providerId)
            }
            if let error, token.count >= 8 {
                #expect(!error.message.contains(token), "the message quotes the token", sourceLocation: sourceLocation)
                #expect(!error.description.contains(token), sourceLocation: sourceLocation)
            }
            return error
        } catch {
            Issue.record("cannot create the verifier: \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    @Test("A token whose claims were changed after signing is refused")
    func tamperedPayload() async throws {
        try await withIdentityFixture { fixture in
            let parts = IdentityJWT.parts(try fixture.token("oidc", user: "alice"))
            var claims = try IdentityJWT.object(parts.joined(separator: "."), part: 1)
            claims["sub"] = "bob"
            let forged = [parts[0], IdentityJWT.base64URL(IdentityJWT.json(claims)), parts[2]].joined(separator: ".")
            let error = await self.verifyID(fixture, forged)
            #expect(error?.message.contains("signature") == true)
        }
    }

    @Test("A signature by another key under the stack's kid is refused")
    func wrongKey() async throws {
        try await withIdentityFixture { fixture in
            try await withIdentityFixture(freshKey: true) { attacker in
                let forged = try await attacker.signWithStackKey(header: fixture.stackHeader(), claims: fixture.oidcClaims())
                let error = await self.verifyID(fixture, forged)
                #expect(error?.message.contains("signature") == true)
            }
        }
    }

    @Test("A signature with a flipped bit is refused")
    func flippedSignature() async throws {
        try await withIdentityFixture { fixture in
            let parts = IdentityJWT.parts(try fixture.token("google"))
            var signature = try #require(IdentityJWT.decodeBase64URL(parts[2]))
            signature[signature.count / 2] ^= 0x01
            await self.verifyID(fixture, [parts[0], parts[1], IdentityJWT.base64URL(signature)].joined(separator: "."))
        }
    }

    @Test("Unsigned tokens are refused whatever the spelling of none", arguments: ["none", "None", "NONE", "nOnE", ""])
    func algorithmNone(algorithm: String) async throws {
        try await withIdentityFixture { fixture in
            let claims = IdentityJWT.base64URL(fixture.oidcClaims())
            for signature in ["", "e30"] {
                let header = IdentityJWT.base64URL(#"{"alg":"\#(algorithm)","kid":"\#(try fixture.stackKeyId())"}"#)
                await self.verifyID(fixture, "\(header).\(claims).\(signature)")
            }
        }
    }

    @Test("HS256 signed with the stack's public key as the HMAC secret is refused")
    func hmacWithPublicKey() async throws {
        try await withIdentityFixture { fixture in
            let publicKey = try Insecure.RSA.PrivateKey(pem: fixture.stackPrivateKeyPEM()).publicKey
            let jwks = try await #require(
                await IssuerService(state: fixture.state).respond(to: .init(
                    head: .init(method: .get, scheme: "http", authority: "127.0.0.1", path: "/.well-known/jwks.json"),
                    body: .init(buffer: .init())
                ))
            ).bodyText()
            let secrets: [[UInt8]] = [
                Array(publicKey.pemRepresentation.utf8),
                Array((publicKey.pemRepresentation + "\n").utf8),
                Array(publicKey.derRepresentation),
                Array(jwks.utf8),
            ]
            for algorithm in ["HS256", "HS384", "HS512"] {
                for secret in secrets {
                    let input = IdentityJWT.base64URL(try fixture.stackHeader(alg: algorithm)) + "." + IdentityJWT.base64URL(fixture.oidcClaims())
                    let key = SymmetricKey(data: secret)
                    let mac: [UInt8] =
                        switch algorithm {
                        case "HS256": Array(HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: key))
                        case "HS384": Array(HMAC<SHA384>.authenticationCode(for: Array(input.utf8), using: key))
                        default: Array(HMAC<SHA512>.authenticationCode(for: Array(input.utf8), using: key))
                        }
                    let error = await self.verifyID(fixture, input + "." + IdentityJWT.base64URL(mac))
                    #expect(error?.message.contains("signing algorithm") == true)
                }
            }
        }
    }

    @Test("An algorithm other than the key's is refused, even one the verifier supports", arguments: ["ES256", "RS384", "RS512", "PS256"])
    func algorithmSubstitution(algorithm: String) async throws {
        try await withIdentityFixture { fixture in
            let keys = JWTKeyCollection()
            await keys.add(rsa: try Insecure.RSA.PrivateKey(pem: fixture.stackPrivateKeyPEM()), digestAlgorithm: .sha384, kid: "k")
            let signer = try await keys.getKey(for: "k")
            let forged = try IdentityJWT.sign(header: try fixture.stackHeader(alg: algorithm), claims: fixture.oidcClaims(), with: signer)
            await self.verifyID(fixture, forged)
        }
    }

    @Test("An expired token is refused with ExpiredTokenException")
    func expired() async throws {
        try await withIdentityFixture { fixture in
            let now = fixture.clock.seconds
            let token = try await fixture.signWithStackKey(
                header: fixture.stackHeader(), claims: fixture.oidcClaims(["iat": now - 7200, "exp": now - 61])
            )
            let error = await self.refuse(fixture, token, providerId: nil, code: "ExpiredTokenException")
            #expect(error?.message == "Token expired: current date/time \(now) must be before the expiration date/time \(now - 61)")
        }
    }

    @Test("nbf and iat in the future beyond the leeway are refused; within it they are accepted")
    func futureTimes() async throws {
        try await withIdentityFixture { fixture in
            let now = fixture.clock.seconds
            for (claim, offset, accepted) in [("nbf", 61, false), ("iat", 61, false), ("nbf", 60, true), ("iat", 60, true)] {
                let token = try await fixture.signWithStackKey(
                    header: fixture.stackHeader(), claims: fixture.oidcClaims([claim: now + Int64(offset)])
                )
                if accepted {
                    _ = try await fixture.verifier().verify(token, providerId: nil)
                } else {
                    let error = await self.verifyID(fixture, token)
                    #expect(error?.message.contains("\(now + Int64(offset))") == true)
                }
            }
        }
    }

    @Test("A token of an issuer that is not configured is refused with AWS's message")
    func wrongIssuer() async throws {
        try await withIdentityFixture { fixture in
            for issuer in ["https://evil.example", "https://wif.localhost/", "http://wif.localhost", "https://accounts.google.com.evil"] {
                let token = try await fixture.signWithStackKey(header: fixture.stackHeader(), claims: fixture.oidcClaims(["iss": issuer]))
                let error = await self.verifyID(fixture, token)
                #expect(error?.message == "No OpenIDConnect provider found in your account for \(issuer)")
            }
        }
    }

    @Test("A token for another client id is refused with 'Incorrect token audience'")
    func wrongAudience() async throws {
        try await withIdentityFixture { fixture in
            let audiences: [Any] = ["someone-else", ["someone-else", "another"], "WIF-LOCAL"]
            for audience in audiences {
                let token = try await fixture.signWithStackKey(header: fixture.stackHeader(), claims: fixture.oidcClaims(["aud": audience]))
                let error = await self.verifyID(fixture, token)
                #expect(error?.message == "Incorrect token audience")
            }
            let issued = try fixture.token("oidc", audience: "someone-else")
            await self.verifyID(fixture, issued)
        }
    }

    @Test("An aud array that includes the client id is accepted")
    func audienceArray() async throws {
        try await withIdentityFixture { fixture in
            let token = try await fixture.signWithStackKey(
                header: fixture.stackHeader(), claims: fixture.oidcClaims(["aud": ["other", "wif-local"]])
            )
            let verified = try await fixture.verifier().verify(token, providerId: nil)
            #expect(verified.identity.audiences == ["other", "wif-local"])
        }
    }

    @Test("A token naming an unknown kid is refused, and so is one with no kid from an issuer with several keys")
    func unknownKeyId() async throws {
        try await withIdentityFixture { fixture in
            let header = #"{"alg":"RS256","kid":"not-a-key","typ":"JWT"}"#
            let token = try await fixture.signWithStackKey(header: header, claims: fixture.oidcClaims())
            let error = await self.verifyID(fixture, token)
            #expect(error?.message.contains("kid") == true)

            // The stack has one key, so a token without kid is checked against it.
            let unnamed = try await fixture.signWithStackKey(header: #"{"alg":"RS256","typ":"JWT"}"#, claims: fixture.oidcClaims())
            _ = try await fixture.verifier().verify(unnamed, providerId: nil)
        }
    }

    @Test("A Google token's audience does not pass for the oidc provider, nor an oidc token's for Google")
    func crossProviderAudience() async throws {
        try await withIdentityFixture { fixture in
            let googleAudience = try await fixture.signWithStackKey(
                header: fixture.stackHeader(), claims: fixture.oidcClaims(["aud": "wif-local.apps.googleusercontent.com"])
            )
            await self.verifyID(fixture, googleAudience)
            let oidcAudience = try await fixture.signWithStackKey(
                header: fixture.stackHeader(),
                claims: fixture.oidcClaims(["iss": "https://accounts.google.com", "aud": "wif-local"])
            )
            await self.verifyID(fixture, oidcAudience)

            // A genuine Google token verifies as Google, never as the oidc provider.
            let google = try await fixture.verifier().verify(try fixture.token("google"), providerId: nil)
            #expect(google.identity.kind == .google)
            #expect(google.identity.webIdentity.federatedPrincipal(account: "000000000000") == "accounts.google.com")
        }
    }

    @Test("A Facebook token is refused as an Amazon token, also re-encoded in Amazon's shape")
    func facebookAsAmazon() async throws {
        try await withIdentityFixture { fixture in
            let facebook = try fixture.token("facebook", user: "1001")
            await self.refuse(fixture, facebook, providerId: "www.amazon.com", code: "IDPRejectedClaim")
            let bytes = try #require(TokenEncoding.decodeHex(Array(facebook.dropFirst(3).utf8)))
            let reshaped = "Atza|" + IdentityJWT.base64URL(bytes)
            await self.refuse(fixture, reshaped, providerId: "www.amazon.com", code: "IDPRejectedClaim")
            let amazon = try fixture.token("amazon", user: "1001")
            await self.refuse(fixture, amazon, providerId: "graph.facebook.com", code: "IDPRejectedClaim")
        }
    }

    @Test("Access tokens without their ProviderId, and ID tokens with one, are refused")
    func providerIdMismatch() async throws {
        try await withIdentityFixture { fixture in
            await self.refuse(fixture, try fixture.token("facebook"), providerId: nil, code: "InvalidIdentityToken")
            await self.refuse(fixture, try fixture.token("amazon"), providerId: "", code: "InvalidIdentityToken")
            await self.refuse(fixture, try fixture.token("google"), providerId: "graph.facebook.com", code: "IDPRejectedClaim")
            await self.refuse(fixture, try fixture.token("google"), providerId: "accounts.google.com", code: "InvalidParameterValue")
        }
    }

    @Test("An altered access token is refused", arguments: ["facebook", "amazon"])
    func alteredAccessToken(profile: String) async throws {
        try await withIdentityFixture { fixture in
            let token = try fixture.token(profile, user: "1001")
            let providerId = try fixture.profile(profile).providerId
            var characters = Array(token)
            for position in [characters.count / 2, characters.count - 1, 6] {
                let original = characters[position]
                characters[position] = original == "a" ? "b" : "a"
                await self.refuse(fixture, String(characters), providerId: providerId, code: "IDPRejectedClaim")
                characters[position] = original
            }
            await self.refuse(fixture, String(token.dropLast(2)), providerId: providerId, code: "IDPRejectedClaim")
            await self.refuse(fixture, token + "00", providerId: providerId, code: "IDPRejectedClaim")
        }
    }

    @Test("An access token for an app that is not a client id is refused; an expired one is ExpiredTokenException")
    func accessTokenClaims() async throws {
        try await withIdentityFixture { fixture in
            let otherApp = try fixture.token("facebook", audience: "999")
            let error = await self.refuse(fixture, otherApp, providerId: "graph.facebook.com", code: "IDPRejectedClaim")
            #expect(error?.message.contains("999") == true)
            let expired = try fixture.issuer().issue(
                profile: fixture.profile("amazon"), user: "1", ttl: 10, now: fixture.clock.now.addingTimeInterval(-3600)
            )
            await self.refuse(fixture, expired, providerId: "www.amazon.com", code: "ExpiredTokenException")
        }
    }

    @Test("An access token of a provider with no profile is refused")
    func unconfiguredProvider() async throws {
        try await withIdentityFixture { fixture in
            let token = try fixture.token("facebook")
            let limited = try IdentityFixture(directory: fixture.directory, clock: fixture.clock) { configuration in
                configuration.providers.removeAll { $0.kind == .facebook }
            }
            await self.refuse(limited, token, providerId: "graph.facebook.com", code: "InvalidIdentityToken")
        }
    }

    @Test("Malformed tokens are refused", arguments: [
        "ab.c", "a.b.c.d", "....", "!!!!.e30.c2ln", "e30.e30", "eyJhbGciOiJSUzI1NiJ9.e30.", "W10.e30.c2ln",
        "eyJhbGciOiJSUzI1NiJ9.bm90IGpzb24.c2ln", "eyJhbGciOiJSUzI1NiJ9.W10.c2ln", "eyJhbGciOiJSUzI1NiJ9.e30=.c2ln",
        "eyJhbGciOlsiUlMyNTYiXX0.e30.c2ln", "eyJraWQiOiJ4In0.e30.c2ln",
    ])
    func malformed(token: String) async throws {
        try await withIdentityFixture { fixture in
            await self.verifyID(fixture, token)
        }
    }

    @Test("Duplicate claims, critical headers and claims of the wrong type are refused")
    func ambiguousTokens() async throws {
        try await withIdentityFixture { fixture in
            let now = fixture.clock.seconds
            let duplicate = #"{"iss":"https://wif.localhost","sub":"alice","sub":"bob","aud":"wif-local","exp":\#(now + 60)}"#
            await self.verifyID(fixture, try await fixture.signWithStackKey(header: fixture.stackHeader(), claims: duplicate))

            let critical = #"{"alg":"RS256","kid":"\#(try fixture.stackKeyId())","crit":["exp"],"exp":1}"#
            await self.verifyID(fixture, try await fixture.signWithStackKey(header: critical, claims: fixture.oidcClaims()))

            for (claim, value) in [("exp", "soon" as Any), ("aud", 42 as Any), ("sub", 1 as Any), ("nbf", [1] as Any), ("amr", 3 as Any)] {
                let token = try await fixture.signWithStackKey(header: fixture.stackHeader(), claims: fixture.oidcClaims([claim: value]))
                let error = await self.verifyID(fixture, token)
                #expect(error?.message.contains(claim) == true)
            }
        }
    }

    @Test("A token missing a required claim is refused naming it", arguments: ["iss", "sub", "aud", "exp"])
    func missingClaim(claim: String) async throws {
        try await withIdentityFixture { fixture in
            let token = try await fixture.signWithStackKey(header: fixture.stackHeader(), claims: fixture.oidcClaims([claim: nil]))
            let error = await self.verifyID(fixture, token)
            #expect(error?.message == "Missing a required claim: \(claim)")
        }
    }

    @Test("Tokens outside 4 to 20,000 characters fail validation before anything else")
    func lengthBounds() async throws {
        try await withIdentityFixture { fixture in
            let long = String(repeating: "a", count: 20_001)
            let error = await self.refuse(fixture, long, providerId: nil, code: "ValidationError")
            #expect(error?.message.contains("less than or equal to 20000") == true)
            await self.refuse(fixture, "abc", providerId: nil, code: "ValidationError")
            await self.refuse(fixture, "abc", providerId: "graph.facebook.com", code: "ValidationError")
            await self.refuse(fixture, String(repeating: "a", count: 20_000), providerId: nil, code: "InvalidIdentityToken")

            // A signed token padded to just over the limit with a huge claim.
            let padded = try await fixture.signWithStackKey(
                header: fixture.stackHeader(), claims: fixture.oidcClaims(["pad": String(repeating: "x", count: 15_000)])
            )
            #expect(padded.utf8.count > 20_000)
            await self.refuse(fixture, padded, providerId: nil, code: "ValidationError")
        }
    }

    @Test("Claims and headers nested deeper than the limit are refused")
    func deepNesting() async throws {
        try await withIdentityFixture { fixture in
            let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
            let claims = fixture.oidcClaims().dropLast() + #","deep":\#(deep)}"#
            await self.verifyID(fixture, try await fixture.signWithStackKey(header: fixture.stackHeader(), claims: String(claims)))
        }
    }
}
