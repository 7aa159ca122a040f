import Foundation
import Logging
import Synchronization
import Testing

@testable import WIFCredentials
import WIFTestSupport

@Suite struct OIDCTokenSourceTests {
    let clock = ManualTimeSource(now: Date(timeIntervalSince1970: 1_795_262_400))  // 2026-11-21T12:00:00Z, as the STS fixtures
    let issuer: OAuthTestIssuer

    init() {
        let clock = self.clock
        self.issuer = OAuthTestIssuer(now: { clock.now })
    }

    func signedIn(
        configuration: OIDCTokenSource.Configuration = .init(),
        onTokensRefreshed: OIDCTokenSource.TokensRefreshed? = nil
    ) async throws -> (OIDCTokenSource, OAuth2Tokens) {
        let client = try self.issuer.client(timeSource: self.clock.timeSource)
        let tokens = try await self.issuer.signIn(client: client)
        return (OIDCTokenSource(client: client, tokens: tokens, configuration: configuration, onTokensRefreshed: onTokensRefreshed), tokens)
    }

    @Test func theTokenIsRenewedOnlyOnceItEntersItsRefreshWindow() async throws {
        let (source, tokens) = try await self.signedIn(configuration: .init(refreshWindow: .seconds(300)))
        // One hour of life: renewed from 5 minutes before exp.
        self.clock.advance(seconds: 3299)
        #expect(try await source.token(forceRefresh: false, logger: Logger.noop).value == tokens.idToken)
        #expect(self.issuer.refreshGrants == 0)

        self.clock.advance(seconds: 1)
        let renewed = try await source.token(forceRefresh: false, logger: Logger.noop)
        #expect(renewed.value != tokens.idToken)
        #expect(renewed.expiration == self.clock.now.addingTimeInterval(3600))
        #expect(self.issuer.refreshGrants == 1)

        // The renewed token is outside its window again.
        #expect(try await source.token(forceRefresh: false, logger: Logger.noop) == renewed)
        #expect(self.issuer.refreshGrants == 1)
    }

    @Test func aShortLivedTokenIsRenewedAtHalfItsLifetime() async throws {
        self.issuer.configure { $0.idTokenLifetime = 120 }
        let (source, tokens) = try await self.signedIn(configuration: .init(refreshWindow: .seconds(300)))
        self.clock.advance(seconds: 59)
        #expect(try await source.token(forceRefresh: false, logger: Logger.noop).value == tokens.idToken)
        self.clock.advance(seconds: 1)
        #expect(try await source.token(forceRefresh: false, logger: Logger.noop).value != tokens.idToken)
        #expect(self.issuer.refreshGrants == 1)
    }

    /// An access token that expires before the ID token is renewed in its own window: an API that
    /// takes access tokens is never sent an expired one.
    @Test func aShorterLivedAccessTokenIsRenewedBeforeItExpires() async throws {
        self.issuer.configure { $0.accessTokenLifetime = 600 }
        let (source, tokens) = try await self.signedIn(configuration: .init(refreshWindow: .seconds(60)))
        self.clock.advance(seconds: 539)
        #expect(try await source.tokens().accessToken == tokens.accessToken)
        #expect(self.issuer.refreshGrants == 0)
        self.clock.advance(seconds: 1)
        let renewed = try await source.tokens()
        #expect(renewed.accessToken != tokens.accessToken)
        #expect(try #require(renewed.accessTokenExpiresAt) > self.clock.now)
        #expect(self.issuer.refreshGrants == 1)
    }

    @Test func anAccessTokenRenewedWithoutANewIDTokenIsARenewalAndKeepsItsOwnLifetime() async throws {
        // A two-minute access token, an issuer that leaves the ID token out of a refresh (OpenID Connect
        // Core §12.2), and the default five-minute window: the access token is renewed at half its life.
        self.issuer.configure {
            $0.accessTokenLifetime = 120
            $0.omitIDTokenOnRefresh = true
        }
        let (source, tokens) = try await self.signedIn()
        self.clock.advance(seconds: 60)
        let renewed = try await source.tokens()
        #expect(renewed.accessToken != tokens.accessToken)
        #expect(renewed.idToken == tokens.idToken)
        #expect(self.issuer.refreshGrants == 1)
        // Its window is half of its own two minutes, not measured from the ID token's issue.
        self.clock.advance(seconds: 50)
        #expect(try await source.tokens().accessToken == renewed.accessToken)
        #expect(self.issuer.refreshGrants == 1)
        self.clock.advance(seconds: 10)
        #expect(try await source.tokens().accessToken != renewed.accessToken)
        #expect(self.issuer.refreshGrants == 2)
    }

