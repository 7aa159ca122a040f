import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import Synchronization
import Testing
import WIFCredentials

@testable import WIFLocal
import WIFTestSupport

/// The WIFCredentials OAuth 2.0 / OpenID Connect client against the local stack's issuer: browser and
/// device sign-in, renewal, rotation and reuse, revocation, and a web-identity provider that keeps
/// federating through the stack's STS across many ID-token lifetimes. Stack and client share a clock.
@Suite struct OAuthClientFlowTests {
    /// A clock shared by the stack and the client; a sleep moves it forward at once, so polling and
    /// lifetimes play out in no wall time. A sleep of a minute or more is a timeout that a test
    /// expects never to fire (the browser flow's wait for its redirect): it waits in real time and
    /// leaves the clock alone, so the wait cannot age the authorization code it is waiting for.
    final class FlowClock: Sendable {
        private let state = Mutex<(now: Date, sleeps: [Duration])>((TestClock.identityStart, []))
        private let hook = Mutex<(@Sendable (Int) async throws -> Void)?>(nil)

        var now: Date { self.state.withLock { $0.now } }
        var sleeps: [Duration] { self.state.withLock { $0.sleeps } }

        func advance(seconds: TimeInterval) {
            self.state.withLock { $0.now = $0.now.addingTimeInterval(seconds) }
        }

        /// Runs `body` after each sleep with the number of sleeps so far.
        func onSleep(_ body: @escaping @Sendable (Int) async throws -> Void) {
            self.hook.withLock { $0 = body }
        }

        var timeSource: TimeSource {
            TimeSource(
                now: { self.now },
                sleep: { duration in
                    try Task.checkCancellation()
                    if duration >= .seconds(60) {
                        try await Task.sleep(for: duration)
                        return
                    }
                    let count = self.state.withLock { state -> Int in
                        state.sleeps.append(duration)
                        state.now = state.now.addingTimeInterval(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
                        return state.sleeps.count
                    }
                    if let hook = self.hook.withLock({ $0 }) { try await hook(count) }
                }
            )
        }
    }

    /// Runs a stack on `clock` over a fresh data directory.
    static func withStack<T: Sendable>(
        clock: FlowClock,
        configure: (inout LocalConfiguration) -> Void = { _ in },
        _ body: (LocalEndpoint) async throws -> T
    ) async throws -> T {
        let directory = TemporaryFolder.url("wif-oauth-client").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try IdentitySharedKey.seed(directory)
        var configuration = LocalConfiguration.default(dataDirectory: directory)
        configure(&configuration)
        return try await LocalStack.run(configuration, timeSource: clock.timeSource) { endpoint in try await body(endpoint) }
    }

    /// The client of the stack's default public client `wif-local`: discovery at the stack's URL, the
    /// stack's issuer identifier expected in tokens.
    static func client(_ endpoint: LocalEndpoint, clock: FlowClock, scopes: [String] = OAuth2ClientConfiguration.defaultScopes) throws -> OAuth2Client {
        let configuration = OAuth2ClientConfiguration(
            issuer: endpoint.issuer,
            discoveryURL: URL(string: endpoint.url + "/.well-known/openid-configuration"),
            clientId: "wif-local",
            scopes: scopes
        )
        return try OAuth2Client(configuration: configuration, timeSource: clock.timeSource)
    }

    struct Page: Sendable {
        var status: Int
        var body: String
    }

