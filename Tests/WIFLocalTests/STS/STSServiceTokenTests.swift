import Foundation
import Testing
import WIFCredentials

@testable import WIFLocal

@Suite("STSService with the stack's token verifier")
struct STSServiceTokenTests {
    /// A development token of a profile, issued at the fixture's time.
    static func token(_ fixture: STSFixture, profile name: String, user: String = "alice", ttl: Int = 3600) throws -> (String, ProviderProfile) {
        let profile = try #require(fixture.signing.state.configuration.provider(named: name))
        let token = try DevelopmentTokenIssuer(state: fixture.signing.state).issue(
            profile: profile, user: user, ttl: ttl, now: fixture.signing.clock.now)
        return (token, profile)
    }

    @Test(
        "federates each provider profile's users into its role",
        arguments: [
            ("facebook", "graph.facebook.com"), ("amazon", "www.amazon.com"), ("google", "accounts.google.com"),
            ("cognito", "cognito-identity.amazonaws.com"), ("oidc", "arn:aws:iam::000000000000:oidc-provider/wif.localhost"),
        ])
    func federates(_ profileName: String, _ provider: String) async throws {
        let fixture = try STSFixture.real()
        let (token, profile) = try Self.token(fixture, profile: profileName)
        let role = "arn:aws:iam::000000000000:role/personal-store-\(profileName)"
        let answer = await fixture.post(STSFixture.assume(role: role, session: "alice", token: token, providerId: profile.providerId))
        let result = try answer.decoded(roleArn: role, at: fixture.signing.clock.now)
        #expect(result.provider == provider)
        #expect(result.subjectFromWebIdentityToken == "alice")
        #expect(result.audience == profile.clientIds.first)
        #expect(result.assumedRoleUser?.arn == "arn:aws:sts::000000000000:assumed-role/personal-store-\(profileName)/alice")
        #expect(!answer.body.contains(token))

        // The credentials sign GetCallerIdentity.
        let identity = try await fixture.postSigned(
            [("Action", "GetCallerIdentity"), ("Version", "2011-06-15")], credentials: result.credentials)
        #expect(try identity.text("GetCallerIdentityResult", "Arn") == result.assumedRoleUser?.arn)
    }

    @Test("refuses a token of one provider for another provider's role")
    func otherProvidersRole() async throws {
        let fixture = try STSFixture.real()
        let (token, _) = try Self.token(fixture, profile: "google")
        let error = try #require(await fixture.post(STSFixture.assume(token: token, providerId: nil)).serviceError())
        #expect(error.code == "AccessDenied")
        #expect(error.message == "Not authorized to perform sts:AssumeRoleWithWebIdentity")
    }

    @Test("refuses expired and malformed tokens with the verifier's codes")
    func refusedTokens() async throws {
        let fixture = try STSFixture.real()
        let (token, _) = try Self.token(fixture, profile: "google", ttl: 60)
        fixture.signing.clock.advance(by: 3600)
        let expired = try #require(
            await fixture.post(STSFixture.assume(role: STSFixture.googleRole, token: token, providerId: nil)).serviceError())
        #expect(expired.code == "ExpiredTokenException")
        let garbage = try #require(
            await fixture.post(STSFixture.assume(role: STSFixture.googleRole, token: "not.a.token", providerId: nil)).serviceError())
        #expect(garbage.code == "InvalidIdentityToken")
    }
}