    @Test func anExpiredAccessTokenIsNotHandedOutDuringABackoff() async throws {
        self.issuer.configure { $0.accessTokenLifetime = 600 }
        let (source, tokens) = try await self.signedIn(configuration: .init(refreshWindow: .seconds(60), retryBackoff: .seconds(30)))
        // In the access token's window the issuer is down: the current tokens are kept for the backoff.
        self.clock.advance(seconds: 590)
        self.issuer.script(OAuthTestIssuer.error(503, "temporarily_unavailable", "down"))
        #expect(try await source.tokens().accessToken == tokens.accessToken)
        // Past the access token's expiry but within the backoff: an API caller gets a renewed one.
        self.clock.advance(seconds: 11)
        #expect(try await source.tokens().accessToken == tokens.accessToken)
        let access = try await source.accessToken()
        #expect(access != tokens.accessToken)
        // And when the issuer is still down, an error rather than the expired token.
        self.clock.advance(seconds: 600)
        self.issuer.script(OAuthTestIssuer.error(503, "temporarily_unavailable", "down"), OAuthTestIssuer.error(503, "temporarily_unavailable", "down"))
        await #expect(throws: (any Error).self) { _ = try await source.accessToken() }
    }

    @Test func manyConcurrentCallersShareOneRefresh() async throws {
        let (source, tokens) = try await self.signedIn()
        self.clock.advance(seconds: 3500)
        let gate = self.issuer.holdTokenRequests()
        let callers = 64
        let results = try await withThrowingTaskGroup(of: WebIdentityToken.self) { group in
            for _ in 0..<callers {
                group.addTask { try await source.token(forceRefresh: false, logger: Logger.noop) }
            }
            try await eventually("every caller waits for the one refresh") { await source.refresher.waiterCount == callers }
            #expect(gate.waiterCount == 1)
            gate.open()
            var results: [WebIdentityToken] = []
            for try await token in group { results.append(token) }
            return results
        }
        #expect(results.count == callers)
        #expect(Set(results).count == 1)
        #expect(results.first?.value != tokens.idToken)
        #expect(self.issuer.refreshGrants == 1)
    }

    @Test func aCancelledCallerLeavesAtOnceAndTheRefreshCarriesOn() async throws {
        let (source, tokens) = try await self.signedIn()
        self.clock.advance(seconds: 3500)
        let gate = self.issuer.holdTokenRequests()
        let impatient = Task { try await source.token(forceRefresh: false, logger: Logger.noop) }
        let patient = Task { try await source.token(forceRefresh: false, logger: Logger.noop) }
        try await eventually("both callers wait") { await source.refresher.waiterCount == 2 }
        impatient.cancel()
        await #expect(throws: CancellationError.self) { _ = try await impatient.value }
        gate.open()
        let renewed = try await patient.value
        #expect(renewed.value != tokens.idToken)
        #expect(self.issuer.refreshGrants == 1)
    }

    @Test func aFailedRenewalKeepsTheValidTokenAndWaitsBeforeTryingAgain() async throws {
        let (source, tokens) = try await self.signedIn(configuration: .init(refreshWindow: .seconds(300), retryBackoff: .seconds(30)))
        self.clock.advance(seconds: 3400)
        self.issuer.script(OAuthTestIssuer.error(503, "temporarily_unavailable", "down"))
        #expect(try await source.token(forceRefresh: false, logger: Logger.noop).value == tokens.idToken)
        #expect(self.issuer.forms(to: "/token").count == 2)

        // Within the backoff the issuer is left alone.
        self.clock.advance(seconds: 29)
        #expect(try await source.token(forceRefresh: false, logger: Logger.noop).value == tokens.idToken)
        #expect(self.issuer.forms(to: "/token").count == 2)

        self.clock.advance(seconds: 1)
        #expect(try await source.token(forceRefresh: false, logger: Logger.noop).value != tokens.idToken)
    }

    @Test func aFailedRenewalOfAnExpiredTokenIsReported() async throws {
        let (source, _) = try await self.signedIn()
        self.clock.advance(seconds: 3600)
        self.issuer.script(OAuthTestIssuer.error(503, "temporarily_unavailable", "down"))
        await #expect(throws: WIFCredentialsError.oauth("")) { _ = try await source.token(forceRefresh: false, logger: Logger.noop) }
        // Not sticky: the next call tries again (sign-in, the failed renewal, this one).
        _ = try await source.token(forceRefresh: false, logger: Logger.noop)
        #expect(self.issuer.forms(to: "/token").map { $0["grant_type"] } == ["authorization_code", "refresh_token", "refresh_token"])
    }

    @Test func aRejectedRefreshTokenGivesOneClearErrorUntilANewSignIn() async throws {
        let client = try self.issuer.client(timeSource: self.clock.timeSource)
        let (source, tokens) = try await self.signedIn()
        // Another holder rotates the same refresh token first: ours is now a reused one.
        _ = try await client.refresh(tokens)
        self.clock.advance(seconds: 3500)
        for _ in 0..<3 {
            await #expect {
                _ = try await source.token(forceRefresh: false, logger: Logger.noop)
            } throws: { error in
                let error = error as? WIFCredentialsError
                return error?.code == .signInRequired && error?.reason.contains("sign in again") == true
            }
        }
        #expect(self.issuer.refreshGrants == 2)

