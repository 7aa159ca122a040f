import Foundation
import JWTKit
import Testing
import WIFCredentials

@testable import WIFLocal
import WIFTestSupport

/// The authorization code flow with PKCE over real HTTP, the browser step read from the 302 `Location`.
@Suite("OAuth authorization code flow")
struct OAuthCodeFlowTests {
    @Test("The discovery document names the OAuth endpoints on the address the client used")
    func discovery() async throws {
        try await OAuthHarness.run { stack in
            let document = try await stack.send("GET", "/.well-known/openid-configuration").json()
            #expect(document["issuer"] as? String == "https://wif.localhost")
            #expect(document["authorization_endpoint"] as? String == stack.base + "/oauth2/authorize")
            #expect(document["token_endpoint"] as? String == stack.base + "/oauth2/token")
            #expect(document["device_authorization_endpoint"] as? String == stack.base + "/oauth2/device_authorization")
            #expect(document["revocation_endpoint"] as? String == stack.base + "/oauth2/revoke")
            #expect(document["response_types_supported"] as? [String] == ["code"])
            #expect(document["code_challenge_methods_supported"] as? [String] == ["S256"])
            #expect(
                document["grant_types_supported"] as? [String]
                    == ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"])
            #expect(document["scopes_supported"] as? [String] == ["openid", "profile", "email", "offline_access"])
            #expect(document["token_endpoint_auth_methods_supported"] as? [String] == ["none", "client_secret_basic", "client_secret_post"])
        }
    }

    @Test("Code + PKCE gives an ID token that verifies against the JWKS and federates into personal-store-oidc")
    func fullFlow() async throws {
        try await OAuthHarness.run { stack in
            let pkce = OAuthHarness.pkce()
            let authorize = try await stack.authorize(OAuthHarness.authorizationRequest(challenge: pkce.challenge))
            #expect(authorize.status == 302)
            let location = try #require(authorize.header("Location"))
            #expect(location.hasPrefix(OAuthHarness.redirectURI + "?"))
            let redirect = try authorize.redirectParameters()
            #expect(redirect["state"] == "state-1")
            #expect(redirect["iss"] == "https://wif.localhost")
            let code = try #require(redirect["code"])

            let answer = try await stack.exchange(code, verifier: pkce.verifier)
            #expect(answer.status == 200, "\(answer.body)")
            #expect(answer.header("Cache-Control") == "no-store")
            #expect(answer.header("Content-Type") == "application/json")
            let tokens = try answer.json()
            #expect(tokens["token_type"] as? String == "Bearer")
            #expect(tokens["expires_in"] as? Int == 3600)
            #expect(tokens["scope"] as? String == "openid offline_access")
            #expect((tokens["access_token"] as? String)?.isEmpty == false)
            #expect((tokens["refresh_token"] as? String)?.isEmpty == false)
            let idToken = try #require(tokens["id_token"] as? String)

            // The ID token verifies with jwt-kit against the served JWKS and carries the sign-in.
            let claims = try await stack.keys().verify(idToken, as: OAuthIDTokenClaims.self)
            #expect(claims.iss.value == "https://wif.localhost")
            #expect(claims.sub.value == "alice")
            #expect(claims.aud.value == ["wif-local"])
            #expect(claims.azp == "wif-local")
            #expect(claims.nonce == "nonce-1")
            let issuedAt = Int64(claims.iat.value.timeIntervalSince1970)
            #expect(Int64(claims.exp.value.timeIntervalSince1970) - issuedAt == 3600)
            #expect(claims.auth_time.map { abs($0 - issuedAt) <= 5 } == true)
            #expect(abs(claims.iat.value.timeIntervalSinceNow) < 300)

            // The stack's STS takes it for the role of the oidc profile, and S3 lets alice into oidc/alice/ only.
            let roleArn = try #require(stack.endpoint.roleArn(forProvider: "oidc"))
            #expect(roleArn == "arn:aws:iam::000000000000:role/personal-store-oidc")
            let credentials = try await WebIdentityCredentialProvider(
                configuration: WebIdentityConfiguration(
                    roleArn: roleArn, tokenSource: StringTokenSource(idToken), region: stack.endpoint.configuration.region,
                    stsEndpoint: stack.base
                ),
                environment: [:]
            ).getCredentials()
            #expect(credentials.accessKeyId.hasPrefix("ASIA"))
            let own = try await LocalStackFederationTests.put("hi", at: "/wif-personal/oidc/alice/a.txt", endpoint: stack.endpoint, credentials: credentials)
            #expect(own.status == 200, "\(own.body)")
            let other = try await LocalStackFederationTests.put("hi", at: "/wif-personal/oidc/bob/a.txt", endpoint: stack.endpoint, credentials: credentials)
            #expect(other.status == 403)
        }
    }

