import Foundation
import JWTKit
import Testing

@testable import WIFLocal
import WIFTestSupport

/// The device authorization grant (RFC 8628) over HTTP, on a hand-moved clock.
@Suite("OAuth device authorization")
struct OAuthDeviceFlowTests {
    /// Starts a device authorization and returns its answer.
    private func start(_ stack: OAuthHarness) async throws -> [String: Any] {
        let answer = try await stack.deviceAuthorization()
        #expect(answer.status == 200, "\(answer.body)")
        #expect(answer.header("Cache-Control") == "no-store")
        return try answer.json()
    }

    @Test("Pending until the user approves, then tokens once")
    func approve() async throws {
        let clock = TestClock.identity()
        try await OAuthHarness.run(clock: clock) { stack in
            let device = try await self.start(stack)
            let deviceCode = try #require(device["device_code"] as? String)
            let userCode = try #require(device["user_code"] as? String)
            #expect(userCode.wholeMatch(of: /[B-DF-HJ-NP-TV-XZ]{4}-[B-DF-HJ-NP-TV-XZ]{4}/) != nil, "\(userCode)")
            #expect(device["verification_uri"] as? String == stack.base + "/oauth2/device")
            #expect(device["verification_uri_complete"] as? String == stack.base + "/oauth2/device?user_code=" + userCode)
            #expect(device["expires_in"] as? Int == 600)
            #expect(device["interval"] as? Int == 5)

            let pending = try await stack.poll(deviceCode)
            #expect(pending.status == 400)
            #expect(pending.error == "authorization_pending")

            // The user opens the complete URI: a form with the code filled in, then approves as bob.
            let page = try await stack.send("GET", try #require(device["verification_uri_complete"] as? String))
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(page.body.contains(#"value="\#(userCode)""#))
            #expect(page.body.contains("wif-local"))
            let approved = try await stack.send("GET", "/oauth2/device?" + OAuthHarness.encode([("user_code", userCode), ("login_hint", "bob")]))
            #expect(approved.status == 200)
            #expect(approved.body.contains("Signed in to wif-local as bob"))

            clock.advance(by: 5)
            let tokens = try await stack.poll(deviceCode)
            #expect(tokens.status == 200, "\(tokens.body)")
            let json = try tokens.json()
            #expect(json["scope"] as? String == "openid offline_access")
            #expect((json["refresh_token"] as? String)?.isEmpty == false)
            let claims = try await stack.keys().verify(try #require(json["id_token"] as? String), as: OAuthIDTokenClaims.self)
            #expect(claims.sub.value == "bob")
            #expect(claims.aud.value == ["wif-local"])
            #expect(claims.auth_time == clock.seconds - 5)

            clock.advance(by: 5)
            #expect(try await stack.poll(deviceCode).error == "invalid_grant")
            // The user code is spent too.
            let reused = try await stack.send("GET", "/oauth2/device?" + OAuthHarness.encode([("user_code", userCode), ("login_hint", "eve")]))
            #expect(reused.status == 400)
        }
    }

    @Test("Polling sooner than the interval is slow_down, and the interval grows by 5 seconds each time")
    func slowDown() async throws {
        let clock = TestClock.identity()
        try await OAuthHarness.run(clock: clock) { stack in
            let deviceCode = try #require(try await self.start(stack)["device_code"] as? String)
            #expect(try await stack.poll(deviceCode).error == "authorization_pending")
            clock.advance(by: 4)
            let fast = try await stack.poll(deviceCode)
            #expect(fast.error == "slow_down")
            #expect((try fast.json()["error_description"] as? String)?.contains("wait 10 seconds") == true)
            clock.advance(by: 5)
            #expect(try await stack.poll(deviceCode).error == "slow_down")  // 5 < 10; now 15
            clock.advance(by: 15)
            #expect(try await stack.poll(deviceCode).error == "authorization_pending")
        }
    }

    @Test("A denied request is access_denied")
    func deny() async throws {
        let clock = TestClock.identity()
        try await OAuthHarness.run(clock: clock) { stack in
            let device = try await self.start(stack)
            let deviceCode = try #require(device["device_code"] as? String)
            let userCode = try #require(device["user_code"] as? String)
            // The form's Deny button: a POST with the code typed in lower case without the dash.
            let typed = userCode.lowercased().replacingOccurrences(of: "-", with: "")
            let denied = try await stack.send("POST", "/oauth2/device", body: OAuthHarness.encode([("user_code", typed), ("action", "deny")]))
            #expect(denied.status == 200)
            #expect(denied.body.contains("denied"))
            let answer = try await stack.poll(deviceCode)
            #expect(answer.error == "access_denied")
        }
    }

    @Test("After deviceCodeLifetime the device code is expired_token and the user code is refused")
    func expiry() async throws {
        let clock = TestClock.identity()
        try await OAuthHarness.run(clock: clock, configure: { $0.oauth.deviceCodeLifetime = 120 }) { stack in
            let device = try await self.start(stack)
            #expect(device["expires_in"] as? Int == 120)
            let deviceCode = try #require(device["device_code"] as? String)
            let userCode = try #require(device["user_code"] as? String)
            clock.advance(by: 120)
            let approved = try await stack.send("GET", "/oauth2/device?" + OAuthHarness.encode([("user_code", userCode), ("login_hint", "bob")]))
            #expect(approved.status == 400)
            #expect(approved.body.contains("unknown, has expired or was already used"))
            let answer = try await stack.poll(deviceCode)
            #expect(answer.error == "expired_token")
        }
    }

    @Test("Verification page: a form without a code, an error for an unknown code, the user name required")
    func verificationPage() async throws {
        try await OAuthHarness.run { stack in
            let empty = try await stack.send("GET", "/oauth2/device")
            #expect(empty.status == 200)
            #expect(empty.body.contains(#"name="user_code""#))
            let unknown = try await stack.send("GET", "/oauth2/device?user_code=BCDF-GHJK&login_hint=bob")
            #expect(unknown.status == 400)
            let userCode = try #require(try await self.start(stack)["user_code"] as? String)
            let noUser = try await stack.send("POST", "/oauth2/device", body: OAuthHarness.encode([("user_code", userCode), ("action", "approve")]))
            #expect(noUser.status == 400)
            #expect(noUser.body.contains("Enter the development user"))
            let badAction = try await stack.send("GET", "/oauth2/device?" + OAuthHarness.encode([("user_code", userCode), ("action", "maybe")]))
            #expect(badAction.status == 400)
        }
    }

    @Test("Device authorization refuses unknown clients and scopes; another client cannot poll")
    func deviceAuthorizationErrors() async throws {
        try await OAuthHarness.run(configure: { $0.oauthClients.append(.init(clientId: "tv-app")) }) { stack in
            let unknown = try await stack.deviceAuthorization(clientId: "nobody")
            #expect(unknown.status == 401)
            #expect(unknown.error == "invalid_client")
            let scope = try await stack.deviceAuthorization(scope: "openid admin")
            #expect(scope.error == "invalid_scope")
            let defaulted = try await stack.deviceAuthorization(scope: nil)
            #expect(defaulted.status == 200)
            let deviceCode = try #require(try await self.start(stack)["device_code"] as? String)
            #expect(try await stack.poll(deviceCode, clientId: "tv-app").error == "invalid_grant")
            #expect(try await stack.poll("unknown").error == "invalid_grant")
        }
    }
}