        let fresh = try await self.issuer.signIn(client: client)
        await source.replaceTokens(fresh)
        #expect(try await source.token(forceRefresh: false, logger: Logger.noop).value == fresh.idToken)
    }

    @Test func renewedTokensAreSavedBeforeUseAndAFailedSaveIsRetried() async throws {
        struct StoreDown: Error {}
        let saved = Mutex<[OAuth2Tokens]>([])
        let failNext = Atomic<Bool>(true)
        let (source, tokens) = try await self.signedIn { renewed in
            if failNext.exchange(false, ordering: .relaxed) { throw StoreDown() }
            saved.withLock { $0.append(renewed) }
        }
        self.clock.advance(seconds: 3500)
        await #expect(throws: StoreDown.self) { _ = try await source.token(forceRefresh: false, logger: Logger.noop) }
        // The renewed tokens are kept in memory (the old refresh token is spent) and saved next time.
        let current = await source.currentTokens
        #expect(current.refreshToken != tokens.refreshToken)
        let token = try await source.token(forceRefresh: false, logger: Logger.noop)
        #expect(token.value == current.idToken)
        #expect(saved.withLock { $0 } == [current])
        #expect(self.issuer.refreshGrants == 1)
    }

    @Test func aReplacementIsRenewedOnlyForTheCurrentToken() async throws {
        let (source, tokens) = try await self.signedIn()
        let renewed = try await source.token(replacing: tokens.webIdentityToken, logger: Logger.noop)
        #expect(renewed.value != tokens.idToken)
        #expect(self.issuer.refreshGrants == 1)
        // Another caller reporting the same old token gets the current one, without a second refresh.
        #expect(try await source.token(replacing: tokens.webIdentityToken, logger: Logger.noop) == renewed)
        #expect(self.issuer.refreshGrants == 1)
        // forceRefresh always renews.
        #expect(try await source.token(forceRefresh: true, logger: Logger.noop) != renewed)
        #expect(self.issuer.refreshGrants == 2)
    }

    @Test func nothingSecretIsLogged() async throws {
        let recorder = TestLogRecorder()
        let (source, tokens) = try await self.signedIn()
        self.clock.advance(seconds: 3500)
        let renewed = try await source.tokens(logger: recorder.logger)
        #expect(!recorder.records.isEmpty)
        for secret in [tokens.idToken, tokens.accessToken, tokens.refreshToken, renewed.idToken, renewed.accessToken, renewed.refreshToken] {
            #expect(!recorder.text.contains(secret ?? "-"))
        }
        #expect(!source.description.contains(tokens.idToken))
        #expect(!renewed.description.contains(renewed.idToken) && !renewed.description.contains(renewed.refreshToken ?? "-"))
    }

    /// STS refuses the token once: the provider's STS client asks the source for a replacement, which
    /// renews it once, and retries once with the new token.
    @Test func afterInvalidIdentityTokenTheTokenIsRenewedOnceAndTheCallRetriedOnce() async throws {
        let (source, tokens) = try await self.signedIn()
        let transport = STSTestTransport([
            .response(STSFixtures.errorResponse(code: "InvalidIdentityToken")),
            .response(try STSFixtures.response("success-minimal.xml")),
        ])
        let provider = WebIdentityCredentialProvider(
            configuration: WebIdentityConfiguration(roleArn: "arn:aws:iam::123456789012:role/app", tokenSource: source, region: "us-east-1"),
            transport: transport,
            timeSource: self.clock.timeSource
        )
        let credentials = try await provider.getCredentials()
        #expect(!credentials.accessKeyId.isEmpty)
        let sent = transport.forms.map { $0["WebIdentityToken"] }
        #expect(sent.count == 2)
        #expect(sent[0] == tokens.idToken)
        let renewed = await source.currentTokens
        #expect(sent[1] == renewed.idToken && renewed.idToken != tokens.idToken)
        #expect(self.issuer.refreshGrants == 1)
    }

    @Test func aSecondRefusalIsReportedWithoutAnotherRenewal() async throws {
        let (source, _) = try await self.signedIn()
        let transport = STSTestTransport([
            .response(STSFixtures.errorResponse(code: "ExpiredTokenException")),
            .response(STSFixtures.errorResponse(code: "InvalidIdentityToken")),
        ])
        let sts = try STSClient(configuration: .init(region: "us-east-1"), transport: transport, timeSource: self.clock.timeSource)
        await #expect {
            _ = try await sts.assumeRoleWithWebIdentity(.sample, tokenSource: source)
        } throws: { error in
            (error as? WIFCredentialsError)?.serviceError?.code == "InvalidIdentityToken"
        }
        #expect(transport.requests.count == 2)
        #expect(self.issuer.refreshGrants == 1)
    }
}

extension OIDCTokenRefresher {
    /// How many callers wait for the refresh in flight.
    var waiterCount: Int { self.inFlight?.waiterCount ?? 0 }
}
