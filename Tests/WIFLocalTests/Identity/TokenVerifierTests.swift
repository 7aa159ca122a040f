import Foundation
import PolicyEngine
import Testing

@testable import WIFLocal

@Suite("Token verification: development tokens")
struct TokenVerifierTests {
    @Test("A Facebook access token verifies with ProviderId graph.facebook.com")
    func facebook() async throws {
        try await withIdentityFixture { fixture in
            let token = try fixture.token("facebook", user: "1001")
            let verified = try await fixture.verifier().verify(token, providerId: "graph.facebook.com")
            #expect(verified.identity == IdentityRecord(kind: .facebook, subject: "1001", audiences: ["100000000000001"]))
            #expect(verified.expiresAt == fixture.clock.seconds + 3600)
            #expect(verified.sourceIdentity == nil)
            let keys = verified.identity.webIdentity.keys
            #expect(keys["graph.facebook.com:id"] == "1001")
            #expect(keys["graph.facebook.com:app_id"] == "100000000000001")
        }
    }

    @Test("A Login with Amazon access token verifies with ProviderId www.amazon.com")
    func amazon() async throws {
        try await withIdentityFixture { fixture in
            let token = try fixture.token("amazon", user: "amzn1.account.AF2")
            let verified = try await fixture.verifier().verify(token, providerId: "www.amazon.com")
            #expect(verified.identity == IdentityRecord(kind: .amazon, subject: "amzn1.account.AF2", audiences: ["amzn1.application-oa2-client.wiflocal"]))
            #expect(verified.identity.webIdentity.keys["www.amazon.com:user_id"] == "amzn1.account.AF2")
        }
    }

