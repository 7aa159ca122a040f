import Foundation
import JWTKit
import Testing

@testable import WIFLocal
import WIFTestSupport

/// Refresh tokens: rotation, reuse detection, revocation, expiry and persistence across restarts.
@Suite("OAuth refresh tokens")
struct OAuthRefreshTests {
    @Test("Each refresh gives a new refresh token and a new ID token; the old refresh token stops working")
    func rotation() async throws {
        let clock = TestClock.identity()
        try await OAuthHarness.run(clock: clock, configure: { $0.oauth.idTokenLifetime = 300 }) { stack in
            let first = try await stack.signIn()
            #expect(first["expires_in"] as? Int == 300)
            var refreshToken = try #require(first["refresh_token"] as? String)
            var seen: Set<String> = [refreshToken]
            let keys = try await stack.keys()
            for round in 1...3 {
                clock.advance(by: 250)
                let answer = try await stack.refresh(refreshToken)
                #expect(answer.status == 200, "\(answer.body)")
                #expect(answer.header("Cache-Control") == "no-store")
                let tokens = try answer.json()
                let next = try #require(tokens["refresh_token"] as? String)
                #expect(!seen.contains(next))
                seen.insert(next)
                refreshToken = next
                let claims = try await keys.verify(try #require(tokens["id_token"] as? String), as: OAuthIDTokenClaims.self)
                #expect(Int64(claims.iat.value.timeIntervalSince1970) == clock.seconds)
                #expect(Int64(claims.exp.value.timeIntervalSince1970) == clock.seconds + 300)
                #expect(claims.auth_time == TestClock.identityStart.timeIntervalSince1970.asSeconds, "round \(round)")
                #expect(claims.sub.value == "alice")
                #expect(claims.nonce == nil)
            }
        }
    }

    @Test("Presenting a replaced refresh token revokes the whole family; other sign-ins keep working")
    func reuseRevokesTheFamily() async throws {
        try await OAuthHarness.run { stack in
            let original = try #require(try await stack.signIn()["refresh_token"] as? String)
            let other = try #require(try await stack.signIn(user: "bob")["refresh_token"] as? String)
            let rotated = try #require(try await stack.refresh(original).json()["refresh_token"] as? String)

            let reuse = try await stack.refresh(original)
            #expect(reuse.status == 400)
            #expect(reuse.error == "invalid_grant")
            #expect((try reuse.json()["error_description"] as? String)?.contains("already used") == true)

            // The token the legitimate holder has now is revoked too.
            let afterReuse = try await stack.refresh(rotated)
            #expect(afterReuse.error == "invalid_grant")
            #expect((try afterReuse.json()["error_description"] as? String)?.contains("revoked") == true)

            let untouched = try await stack.refresh(other)
            #expect(untouched.status == 200)
        }
    }

    @Test("A refresh token belongs to its client")
    func otherClient() async throws {
        try await OAuthHarness.run(configure: { $0.oauthClients.append(.init(clientId: "second-app", anyLoopbackRedirect: true)) }) { stack in
            let token = try #require(try await stack.signIn()["refresh_token"] as? String)
            let answer = try await stack.refresh(token, clientId: "second-app")
            #expect(answer.error == "invalid_grant")
            // Refused without harm: the owner can still use it.
            #expect(try await stack.refresh(token).status == 200)
        }
    }

    @Test("A refresh may narrow the scopes but not widen them")
    func scopeOnRefresh() async throws {
        try await OAuthHarness.run { stack in
            let token = try #require(try await stack.signIn(scope: "openid email offline_access")["refresh_token"] as? String)
            let wider = try await stack.refresh(token, scope: "openid profile offline_access")
            #expect(wider.error == "invalid_scope")
            let narrower = try await stack.refresh(token, scope: "openid offline_access")
            #expect(narrower.status == 200)
            let tokens = try narrower.json()
            #expect(tokens["scope"] as? String == "openid offline_access")
            let claims = try await stack.keys().verify(try #require(tokens["id_token"] as? String), as: OAuthIDTokenClaims.self)
            #expect(claims.email == nil)
        }
    }

    @Test("A refresh token expires refreshTokenLifetime after it was issued")
    func expiry() async throws {
        let clock = TestClock.identity()
        try await OAuthHarness.run(clock: clock, configure: { $0.oauth.refreshTokenLifetime = 100 }) { stack in
            let first = try #require(try await stack.signIn()["refresh_token"] as? String)
            clock.advance(by: 99)
            let second = try #require(try await stack.refresh(first).json()["refresh_token"] as? String)
            clock.advance(by: 99)
            // 198 seconds after sign-in, but 99 after its own issue.
            let third = try #require(try await stack.refresh(second).json()["refresh_token"] as? String)
            clock.advance(by: 100)
            let expired = try await stack.refresh(third)
            #expect(expired.error == "invalid_grant")
        }
    }

    @Test("The revocation endpoint answers 200 and revokes the refresh token's family")
    func revoke() async throws {
        try await OAuthHarness.run(configure: { $0.oauthClients.append(.init(clientId: "second-app", anyLoopbackRedirect: true)) }) { stack in
            let token = try #require(try await stack.signIn()["refresh_token"] as? String)

            // Another client's revocation is answered the same way and changes nothing.
            let foreign = try await stack.send(
                "POST", "/oauth2/revoke", body: OAuthHarness.encode([("token", token), ("client_id", "second-app")]))
            #expect(foreign.status == 200)
            let rotated = try #require(try await stack.refresh(token).json()["refresh_token"] as? String)

            let revoked = try await stack.send(
                "POST", "/oauth2/revoke",
                body: OAuthHarness.encode([("token", rotated), ("token_type_hint", "refresh_token"), ("client_id", "wif-local")]))
            #expect(revoked.status == 200)
            #expect(revoked.body.isEmpty)
            #expect(try await stack.refresh(rotated).error == "invalid_grant")

            let unknown = try await stack.send("POST", "/oauth2/revoke", body: OAuthHarness.encode([("token", "nothing"), ("client_id", "wif-local")]))
            #expect(unknown.status == 200)
            let again = try await stack.send("POST", "/oauth2/revoke", body: OAuthHarness.encode([("token", rotated), ("client_id", "wif-local")]))
            #expect(again.status == 200)

            let noToken = try await stack.send("POST", "/oauth2/revoke", body: OAuthHarness.encode([("client_id", "wif-local")]))
            #expect(noToken.status == 400)
            #expect(noToken.error == "invalid_request")
            let noClient = try await stack.send("POST", "/oauth2/revoke", body: OAuthHarness.encode([("token", rotated), ("client_id", "nobody")]))
            #expect(noClient.status == 401)
            #expect(noClient.error == "invalid_client")
        }
    }

    @Test("Refresh-token families survive a restart, with their replaced tokens still detected")
    func restart() async throws {
        let directory = TemporaryFolder.url("wif-oauth").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try IdentitySharedKey.seed(directory)
        let (alice, bobOriginal, bobRotated) = try await OAuthHarness.run(in: directory) { stack in
            let alice = try #require(try await stack.signIn()["refresh_token"] as? String)
            let bob = try #require(try await stack.signIn(user: "bob")["refresh_token"] as? String)
            let rotated = try #require(try await stack.refresh(bob).json()["refresh_token"] as? String)
            return (alice, bob, rotated)
        }

        // The file holds digests, never the tokens.
        let file = directory + "/oauth/refresh-tokens.json"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        for token in [alice, bobOriginal, bobRotated] { #expect(!text.contains(token)) }
        #expect(text.contains(OAuthSecrets.digest(alice)))
        let permissions = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(permissions == 0o600)

        try await OAuthHarness.run(in: directory) { stack in
            let answer = try await stack.refresh(alice)
            #expect(answer.status == 200, "\(answer.body)")
            let claims = try await stack.keys().verify(try #require(try answer.json()["id_token"] as? String), as: OAuthIDTokenClaims.self)
            #expect(claims.sub.value == "alice")

            #expect(try await stack.refresh(bobOriginal).error == "invalid_grant")
            #expect(try await stack.refresh(bobRotated).error == "invalid_grant")
        }
    }

    @Test("A families file that cannot be read stops the stack with a message naming it")
    func corruptFile() async throws {
        let directory = TemporaryFolder.url("wif-oauth").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try IdentitySharedKey.seed(directory)
        try FileManager.default.createDirectory(atPath: directory + "/oauth", withIntermediateDirectories: true)
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: directory + "/oauth/refresh-tokens.json"))
        do {
            try await OAuthHarness.run(in: directory) { _ in }
            Issue.record("the stack started")
        } catch let error as LocalStackError {
            #expect(error.message.contains("refresh-tokens.json is not valid"))
            #expect(error.message.contains("remove it to sign every user out"))
        }
    }
}

extension TimeInterval {
    fileprivate var asSeconds: Int64 { Int64(self) }
}
