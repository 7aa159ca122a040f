import Foundation
import Logging
import Synchronization
import Testing

@testable import WIFCredentials
import WIFHTTP
import WIFTestSupport

@Suite struct OAuth2ClientTests {
    let clock = TestClock.sts()
    let issuer: OAuthTestIssuer

    init() {
        let clock = self.clock
        self.issuer = OAuthTestIssuer(now: { clock.now })
    }

    func client(_ configuration: OAuth2ClientConfiguration = OAuthTestIssuer.configuration()) throws -> OAuth2Client {
        try self.issuer.client(timeSource: self.clock.timeSource, configuration: configuration)
    }

    static func expectError(_ code: WIFCredentialsError.Code, containing text: String, _ body: () async throws -> Void) async {
        await #expect {
            try await body()
        } throws: { error in
            let error = error as? WIFCredentialsError
            let matches = error?.code == code && error?.reason.contains(text) == true
            if !matches { Issue.record("got \(String(describing: error))") }
            return matches
        }
    }

    // MARK: Discovery

    @Test func discoveryIsReadOnceAndChecksTheIssuer() async throws {
        let client = try self.client()
        let metadata = try await client.metadata()
        #expect(metadata.tokenEndpoint?.absoluteString == "https://issuer.test/token")
        _ = try await client.metadata()
        #expect(self.issuer.requests.filter { $0.url.path == "/.well-known/openid-configuration" }.count == 1)

        let impostor = try self.client(OAuth2ClientConfiguration(
            issuer: "https://other.test", discoveryURL: URL(string: "https://issuer.test/.well-known/openid-configuration"), clientId: "test-client"))
        await Self.expectError(.invalidConfiguration, containing: "is for issuer 'https://issuer.test', but 'https://other.test' is configured") {
            _ = try await impostor.metadata()
        }
    }

    @Test func explicitEndpointsReplaceDiscoveredOnes() async throws {
        var configuration = OAuthTestIssuer.configuration()
        configuration.endpoints.revocation = URL(string: "https://issuer.test/elsewhere")
        let metadata = try await self.client(configuration).metadata()
        #expect(metadata.revocationEndpoint?.absoluteString == "https://issuer.test/elsewhere")
        #expect(metadata.tokenEndpoint?.absoluteString == "https://issuer.test/token")
    }

    // MARK: Authorization code

    @Test func aBrowserSignInSendsPKCEAndChecksStateAndNonce() async throws {
        let client = try self.client()
        let request = try await client.authorizationRequest(redirectURI: "http://127.0.0.1:5000/callback", loginHint: "alice")
        let query = try #require(OAuth2FormDecoding.parameters(of: request.url))
        #expect(query["code_challenge"] == request.pkce.challenge)
        #expect(query["state"] == request.state)
        #expect(query["nonce"] == request.nonce)
        #expect(query["scope"] == "openid offline_access")
        #expect(query["login_hint"] == "alice")

        let tokens = try await client.completeAuthorization(request, callbackURL: try self.issuer.authorize(request.url))
        #expect(tokens.subject == "alice")
        #expect(tokens.refreshToken != nil)
        #expect(tokens.idTokenExpiresAt == self.clock.now.addingTimeInterval(3600))
        let form = try #require(self.issuer.forms(to: "/token").last)
        #expect(form["code_verifier"] == request.pkce.verifier)
        #expect(form["redirect_uri"] == "http://127.0.0.1:5000/callback")
    }

    @Test func aRedirectForAnotherSignInIsRefused() async throws {
        let client = try self.client()
        let request = try await client.authorizationRequest(redirectURI: "http://127.0.0.1:5000/callback")
        await Self.expectError(.authorizationFailed, containing: "state does not match") {
            _ = try await client.completeAuthorization(request, callbackParameters: ["code": "x", "state": "forged"])
        }
        await Self.expectError(.authorizationFailed, containing: "has no state") {
            _ = try await client.completeAuthorization(request, callbackParameters: ["code": "x"])
        }
        await Self.expectError(.authorizationFailed, containing: "comes from issuer 'https://evil.test'") {
            _ = try await client.completeAuthorization(request, callbackParameters: ["code": "x", "state": request.state, "iss": "https://evil.test"])
        }
        await Self.expectError(.authorizationFailed, containing: "neither a code nor an error") {
            _ = try await client.completeAuthorization(request, callbackParameters: ["state": request.state])
        }
        // None of these reached the token endpoint.
        #expect(self.issuer.forms(to: "/token").isEmpty)
    }

    @Test func aDenialInTheRedirectSaysSoAndKeepsTheIssuersError() async throws {
        let client = try self.client()
        let request = try await client.authorizationRequest(redirectURI: "http://127.0.0.1:5000/callback")
        await #expect {
            _ = try await client.completeAuthorization(
                request, callbackParameters: ["error": "access_denied", "error_description": "user said no", "state": request.state])
        } throws: { error in
            let error = error as? WIFCredentialsError
            return error?.code == .authorizationFailed && error?.reason.contains("denied at the issuer") == true
                && error?.oauthError == OAuth2ErrorResponse(error: "access_denied", errorDescription: "user said no")
        }
        await Self.expectError(.oauth, containing: "invalid_scope") {
            _ = try await client.completeAuthorization(request, callbackParameters: ["error": "invalid_scope", "state": request.state])
        }
    }

    @Test func anIDTokenWithAnotherNonceIsRefused() async throws {
        let client = try self.client()
        let request = try await client.authorizationRequest(redirectURI: "http://127.0.0.1:5000/callback")
        self.issuer.configure { $0.nextNonceOverride = .some("replayed") }
        await Self.expectError(.invalidIDToken, containing: "nonce is not the one") {
            _ = try await client.completeAuthorization(request, callbackURL: try self.issuer.authorize(request.url))
        }
    }

    @Test func aCodeUsedTwiceIsAnOAuthError() async throws {
        let client = try self.client()
        let request = try await client.authorizationRequest(redirectURI: "http://127.0.0.1:5000/callback")
        let callback = try self.issuer.authorize(request.url)
        _ = try await client.completeAuthorization(request, callbackURL: callback)
        await #expect {
            _ = try await client.completeAuthorization(request, callbackURL: callback)
        } throws: { error in
            let error = error as? WIFCredentialsError
            return error?.code == .oauth && error?.oauthError?.error == "invalid_grant" && error?.oauthError?.httpStatus == 400
                && error?.reason.contains("exchange the sign-in code") == true
        }
    }

    // MARK: Refresh and revocation

    @Test func refreshRotatesTheRefreshTokenAndTheOldOneStopsWorking() async throws {
        let client = try self.client()
        let first = try await self.issuer.signIn(client: client)
        try await self.clock.timeSource.sleep(.seconds(600))
        let second = try await client.refresh(first)
        #expect(second.refreshToken != first.refreshToken)
        #expect(second.idToken != first.idToken)
        #expect(second.idTokenExpiresAt == self.clock.now.addingTimeInterval(3600))
        #expect(second.subject == "alice")

        // Presenting the rotated token again is reuse: the family is revoked, even the newest token.
        await #expect {
            _ = try await client.refresh(first)
        } throws: { error in
            let error = error as? WIFCredentialsError
            return error?.code == .signInRequired && error?.reason.contains("sign in again") == true
                && error?.oauthError?.error == "invalid_grant"
                && error?.reason.contains(first.refreshToken ?? "-") == false
        }
        await Self.expectError(.signInRequired, containing: "rejected the refresh token of 'alice'") {
            _ = try await client.refresh(second)
        }
    }

    @Test func withoutARefreshTokenTheUserMustSignInAgain() async throws {
        self.issuer.configure { $0.grantsRefreshTokens = false }
        let client = try self.client()
        let tokens = try await self.issuer.signIn(client: client)
        #expect(tokens.refreshToken == nil)
        await Self.expectError(.signInRequired, containing: "has no refresh token") { _ = try await client.refresh(tokens) }
    }

    @Test func aRenewedTokenForAnotherSubjectIsRefused() async throws {
        let client = try self.client()
        var tokens = try await self.issuer.signIn(client: client)
        tokens.subject = "bob"
        await Self.expectError(.invalidIDToken, containing: "for subject 'alice', not 'bob'") { _ = try await client.refresh(tokens) }
    }

    @Test func aRefreshWithoutIDTokenKeepsTheOldOneAndTheRotatedRefreshToken() async throws {
        let client = try self.client()
        let tokens = try await self.issuer.signIn(client: client)
        self.issuer.configure { $0.omitIDTokenOnRefresh = true }
        let renewed = try await client.refresh(tokens)
        #expect(renewed.idToken == tokens.idToken)
        #expect(renewed.refreshToken != tokens.refreshToken)
        #expect(renewed.accessToken != tokens.accessToken)
    }

    @Test func revokingTheRefreshTokenEndsTheSignIn() async throws {
        let client = try self.client()
        let tokens = try await self.issuer.signIn(client: client)
        try await client.revoke(tokens)
        let form = try #require(self.issuer.forms(to: "/revoke").last)
        #expect(form["token"] == tokens.refreshToken)
        #expect(form["token_type_hint"] == "refresh_token")
        #expect(form["client_id"] == OAuthTestIssuer.clientId)
        await Self.expectError(.signInRequired, containing: "sign in again") { _ = try await client.refresh(tokens) }
    }

    // MARK: Error mapping

    @Test(arguments: [
        (OAuthTestIssuer.error(400, "invalid_request", "missing thing"), WIFCredentialsError.Code.oauth, WIFCredentialsError.Recovery.none),
        (OAuthTestIssuer.error(401, "invalid_client", "bad secret"), .oauth, .none),
        (OAuthTestIssuer.error(503, "temporarily_unavailable", "later"), .oauth, .retryWithBackoff),
        (OAuthTestIssuer.error(400, "server_error", "oops"), .oauth, .retryWithBackoff),
        (TransportResponse(status: 502, body: Array("<html>Bad gateway</html>".utf8)), .malformedResponse, .retryWithBackoff),
        (OAuthTestIssuer.json(500, #"{"message":"no"}"#), .malformedResponse, .retryWithBackoff),
        (OAuthTestIssuer.json(200, #"{"token_type":"Bearer"}"#), .malformedResponse, .retryWithBackoff),
        (OAuthTestIssuer.error(400, "invalid_grant", "gone"), .signInRequired, .none),
    ])
    func tokenEndpointAnswersMapToErrors(
        answer: TransportResponse, code: WIFCredentialsError.Code, recovery: WIFCredentialsError.Recovery
    ) async throws {
        let client = try self.client()
        let tokens = try await self.issuer.signIn(client: client)
        self.issuer.script(answer)
        await #expect {
            _ = try await client.refresh(tokens)
        } throws: { error in
            let error = error as? WIFCredentialsError
            if error?.code != code || error?.recovery != recovery { Issue.record("got \(String(describing: error))") }
            return error?.code == code && error?.recovery == recovery && error?.reason.contains(tokens.refreshToken ?? "-") == false
        }
    }

    @Test func anErrorDescriptionQuotingTheTokenIsRedacted() async throws {
        let client = try self.client()
        let tokens = try await self.issuer.signIn(client: client)
        let refreshToken = try #require(tokens.refreshToken)
        self.issuer.script(OAuthTestIssuer.error(400, "invalid_request", "bad token \(refreshToken)"))
        await #expect {
            _ = try await client.refresh(tokens)
        } throws: { error in
            let error = error as? WIFCredentialsError
            return error?.oauthError?.errorDescription == "bad token <redacted>" && error?.description.contains(refreshToken) == false
        }
    }

    @Test func aSuccessfulAnswerWithAnEmptyErrorDoesNotQuoteTheNewTokens() async throws {
        let client = try self.client()
        let tokens = try await self.issuer.signIn(client: client)
        let issued = "fresh-access-token-never-to-be-shown"
        self.issuer.script(OAuthTestIssuer.json(200, #"{"access_token":"\#(issued)","refresh_token":"r-\#(issued)","error":""}"#))
        await #expect {
            _ = try await client.refresh(tokens)
        } throws: { error in
            let error = error as? WIFCredentialsError
            return error?.code == .malformedResponse && error?.reason.contains("its 'error' member is empty") == true
                && error?.description.contains(issued) == false
        }
    }

    @Test func anUnreachableIssuerIsANetworkError() async throws {
        struct Down: HTTPTransport {
            func send(_ request: TransportRequest, timeout: Duration, maximumBodyBytes: Int, logger: Logger) async throws -> TransportResponse {
                throw URLError(.cannotConnectToHost)
            }
        }
        let client = try OAuth2Client(configuration: OAuthTestIssuer.configuration(), transport: Down(), timeSource: self.clock.timeSource)
        await Self.expectError(.network, containing: "could not reach the issuer's discovery document at issuer.test") {
            _ = try await client.metadata()
        }
    }

    @Test func aSilentIssuerFailsWithinFifteenSecondsNamingTheEndpoint() async throws {
        final class Silent: HTTPTransport {
            let timeouts = Mutex<[Duration]>([])
            func send(_ request: TransportRequest, timeout: Duration, maximumBodyBytes: Int, logger: Logger) async throws -> TransportResponse {
                self.timeouts.withLock { $0.append(timeout) }
                throw HTTPTransportError.timedOut(after: timeout)
            }
        }
        let transport = Silent()
        let client = try OAuth2Client(configuration: OAuthTestIssuer.configuration(), transport: transport, timeSource: self.clock.timeSource)
        await Self.expectError(
            .network, containing: "the issuer's discovery document at https://issuer.test/.well-known/openid-configuration did not answer within 15 s"
        ) {
            _ = try await client.metadata()
        }
        #expect(transport.timeouts.withLock { $0 } == [.seconds(15)])
    }

    // MARK: Device flow

    @Test func theDeviceFlowPollsAtTheIntervalAndSlowsDownWhenAsked() async throws {
        let client = try self.client()
        self.issuer.configure { $0.deviceScript = ["authorization_pending", "slow_down", "authorization_pending"] }
        let start = self.clock.now
        let tokens = try await client.authorizeWithDevice { authorization in
            #expect(authorization.verificationURI.absoluteString == "https://issuer.test/activate")
            #expect(authorization.interval == .seconds(5))
            #expect(!authorization.description.contains(authorization.deviceCode))
            self.issuer.approveDevice(authorization.userCode)
        }
        #expect(tokens.subject == "alice")
        // Four polls: 5 s, 5 s, then slow_down adds 5 s for good: 10 s, 10 s.
        #expect(self.clock.sleeps == [.seconds(5), .seconds(5), .seconds(10), .seconds(10)])
        #expect(self.clock.now == start.addingTimeInterval(30))
        let form = try #require(self.issuer.forms(to: "/token").last)
        #expect(form["grant_type"] == "urn:ietf:params:oauth:grant-type:device_code")
    }

    @Test(arguments: [("access_denied", "denied at the issuer"), ("expired_token", "expired before it was approved")])
    func aDeviceSignInThatEndsBadlySaysHow(code: String, expected: String) async throws {
        let client = try self.client()
        self.issuer.configure { $0.deviceScript = ["authorization_pending", code] }
        await #expect {
            _ = try await client.authorizeWithDevice { _ in }
        } throws: { error in
            let error = error as? WIFCredentialsError
            return error?.code == .authorizationFailed && error?.reason.contains(expected) == true && error?.oauthError?.error == code
        }
    }

    @Test func aDeviceCodeThatOutlivesItsExpiryStopsPolling() async throws {
        let client = try self.client()
        self.issuer.configure {
            $0.deviceExpiresIn = 12
            $0.deviceInterval = 5
        }
        await Self.expectError(.authorizationFailed, containing: "expired at") {
            _ = try await client.authorizeWithDevice { _ in }
        }
        #expect(self.clock.sleeps == [.seconds(5), .seconds(5), .seconds(5)])
    }
}