    @Test("A Google ID token verifies as a Google identity, with azp as the policy audience")
    func google() async throws {
        try await withIdentityFixture { fixture in
            let token = try fixture.token("google", user: "113355779")
            let verified = try await fixture.verifier().verify(token, providerId: nil)
            let clientId = "wif-local.apps.googleusercontent.com"
            #expect(
                verified.identity
                    == IdentityRecord(kind: .google, subject: "113355779", audiences: [clientId], authorizedParty: clientId)
            )
            let identity = verified.identity.webIdentity
            #expect(identity.keys["accounts.google.com:sub"] == "113355779")
            #expect(identity.keys["accounts.google.com:aud"] == ContextValue(clientId))
            #expect(identity.federatedPrincipal(account: "000000000000") == "accounts.google.com")
        }
    }

    @Test("A Cognito token verifies as a Cognito identity with its amr")
    func cognito() async throws {
        try await withIdentityFixture { fixture in
            let token = try fixture.token("cognito", user: "us-east-1:abc")
            let verified = try await fixture.verifier().verify(token, providerId: nil)
            #expect(verified.identity.kind == .cognito)
            #expect(verified.identity.subject == "us-east-1:abc")
            #expect(verified.identity.audiences == ["us-east-1:00000000-0000-4000-8000-000000000001"])
            #expect(verified.identity.amr?.first == "authenticated")
            let keys = verified.identity.webIdentity.keys
            #expect(keys["cognito-identity.amazonaws.com:amr"]?.values.contains("authenticated") == true)
            #expect(keys["cognito-identity.amazonaws.com:aud"] == "us-east-1:00000000-0000-4000-8000-000000000001")
        }
    }

    @Test("An oidc token verifies as an identity of the stack's OIDC provider, with tags and source identity")
    func oidc() async throws {
        try await withIdentityFixture { fixture in
            let token = try fixture.issuer().issue(
                profile: fixture.profile("oidc"), user: "alice", ttl: 900, now: fixture.clock.now,
                principalTags: ["team": ["blue"]], sourceIdentity: "alice@example.com"
            )
            let verified = try await fixture.verifier().verify(token, providerId: nil)
            #expect(
                verified.identity
                    == IdentityRecord(kind: .oidc, issuer: "https://wif.localhost", subject: "alice", audiences: ["wif-local"], principalTags: ["team": ["blue"]])
            )
            #expect(verified.sourceIdentity == "alice@example.com")
            #expect(verified.expiresAt == fixture.clock.seconds + 900)
            let identity = verified.identity.webIdentity
            #expect(identity.keys["wif.localhost:sub"] == "alice")
            #expect(identity.federatedPrincipal(account: "000000000000") == "arn:aws:iam::000000000000:oidc-provider/wif.localhost")
            #expect(verified.identity.tagKeys["aws:PrincipalTag/team"] == "blue")
        }
    }

    @Test("Each profile's users get their own subject", arguments: ["facebook", "amazon", "google", "cognito", "oidc"])
    func distinctUsers(profile: String) async throws {
        try await withIdentityFixture { fixture in
            let verifier = try fixture.verifier()
            let providerId = try fixture.profile(profile).providerId
            let alice = try await verifier.verify(fixture.token(profile, user: "alice"), providerId: providerId)
            let bob = try await verifier.verify(fixture.token(profile, user: "bob"), providerId: providerId)
            #expect(alice.identity.subject == "alice")
            #expect(bob.identity.subject == "bob")
            #expect(alice.identity.kind == bob.identity.kind)
        }
    }

    @Test("Tokens issued before a restart verify after it", arguments: ["facebook", "google", "oidc"])
    func survivesRestart(profile: String) async throws {
        try await withIdentityFixture { fixture in
            let token = try fixture.token(profile)
            let providerId = try fixture.profile(profile).providerId
            let reopened = try IdentityFixture(directory: fixture.directory, clock: fixture.clock)
            let verified = try await reopened.verifier().verify(token, providerId: providerId)
            #expect(verified.identity.subject == "alice")
        }
    }

    @Test("Tokens of another data directory are refused", arguments: [("facebook", "IDPRejectedClaim"), ("oidc", "InvalidIdentityToken")])
    func otherStack(profile: String, code: String) async throws {
        try await withIdentityFixture { fixture in
            try await withIdentityFixture(freshKey: true) { other in
                let token = try other.token(profile)
                let providerId = try fixture.profile(profile).providerId
                let verifier = try fixture.verifier()
                await expectRejection(code) { () async throws(AWSErrorResponse) in try await verifier.verify(token, providerId: providerId) }
            }
        }
    }

    @Test("Expiry holds within the leeway and fails beyond it, for ID and access tokens", arguments: ["facebook", "oidc"])
    func expiryLeeway(profile: String) async throws {
        try await withIdentityFixture { fixture in
            let verifier = try fixture.verifier()
            let providerId = try fixture.profile(profile).providerId
            let token = try fixture.token(profile, ttl: 60)
            fixture.clock.advance(by: 60 + 59)
            _ = try await verifier.verify(token, providerId: providerId)
            fixture.clock.advance(by: 1)
            let error = await expectRejection("ExpiredTokenException") { () async throws(AWSErrorResponse) in
                try await verifier.verify(token, providerId: providerId)
            }
            let now = fixture.clock.seconds
            #expect(error?.message == "Token expired: current date/time \(now) must be before the expiration date/time \(now - 60)")
        }
    }

    @Test("A token verified before is remembered, and its times are checked on every use")
    func rememberedTokensKeepTheirTimeChecks() async throws {
        try await withIdentityFixture { fixture in
            let verifier = try fixture.verifier()
            let token = try fixture.token("oidc", user: "carol")
            let first = try await verifier.verify(token, providerId: nil)
            let again = try await verifier.verify(token, providerId: nil)
            #expect(again.identity == first.identity)
            #expect(again.expiresAt == first.expiresAt)
            // A clock set back past the leeway before the token's iat refuses the remembered token as
            // it refused it unseen.
            let issuedAt = try #require(first.issuedAt)
            fixture.clock.advance(by: -Double(verifier.tokenLeeway + 1))
            let error = await expectRejection("InvalidIdentityToken") { () async throws(AWSErrorResponse) in
                try await verifier.verify(token, providerId: nil)
            }
            #expect(error?.message.contains("must not be before the issued-at date/time \(issuedAt)") == true)
        }
    }

    @Test("A remembered token is found only by its exact text, not by a canonically equivalent one")
    func rememberedTokensAreMatchedExactly() async throws {
        try await withIdentityFixture { fixture in
            let verifier = try fixture.verifier()
            // A token holding a "K", which U+212A KELVIN SIGN is canonically equivalent to.
            var token = ""
            for index in 0..<32 where !token.contains("K") { token = try fixture.token("oidc", user: "kay\(index)") }
            try #require(token.contains("K"))
            _ = try await verifier.verify(token, providerId: nil)
            let lookalike = token.replacingOccurrences(of: "K", with: "\u{212A}")
            #expect(lookalike == token)
            _ = await expectRejection("InvalidIdentityToken") { () async throws(AWSErrorResponse) in
                try await verifier.verify(lookalike, providerId: nil)
            }
        }
    }

    @Test("A later verification reuses the loaded keys")
    func repeatedVerification() async throws {
        try await withIdentityFixture { fixture in
            let verifier = try fixture.verifier()
            for user in ["a", "b", "c", "d"] {
                let verified = try await verifier.verify(fixture.token("google", user: user), providerId: nil)
                #expect(verified.identity.subject == user)
            }
        }
    }

    @Test("Concurrent first verifications all succeed")
    func concurrentFirstUse() async throws {
        try await withIdentityFixture { fixture in
            let verifier = try fixture.verifier()
            let tokens = try (0..<16).map { try fixture.token("oidc", user: "user\($0)") }
            let subjects = try await withThrowingTaskGroup(of: String.self) { group in
                for token in tokens {
                    group.addTask { try await verifier.verify(token, providerId: nil).identity.subject }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(subjects == Set((0..<16).map { "user\($0)" }))
        }
    }
}
