import Foundation
import Testing

@testable import WIFLocal

/// Confidential clients: HTTP Basic and form secrets, and the refusals of each.
@Suite("OAuth client authentication")
struct OAuthClientAuthenticationTests {
    static let webApp = OAuthClient(
        clientId: "web-app", clientSecret: "s3cret:with&symbols", redirectURIs: ["https://app.example.test/callback"])

    /// A code for the confidential client, without PKCE (allowed for confidential clients).
    private func code(_ stack: OAuthHarness) async throws -> String {
        let answer = try await stack.authorize([
            ("response_type", "code"), ("client_id", "web-app"), ("redirect_uri", "https://app.example.test/callback"),
            ("scope", "openid"), ("state", "s"), ("login_hint", "alice"),
        ])
        #expect(answer.header("Location")?.hasPrefix("https://app.example.test/callback?code=") == true)
        return try #require(try answer.redirectParameters()["code"])
    }

    private func exchange(_ stack: OAuthHarness, _ code: String, extra: [(String, String)] = [], headers: [(String, String)] = []) async throws
        -> OAuthHarness.Answer
    {
        try await stack.token(
            [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", "https://app.example.test/callback")] + extra,
            headers: headers)
    }

    /// `Basic base64(urlencode(id):urlencode(secret))`, RFC 6749 §2.3.1.
    static func basic(_ id: String, _ secret: String) -> (String, String) {
        let encoded = OAuthHarness.encode([("", id)]).dropFirst() + ":" + OAuthHarness.encode([("", secret)]).dropFirst()
        return ("Authorization", "Basic " + Data(encoded.utf8).base64EncodedString())
    }

    @Test("client_secret_basic and client_secret_post both authenticate")
    func accepted() async throws {
        try await OAuthHarness.run(configure: { $0.oauthClients.append(Self.webApp) }) { stack in
            let basic = try await self.exchange(stack, try await self.code(stack), headers: [Self.basic("web-app", "s3cret:with&symbols")])
            #expect(basic.status == 200, "\(basic.body)")
            let post = try await self.exchange(
                stack, try await self.code(stack), extra: [("client_id", "web-app"), ("client_secret", "s3cret:with&symbols")])
            #expect(post.status == 200, "\(post.body)")
            let claims = try await stack.keys().verify(try #require(try post.json()["id_token"] as? String), as: OAuthIDTokenClaims.self)
            #expect(claims.aud.value == ["web-app"])
        }
    }

    /// A way to present the confidential client, the status and the error it must get.
    struct Refusal: Sendable, CustomTestStringConvertible {
        var name: String
        var form: [(String, String)]
        var headers: [(String, String)]
        var status: Int
        var error: String
        var testDescription: String { self.name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "no secret", form: [("client_id", "web-app")], headers: [], status: 401, error: "invalid_client"),
        Refusal(name: "wrong secret in the form", form: [("client_id", "web-app"), ("client_secret", "wrong-secret")], headers: [], status: 401, error: "invalid_client"),
        Refusal(name: "wrong secret in Basic", form: [], headers: [basic("web-app", "wrong-secret")], status: 401, error: "invalid_client"),
        Refusal(name: "not Basic", form: [], headers: [("Authorization", "Bearer abc")], status: 401, error: "invalid_client"),
        Refusal(
            name: "both methods", form: [("client_secret", "s3cret:with&symbols")], headers: [basic("web-app", "s3cret:with&symbols")],
            status: 400, error: "invalid_request"),
        Refusal(
            name: "client_id differs from Basic", form: [("client_id", "wif-local")], headers: [basic("web-app", "s3cret:with&symbols")],
            status: 400, error: "invalid_request"),
        Refusal(name: "no client at all", form: [], headers: [], status: 400, error: "invalid_request"),
    ]

    @Test("Refused client authentication", arguments: Self.refusals)
    func refused(_ refusal: Refusal) async throws {
        try await OAuthHarness.run(configure: { $0.oauthClients.append(Self.webApp) }) { stack in
            let code = try await self.code(stack)
            let answer = try await self.exchange(stack, code, extra: refusal.form, headers: refusal.headers)
            #expect(answer.status == refusal.status)
            #expect(answer.error == refusal.error)
            if refusal.status == 401 { #expect(answer.header("WWW-Authenticate") == #"Basic realm="wif-local""#) }
            #expect(!answer.body.contains("s3cret"))
            // The code was not touched: the right credentials still redeem it.
            let retry = try await self.exchange(stack, code, headers: [Self.basic("web-app", "s3cret:with&symbols")])
            #expect(retry.status == 200)
        }
    }

    @Test("A public client that sends a secret is refused")
    func publicClientWithSecret() async throws {
        try await OAuthHarness.run { stack in
            let (code, verifier) = try await stack.code()
            let answer = try await stack.token([
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", OAuthHarness.redirectURI), ("client_id", "wif-local"),
                ("client_secret", "anything"), ("code_verifier", verifier),
            ])
            #expect(answer.status == 401)
            #expect(answer.error == "invalid_client")
        }
    }

    @Test("A code_verifier for a code requested without PKCE is refused, so PKCE cannot be stripped from a request")
    func pkceForConfidentialClients() async throws {
        try await OAuthHarness.run(configure: { $0.oauthClients.append(Self.webApp) }) { stack in
            let code = try await self.code(stack)
            let downgrade = try await self.exchange(
                stack, code, extra: [("code_verifier", OAuthHarness.pkce().verifier)], headers: [Self.basic("web-app", "s3cret:with&symbols")])
            #expect(downgrade.error == "invalid_grant")
        }
    }
}
