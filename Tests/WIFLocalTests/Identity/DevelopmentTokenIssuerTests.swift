import Foundation
import Testing

@testable import WIFLocal

@Suite("Development tokens")
struct DevelopmentTokenIssuerTests {
    @Test("A Google ID token has Google's issuer and claim shape, signed RS256 with the stack's key")
    func google() async throws {
        try await withIdentityFixture { fixture in
            let token = try fixture.token("google", user: "113355779", ttl: 600)
            let header = try IdentityJWT.object(token, part: 0)
            #expect(header["alg"] as? String == "RS256")
            #expect(header["typ"] as? String == "JWT")
            #expect(header["kid"] as? String == (try fixture.stackKeyId()))
            let claims = try IdentityJWT.object(token, part: 1)
            let clientId = "wif-local.apps.googleusercontent.com"
            #expect(claims["iss"] as? String == "https://accounts.google.com")
            #expect(claims["aud"] as? String == clientId)
            #expect(claims["azp"] as? String == clientId)
            #expect(claims["sub"] as? String == "113355779")
            #expect(claims["email"] as? String == "113355779@example.com")
            #expect(claims["email_verified"] as? Bool == true)
            #expect((claims["iat"] as? NSNumber)?.int64Value == fixture.clock.seconds)
            #expect((claims["exp"] as? NSNumber)?.int64Value == fixture.clock.seconds + 600)
        }
    }

    @Test("A Cognito token carries the identity pool as aud, the user as sub and authenticated amr")
    func cognito() async throws {
        try await withIdentityFixture { fixture in
            let token = try fixture.token("cognito", user: "us-east-1:9c3f0000-1111-4222-8333-444455556666")
            let claims = try IdentityJWT.object(token, part: 1)
            #expect(claims["iss"] as? String == "https://cognito-identity.amazonaws.com")
            #expect(claims["aud"] as? String == "us-east-1:00000000-0000-4000-8000-000000000001")
            #expect(claims["sub"] as? String == "us-east-1:9c3f0000-1111-4222-8333-444455556666")
            let amr = try #require(claims["amr"] as? [String])
            #expect(amr.first == "authenticated")
            #expect(amr.dropFirst().allSatisfy { $0.hasPrefix("cognito-idp.us-east-1.amazonaws.com/") })
        }
    }

    @Test("An oidc token carries the stack's issuer, and session tags and source identity only when asked")
    func oidc() async throws {
        try await withIdentityFixture { fixture in
            let issuer = try fixture.issuer()
            let plain = try issuer.issue(profile: fixture.profile("oidc"), user: "alice", ttl: 60, now: fixture.clock.now)
            let claims = try IdentityJWT.object(plain, part: 1)
            #expect(claims["iss"] as? String == "https://wif.localhost")
            #expect(claims["aud"] as? String == "wif-local")
            #expect(claims["sub"] as? String == "alice")
            #expect(claims["https://aws.amazon.com/tags"] == nil)

            let tagged = try issuer.issue(
                profile: fixture.profile("oidc"), user: "alice", ttl: 60, now: fixture.clock.now,
                principalTags: ["team": ["blue"], "sub": ["alice"]], sourceIdentity: "alice@example.com"
            )
            let taggedClaims = try IdentityJWT.object(tagged, part: 1)
            let tags = try #require(taggedClaims["https://aws.amazon.com/tags"] as? [String: Any])
            let principalTags = try #require(tags["principal_tags"] as? [String: [String]])
            #expect(principalTags == ["team": ["blue"], "sub": ["alice"]])
            #expect(taggedClaims["https://aws.amazon.com/source_identity"] as? String == "alice@example.com")
        }
    }

    @Test("Facebook and Amazon tokens are opaque, in the providers' shapes", arguments: [("facebook", "EAA"), ("amazon", "Atza|")])
    func opaque(profile: String, prefix: String) async throws {
        try await withIdentityFixture { fixture in
            let token = try fixture.token(profile, user: "1001")
            #expect(token.hasPrefix(prefix))
            #expect(!token.contains("."))
            #expect(!token.contains("1001"))
            if profile == "facebook" {
                #expect(token.dropFirst(3).allSatisfy { $0.isHexDigit && !$0.isUppercase })
            }
            let other = try fixture.token(profile, user: "1002")
            #expect(other != token)
        }
    }

    @Test("An explicit audience replaces the profile's client id")
    func audience() async throws {
        try await withIdentityFixture { fixture in
            let token = try fixture.token("oidc", audience: "another-client")
            #expect(try IdentityJWT.object(token, part: 1)["aud"] as? String == "another-client")
        }
    }

    @Test("Bad arguments are refused with a message naming them")
    func badArguments() async throws {
        try await withIdentityFixture { fixture in
            let issuer = try fixture.issuer()
            let oidc = try fixture.profile("oidc")
            let facebook = try fixture.profile("facebook")
            let now = fixture.clock.now
            let cases: [(String, () throws(LocalStackError) -> String)] = [
                ("user id", { () throws(LocalStackError) in try issuer.issue(profile: oidc, user: "", ttl: 60, now: now) }),
                ("user id", { () throws(LocalStackError) in try issuer.issue(profile: oidc, user: String(repeating: "a", count: 256), ttl: 60, now: now) }),
                ("control characters", { () throws(LocalStackError) in try issuer.issue(profile: oidc, user: "a\nb", ttl: 60, now: now) }),
                ("lifetime", { () throws(LocalStackError) in try issuer.issue(profile: oidc, user: "alice", ttl: 0, now: now) }),
                ("client id", {
                    () throws(LocalStackError) in
                    try issuer.issue(profile: ProviderProfile(name: "bare", kind: .oidc, clientIds: []), user: "alice", ttl: 60, now: now)
                }),
                ("ID tokens only", {
                    () throws(LocalStackError) in try issuer.issue(profile: facebook, user: "1", ttl: 60, now: now, principalTags: ["a": ["b"]])
                }),
            ]
            for (expected, issue) in cases {
                let error = #expect(throws: LocalStackError.self) { try issue() }
                #expect(error?.message.contains(expected) == true, "\(error?.message ?? "no error")")
            }
        }
    }
}
