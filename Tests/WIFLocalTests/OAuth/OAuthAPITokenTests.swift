import AccessRules
import Foundation
import Testing
import WIFAPIClient
import WIFAPIServer
import WIFCredentials
@testable import WIFLocal

/// An API client whose OIDC tokens come from a sign-in at the stack's own issuer: the token is renewed
/// before it expires, so calls go on working across many ID-token lifetimes, where the first token is
/// refused once it has expired.
@Suite struct OAuthAPITokenTests {
    static let schema = "type Todo @model @auth(rules: [{ allow: private, provider: oidc }]) { id: ID! content: String }"

    @Test(arguments: [false, true]) func callsGoOnAcrossIDTokenLifetimes(throughWebIdentitySource: Bool) async throws {
        let clock = OAuthClientFlowTests.FlowClock()
        try await OAuthClientFlowTests.withStack(clock: clock, configure: { configuration in
            configuration.oauth.idTokenLifetime = 120
            configuration.apis.append(APIDefinition(name: "corp", schema: Self.schema, authorizationModes: [.oidc]))
        }) { stack in
            let client = try OAuthClientFlowTests.client(stack, clock: clock)
            let signedIn = try await OAuthClientFlowTests.signIn(client)
            let source = OIDCTokenSource(client: client, tokens: signedIn)
            let provider: any APITokenProvider =
                throughWebIdentitySource ? WebIdentityAPITokenProvider(source) : OAuthAPITokenProvider(source, sending: .idToken)
            let endpoint = APIEndpoint(
                name: "corp", kind: .rest, url: URL(string: "\(stack.url)/apis/corp")!, region: "us-east-1", defaultMode: .oidc, modes: [.oidc])
            let api = APIClient(endpoint: endpoint, credentials: APIClientCredentials(oidcTokens: provider))
            let first = APIClient(endpoint: endpoint, credentials: APIClientCredentials(oidcTokens: StaticAPIToken(signedIn.idToken)))
            #expect(try await api.send("GET", "/Todo").response.status == 200)
            for round in 1...5 {
                clock.advance(seconds: 110)
                let answer = try await api.send("GET", "/Todo")
                #expect(answer.response.status == 200, "round \(round): \(String(decoding: answer.response.body, as: UTF8.self))")
            }
            #expect(await source.currentTokens.idToken != signedIn.idToken)
            // The sign-in's first token has long expired: the stack really checks expiry.
            let stale = try await first.send("GET", "/Todo")
            #expect(stale.response.status == 401)
            #expect(String(decoding: stale.response.body, as: UTF8.self).contains("expired"))
        }
    }

    @Test func theAccessTokenIsSentByDefault() async throws {
        let clock = OAuthClientFlowTests.FlowClock()
        try await OAuthClientFlowTests.withStack(clock: clock) { stack in
            let client = try OAuthClientFlowTests.client(stack, clock: clock)
            let signedIn = try await OAuthClientFlowTests.signIn(client)
            let source = OIDCTokenSource(client: client, tokens: signedIn)
            #expect(try await OAuthAPITokenProvider(source).latestToken() == signedIn.accessToken)
            #expect(try await OAuthAPITokenProvider(source, sending: .idToken).latestToken() == signedIn.idToken)
            #expect(!"\(OAuthAPITokenProvider(source))".contains(signedIn.accessToken))
        }
    }
}