    @Test("Without offline_access there is no refresh token; email and profile add their claims")
    func scopes() async throws {
        try await OAuthHarness.run { stack in
            let tokens = try await stack.signIn(user: "carol", scope: "openid email profile", nonce: nil)
            #expect(tokens["refresh_token"] == nil)
            #expect(tokens["scope"] as? String == "openid email profile")
            let claims = try await stack.keys().verify(try #require(tokens["id_token"] as? String), as: OAuthIDTokenClaims.self)
            #expect(claims.email == "carol@example.com")
            #expect(claims.name == "carol")
            #expect(claims.nonce == nil)
        }
    }

    @Test("A wrong code_verifier is invalid_grant and spends the code, so the right one no longer works")
    func wrongVerifier() async throws {
        try await OAuthHarness.run { stack in
            let (code, verifier) = try await stack.code()
            let wrong = try await stack.exchange(code, verifier: OAuthHarness.pkce().verifier)
            #expect(wrong.status == 400)
            #expect(wrong.error == "invalid_grant")
            #expect(try wrong.json()["error_description"] as? String == "code_verifier does not match the code_challenge of the authorization request")
            #expect(!wrong.body.contains(code))
            let retry = try await stack.exchange(code, verifier: verifier)
            #expect(retry.error == "invalid_grant")
        }
    }

    @Test("A missing code_verifier is invalid_grant")
    func missingVerifier() async throws {
        try await OAuthHarness.run { stack in
            let (code, _) = try await stack.code()
            let answer = try await stack.exchange(code, verifier: nil)
            #expect(answer.error == "invalid_grant")
            #expect((try answer.json()["error_description"] as? String)?.contains("code_verifier is missing") == true)
        }
    }

    @Test("A reused code is invalid_grant and revokes the refresh token issued for it")
    func reusedCode() async throws {
        try await OAuthHarness.run { stack in
            let (code, verifier) = try await stack.code()
            let first = try await stack.exchange(code, verifier: verifier)
            #expect(first.status == 200)
            let refreshToken = try #require(try first.json()["refresh_token"] as? String)

            let second = try await stack.exchange(code, verifier: verifier)
            #expect(second.status == 400)
            #expect(second.error == "invalid_grant")
            #expect((try second.json()["error_description"] as? String)?.contains("already used") == true)

            let refresh = try await stack.refresh(refreshToken)
            #expect(refresh.error == "invalid_grant")
        }
    }

    @Test("At the token endpoint, a redirect_uri other than the authorization request's is invalid_grant")
    func redirectMismatchAtTokenEndpoint() async throws {
        try await OAuthHarness.run { stack in
            let (code, verifier) = try await stack.code()
            let answer = try await stack.exchange(code, verifier: verifier, redirectURI: "http://127.0.0.1:53682/other")
            #expect(answer.error == "invalid_grant")
        }
    }

    /// Requests that must be answered with a 400 page and never redirected.
    @Test(
        "An unknown client or an unregistered redirect URI is a 400 page, never a redirect",
        arguments: [
            ("client_id", "nobody", "No client has the id"),
            ("redirect_uri", "https://attacker.example/callback", "not registered"),
            ("redirect_uri", "http://127.0.0.1:53682/callback#fragment", "not registered"),
            ("redirect_uri", "https://127.0.0.1:53682/callback", "not registered"),
            ("redirect_uri", "", "redirect_uri is missing"),
        ]
    )
    func refusedWithoutRedirect(parameter: String, value: String, text: String) async throws {
        try await OAuthHarness.run { stack in
            var pairs = OAuthHarness.authorizationRequest(challenge: OAuthHarness.pkce().challenge)
            pairs.removeAll { $0.0 == parameter }
            if !value.isEmpty { pairs.append((parameter, value)) }
            let answer = try await stack.authorize(pairs)
            #expect(answer.status == 400)
            #expect(answer.header("Location") == nil)
            #expect(answer.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(answer.body.contains(text), "\(answer.body)")
        }
    }

    /// A change to a valid authorization request, the `error` it must get back at the redirect URI, and
    /// a word of its description.
    struct RedirectedError: Sendable, CustomTestStringConvertible {
        var remove: [String]
        var add: [(String, String)]
        var error: String
        var description: String
        var testDescription: String { "\(self.error): \(self.description)" }
    }

    static let redirectedErrors: [RedirectedError] = [
        RedirectedError(remove: ["code_challenge", "code_challenge_method"], add: [], error: "invalid_request", description: "public clients must use PKCE"),
        RedirectedError(remove: ["code_challenge_method"], add: [("code_challenge_method", "plain")], error: "invalid_request", description: "must be S256"),
        RedirectedError(remove: ["code_challenge_method"], add: [], error: "invalid_request", description: "code_challenge_method is missing"),
        RedirectedError(remove: ["code_challenge"], add: [("code_challenge", "short")], error: "invalid_request", description: "43-character"),
        RedirectedError(remove: ["response_type"], add: [("response_type", "token")], error: "unsupported_response_type", description: "must be code"),
        RedirectedError(remove: ["response_type"], add: [], error: "invalid_request", description: "response_type is missing"),
        RedirectedError(remove: ["scope"], add: [("scope", "openid admin")], error: "invalid_scope", description: "'admin' is not supported"),
        RedirectedError(remove: ["scope"], add: [("scope", "email")], error: "invalid_scope", description: "must include openid"),
        RedirectedError(remove: ["login_hint"], add: [("prompt", "none")], error: "login_required", description: "login_hint"),
        RedirectedError(remove: [], add: [("scope", "openid")], error: "invalid_request", description: "scope is given more than once"),
    ]

    @Test("Other problems go back to the client's redirect URI with error, error_description and state", arguments: Self.redirectedErrors)
    func errorGoesBackToTheClient(_ error: RedirectedError) async throws {
        try await OAuthHarness.run { stack in
            var pairs = OAuthHarness.authorizationRequest(challenge: OAuthHarness.pkce().challenge)
            pairs.removeAll { error.remove.contains($0.0) }
            pairs += error.add
            let answer = try await stack.authorize(pairs)
            #expect(answer.status == 302)
            #expect(answer.header("Location")?.hasPrefix(OAuthHarness.redirectURI + "?") == true)
            let parameters = try answer.redirectParameters()
            #expect(parameters["error"] == error.error)
            #expect(parameters["error_description"]?.contains(error.description) == true, "\(parameters)")
            #expect(parameters["state"] == "state-1")
            #expect(parameters["code"] == nil)
        }
    }

    @Test("Without login_hint a form asks for the user and carries the request, escaped; submitting it approves")
    func signInForm() async throws {
        try await OAuthHarness.run { stack in
            let pkce = OAuthHarness.pkce()
            let state = #"x"><script>alert(1)</script>"#
            let pairs = OAuthHarness.authorizationRequest(user: nil, state: state, challenge: pkce.challenge)
            let page = try await stack.authorize(pairs)
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(page.header("Cache-Control") == "no-store")
            // Browsers hold the redirect after the form's submission to form-action: without the client's
            // origin there, they block the sign-in.
            #expect(page.header("Content-Security-Policy")?.contains("form-action 'self' http://127.0.0.1:53682;") == true)
            #expect(page.body.contains(#"name="login_hint""#))
            #expect(page.body.contains(#"<input type="hidden" name="code_challenge" value="\#(pkce.challenge)">"#))
            #expect(!page.body.contains("<script>"))
            #expect(page.body.contains("&lt;script&gt;"))

            // The browser submits the form: the same parameters and the user name.
            let submitted = try await stack.authorize(pairs + [("login_hint", "dave")])
            let parameters = try submitted.redirectParameters()
            #expect(parameters["state"] == state)
            let answer = try await stack.exchange(try #require(parameters["code"]), verifier: pkce.verifier)
            let idToken = try #require(try answer.json()["id_token"] as? String)
            #expect(try await stack.keys().verify(idToken, as: OAuthIDTokenClaims.self).sub.value == "dave")
        }
    }

    @Test("A bad user name shows the form again with the problem")
    func badUserName() async throws {
        try await OAuthHarness.run { stack in
            let pairs = OAuthHarness.authorizationRequest(user: "alice/../bob", challenge: OAuthHarness.pkce().challenge)
            let page = try await stack.authorize(pairs)
            #expect(page.status == 400)
            #expect(page.header("Location") == nil)
            #expect(page.body.contains("must be 1 to 128 letters, digits"))
        }
    }

    @Test("An authorization code expires after authorizationCodeLifetime on the stack's clock")
    func codeExpires() async throws {
        let clock = TestClock.identity()
        try await OAuthHarness.run(clock: clock, configure: { $0.oauth.authorizationCodeLifetime = 30 }) { stack in
            let (code, verifier) = try await stack.code()
            clock.advance(by: 30)
            let answer = try await stack.exchange(code, verifier: verifier)
            #expect(answer.error == "invalid_grant")
            #expect((try answer.json()["error_description"] as? String)?.contains("expired") == true)
        }
    }

    @Test("Token endpoint requests that are wrong in themselves")
    func tokenEndpointErrors() async throws {
        try await OAuthHarness.run { stack in
            let missing = try await stack.token([("client_id", "wif-local")])
            #expect(missing.status == 400)
            #expect(missing.error == "invalid_request")
            #expect(missing.header("Cache-Control") == "no-store")

            let unsupported = try await stack.token([("grant_type", "password"), ("client_id", "wif-local")])
            #expect(unsupported.error == "unsupported_grant_type")

            let unknownClient = try await stack.token([("grant_type", "authorization_code"), ("client_id", "nobody")])
            #expect(unknownClient.status == 401)
            #expect(unknownClient.error == "invalid_client")

            let unknownCode = try await stack.exchange("not-a-code", verifier: OAuthHarness.pkce().verifier)
            #expect(unknownCode.error == "invalid_grant")

            let get = try await stack.send("GET", "/oauth2/token")
            #expect(get.status == 405)
            #expect(get.header("Allow") == "POST")

            let json = try await stack.send(
                "POST", "/oauth2/token", headers: [("Content-Type", "application/json")], body: nil)
            #expect(json.error == "invalid_request")
        }
    }

    @Test("No code, verifier or token appears in the stack's logs")
    func secretsNotLogged() async throws {
        let recorder = TestLogRecorder()
        try await OAuthHarness.run(logger: recorder.logger(level: .debug, label: "wif.local.test")) { stack in
            let (code, verifier) = try await stack.code()
            let tokens = try await stack.exchange(code, verifier: verifier).json()
            let refreshToken = try #require(tokens["refresh_token"] as? String)
            let rotated = try await stack.refresh(refreshToken).json()
            _ = try await stack.refresh(refreshToken)  // reuse: logged, without the token
            let secrets = [code, verifier, refreshToken, try #require(tokens["id_token"] as? String), try #require(rotated["refresh_token"] as? String)]
            let records = recorder.records
            #expect(records.contains { $0.message.contains("family is revoked") })
            for record in records {
                let text = record.message + " " + record.metadata.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                for secret in secrets { #expect(!text.contains(secret), "logged: \(record.message)") }
            }
        }
    }
}