    /// A GET that follows redirects, as a browser does.
    static func get(_ url: String) async throws -> Page {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        return Page(status: Int(response.status.code), body: String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    /// The "browser": signs in as `user` through `login_hint` and follows the redirect to the client's
    /// loopback listener.
    static func browser(as user: String, pages: PageBox? = nil) -> @Sendable (URL) async throws -> Void {
        { url in
            let page = try await Self.get(url.absoluteString + "&login_hint=" + user)
            pages?.value.withLock { $0.append(page) }
        }
    }

    final class PageBox: Sendable {
        let value = Mutex<[Page]>([])
    }

    static func signIn(_ client: OAuth2Client, as user: String = "alice") async throws -> OAuth2Tokens {
        try await client.authorizeWithBrowser(timeout: .seconds(60), openBrowser: Self.browser(as: user))
    }

    static func expectError(_ code: WIFCredentialsError.Code, containing text: String, _ body: () async throws -> Void) async {
        await #expect {
            try await body()
        } throws: { error in
            let error = error as? WIFCredentialsError
            if error?.code != code || error?.reason.contains(text) != true { Issue.record("got \(String(describing: error))") }
            return error?.code == code && error?.reason.contains(text) == true
        }
    }

    // MARK: Sign-in

    @Test func theBrowserFlowWithPKCESignsInThroughTheLoopbackRedirect() async throws {
        let clock = FlowClock()
        try await Self.withStack(clock: clock) { endpoint in
            let client = try Self.client(endpoint, clock: clock, scopes: ["openid", "offline_access", "email"])
            let pages = PageBox()
            let tokens = try await client.authorizeWithBrowser(timeout: .seconds(60), openBrowser: Self.browser(as: "alice", pages: pages))
            #expect(tokens.subject == "alice")
            #expect(tokens.issuer == endpoint.issuer)
            #expect(tokens.refreshToken != nil)
            #expect(tokens.idTokenExpiresAt == Date(timeIntervalSince1970: clock.now.timeIntervalSince1970.rounded(.down) + 3600))
            #expect(Set(tokens.scopes) == ["openid", "offline_access", "email"])
            // The browser followed the stack's redirect to the listener and got its page.
            let page = try #require(pages.value.withLock { $0.first })
            #expect(page.status == 200)
            #expect(page.body.contains("Signed in"))
            // The ID token is what the stack's oidc profile federates.
            let claims = try #require(WebIdentityToken(inspecting: tokens.idToken).unverifiedClaims)
            #expect(claims.audience == ["wif-local"])
        }
    }

    @Test func withoutOfflineAccessThereIsNoRefreshTokenAndRenewalAsksToSignInAgain() async throws {
        let clock = FlowClock()
        try await Self.withStack(clock: clock) { endpoint in
            let client = try Self.client(endpoint, clock: clock, scopes: ["openid"])
            let tokens = try await Self.signIn(client)
            #expect(tokens.refreshToken == nil)
            await Self.expectError(.signInRequired, containing: "has no refresh token") { _ = try await client.refresh(tokens) }
        }
    }

    @Test func theDeviceFlowPollsUntilTheUserApproves() async throws {
        let clock = FlowClock()
        try await Self.withStack(clock: clock, configure: { $0.oauth.deviceInterval = 3 }) { endpoint in
            let client = try Self.client(endpoint, clock: clock)
            let authorization = try await client.startDeviceAuthorization()
            #expect(authorization.verificationURI.absoluteString == endpoint.url + "/oauth2/device")
            #expect(authorization.interval == .seconds(3))
            let approvals = PageBox()
            // The user approves in a browser only after the client has polled twice.
            clock.onSleep { count in
                guard count == 3 else { return }
                approvals.value.withLock { _ in }
                let page = try await Self.get(endpoint.url + "/oauth2/device?user_code=\(authorization.userCode)&login_hint=alice")
                approvals.value.withLock { $0.append(page) }
            }
            let tokens = try await client.pollDeviceAuthorization(authorization)
            #expect(tokens.subject == "alice")
            #expect(tokens.refreshToken != nil)
            #expect(approvals.value.withLock { $0.first?.status } == 200)
            // Polled every 3 seconds of the shared clock, so the stack never asked to slow down.
            #expect(clock.sleeps == [.seconds(3), .seconds(3), .seconds(3)])
        }
    }

    @Test func aDeniedDeviceSignInSaysSo() async throws {
        let clock = FlowClock()
        try await Self.withStack(clock: clock) { endpoint in
            let client = try Self.client(endpoint, clock: clock)
            await #expect {
                _ = try await client.authorizeWithDevice { authorization in
                    let page = try await Self.get(endpoint.url + "/oauth2/device?user_code=\(authorization.userCode)&login_hint=alice&action=deny")
                    #expect(page.status == 200)
                }
            } throws: { error in
                let error = error as? WIFCredentialsError
                return error?.code == .authorizationFailed && error?.oauthError?.error == "access_denied"
            }
        }
    }

    // MARK: Renewal

    @Test func theSourceRenewsTheIDTokenBeforeItExpires() async throws {
        let clock = FlowClock()
        try await Self.withStack(clock: clock, configure: { $0.oauth.idTokenLifetime = 120 }) { endpoint in
            let client = try Self.client(endpoint, clock: clock)
            let tokens = try await Self.signIn(client)
            let saved = Mutex<[OAuth2Tokens]>([])
            let source = OIDCTokenSource(client: client, tokens: tokens) { renewed in saved.withLock { $0.append(renewed) } }
            // 120 s tokens are renewed at half their life.
            clock.advance(seconds: 59)
            #expect(try await source.token(forceRefresh: false, logger: Logger(label: "test")).value == tokens.idToken)
            clock.advance(seconds: 2)
            let renewed = try await source.token(forceRefresh: false, logger: Logger(label: "test"))
            #expect(renewed.value != tokens.idToken)
            #expect(try #require(renewed.expiration) > clock.now.addingTimeInterval(100))
            let kept = try #require(saved.withLock { $0.last })
            #expect(kept.idToken == renewed.value)
            #expect(kept.refreshToken != tokens.refreshToken)
        }
    }

    @Test func rotationMakesTheOldRefreshTokenUselessAndReusingItEndsTheFamily() async throws {
        let clock = FlowClock()
        try await Self.withStack(clock: clock) { endpoint in
            let client = try Self.client(endpoint, clock: clock)
            let first = try await Self.signIn(client)
            clock.advance(seconds: 10)
            let second = try await client.refresh(first)
            #expect(second.refreshToken != first.refreshToken)
            #expect(second.subject == "alice")
            await Self.expectError(.signInRequired, containing: "sign in again") { _ = try await client.refresh(first) }
            // Reuse revoked the whole family, the newest token included.
            await Self.expectError(.signInRequired, containing: "rejected the refresh token of 'alice'") { _ = try await client.refresh(second) }
        }
    }

    @Test func aRevokedRefreshTokenStopsTheSourceWithOneClearError() async throws {
        let clock = FlowClock()
        try await Self.withStack(clock: clock) { endpoint in
            let client = try Self.client(endpoint, clock: clock)
            let tokens = try await Self.signIn(client)
            try await client.revoke(tokens)
            let source = OIDCTokenSource(client: client, tokens: tokens)
            clock.advance(seconds: 3600)
            for _ in 0..<2 {
                await Self.expectError(.signInRequired, containing: "expired, was revoked, or was already used; sign in again") {
                    _ = try await source.token(forceRefresh: false, logger: Logger(label: "test"))
                }
            }
            // A new sign-in puts the source back to work.
            await source.replaceTokens(try await Self.signIn(client))
            _ = try await source.token(forceRefresh: false, logger: Logger(label: "test"))
        }
    }

    // MARK: Federation

    @Test func aProviderKeepsFederatingAcrossManyIDTokenLifetimes() async throws {
        let clock = FlowClock()
        try await Self.withStack(clock: clock, configure: { $0.oauth.idTokenLifetime = 300 }) { endpoint in
            let client = try Self.client(endpoint, clock: clock)
            let renewals = Mutex(0)
            let source = OIDCTokenSource(client: client, tokens: try await Self.signIn(client)) { _ in renewals.withLock { $0 += 1 } }
            let roleArn = try #require(endpoint.roleArn(forProvider: "oidc"))
            let provider = WebIdentityCredentialProvider(
                configuration: WebIdentityConfiguration(
                    roleArn: roleArn, tokenSource: source, durationSeconds: 900, region: endpoint.configuration.region, stsEndpoint: endpoint.url),
                environment: [:],
                timeSource: clock.timeSource
            )
            var accessKeys: Set<String> = []
            // Ten ID-token lifetimes of 300 s, asking every 150 s.
            for _ in 0..<20 {
                let credentials = try await provider.getCredentials()
                #expect(!credentials.isExpired(at: clock.now))
                accessKeys.insert(credentials.accessKeyId)
                clock.advance(seconds: 150)
            }
            // STS was called again and again, each time with a live ID token renewed on the way.
            #expect(accessKeys.count >= 3)
            #expect(renewals.withLock { $0 } >= 3)
        }
    }

    @Test func afterSTSRefusesTheTokenItIsRenewedOnceAndTheCallRetried() async throws {
        let clock = FlowClock()
        try await Self.withStack(clock: clock, configure: { $0.oauth.idTokenLifetime = 300 }) { endpoint in
            let client = try Self.client(endpoint, clock: clock)
            var tokens = try await Self.signIn(client)
            // A stored expiry that is wrong (a store from a skewed machine): the source believes the
            // token fresh, and STS finds it expired.
            tokens.idTokenExpiresAt = clock.now.addingTimeInterval(86_400)
            let stale = tokens.idToken
            let source = OIDCTokenSource(client: client, tokens: tokens)
            clock.advance(seconds: 600)
            let roleArn = try #require(endpoint.roleArn(forProvider: "oidc"))
            let provider = WebIdentityCredentialProvider(
                configuration: WebIdentityConfiguration(roleArn: roleArn, tokenSource: source, region: endpoint.configuration.region, stsEndpoint: endpoint.url),
                environment: [:],
                timeSource: clock.timeSource
            )
            let credentials = try await provider.getCredentials()
            #expect(credentials.accessKeyId.hasPrefix("ASIA"))
            let current = await source.currentTokens
            #expect(current.idToken != stale)
            #expect(current.idTokenExpiresAt < clock.now.addingTimeInterval(301))
        }
    }
}
