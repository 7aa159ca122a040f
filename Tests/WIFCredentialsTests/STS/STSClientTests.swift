import Foundation
import Logging
import Testing

@testable import WIFCredentials
import WIFHTTP
import WIFFoundation
import WIFTestSupport

@Suite struct STSClientTests {
    static let token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln+bmF0/dXJl="
    static let retry = STSClient.Configuration.Retry(maxAttempts: 4, baseDelay: .milliseconds(100), maxDelay: .seconds(1))

    func makeClient(
        _ transport: STSTestTransport,
        clock: TestClock = TestClock.sts(),
        retry: STSClient.Configuration.Retry = Self.retry,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) throws -> STSClient {
        try STSClient(
            configuration: .init(region: "eu-west-1", retry: retry, timeout: .seconds(7)),
            environment: [:],
            transport: transport,
            timeSource: clock.timeSource,
            jitter: jitter
        )
    }

    static func success(headers: [(name: String, value: String)] = [("Content-Type", "text/xml")]) throws -> STSTestTransport.Answer {
        .response(try STSFixtures.response("success-all-fields.xml", headers: headers))
    }

    func expectFailure(
        _ body: () async throws -> AssumeRoleWithWebIdentityResult,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ check: (WIFCredentialsError) -> Bool
    ) async {
        do {
            let result = try await body()
            Issue.record("expected an error, got \(result)", sourceLocation: sourceLocation)
        } catch let error as WIFCredentialsError {
            #expect(check(error), "unexpected error \(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected WIFCredentialsError, got \(error)", sourceLocation: sourceLocation)
        }
    }

    // MARK: - The exchange

    @Test func sendsUnsignedFormPostToTheRegionalEndpoint() async throws {
        let transport = STSTestTransport([try Self.success()])
        let source = STSTestTokenSource(Self.token)
        let client = try self.makeClient(transport)
        let request = AssumeRoleWithWebIdentityRequest(
            roleArn: "arn:aws:iam::123456789012:role/FederatedWebIdentityRole",
            roleSessionName: "app1",
            providerId: "www.amazon.com",
            durationSeconds: 3600
        )
        let result = try await client.assumeRoleWithWebIdentity(request, tokenSource: source)

        #expect(result.credentials.accessKeyId == "ASIAIOSFODNN7EXAMPLE")
        #expect(result.credentials.accountId == "123456789012")
        let sent = try #require(transport.requests.first)
        #expect(transport.requests.count == 1)
        #expect(sent.url.absoluteString == "https://sts.eu-west-1.amazonaws.com")
        #expect(sent.method == "POST")
        #expect(sent.header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
        #expect(sent.header("Authorization") == nil)
        #expect(sent.header("User-Agent") == "swift-wif/" + SwiftWIFVersion.current)
        #expect(transport.timeouts == [.seconds(7)])
        #expect(transport.forms.first?["WebIdentityToken"] == Self.token)
        #expect(transport.forms.first?["ProviderId"] == "www.amazon.com")
        #expect(transport.forms.first?["DurationSeconds"] == "3600")
        #expect(String(decoding: sent.body, as: UTF8.self).contains("c2ln%2BbmF0%2FdXJl%3D"))
        #expect(source.calls == [false])
    }

    @Test func stringOverloadSendsTheGivenToken() async throws {
        let transport = STSTestTransport([try Self.success()])
        let client = try self.makeClient(transport)
        let result = try await client.assumeRoleWithWebIdentity(.sample, webIdentityToken: Self.token)
        #expect(result.requestId == "ad4156e9-bce1-11e2-82e6-6b6efEXAMPLE")
        #expect(transport.forms.first?["WebIdentityToken"] == Self.token)
    }

    @Test func serverClockSkewIsTakenOffTheExpiration() async throws {
        let clock = TestClock.sts()  // 2026-11-21T12:00:00Z
        // The server is two minutes ahead; STS says the credentials expire at 14:00:00.250 server time.
        let transport = STSTestTransport([try Self.success(headers: [("Date", "Sat, 21 Nov 2026 12:02:00 GMT")])])
        let client = try self.makeClient(transport, clock: clock)
        let result = try await client.assumeRoleWithWebIdentity(.sample, tokenSource: STSTestTokenSource(Self.token))
        #expect(result.clockSkew == 120)
        #expect(result.serverExpiration.timeIntervalSince1970 == 1_795_269_600.25)
        #expect(result.credentials.expiration?.timeIntervalSince1970 == 1_795_269_600.25 - 120)
        #expect(result.credentials.isExpired(at: Date(timeIntervalSince1970: 1_795_269_600.25 - 120)))
        #expect(!result.credentials.isExpired(at: Date(timeIntervalSince1970: 1_795_269_600.25 - 121)))
    }

    // MARK: - Checks before sending

    @Test func invalidRequestSendsNothingAndReadsNoToken() async throws {
        let transport = STSTestTransport([])
        let source = STSTestTokenSource(Self.token)
        let client = try self.makeClient(transport)
        var request = AssumeRoleWithWebIdentityRequest.sample
        request.durationSeconds = 60
        await self.expectFailure({ try await client.assumeRoleWithWebIdentity(request, tokenSource: source) }) { error in
            error.code == .invalidParameter && error.reason.contains("DurationSeconds is 60")
        }
        #expect(transport.requests.isEmpty)
        #expect(source.calls.isEmpty)
    }

    @Test(arguments: [3, 20_001])
    func tokenOutsideItsBoundsIsRejectedBeforeSending(_ length: Int) async throws {
        let transport = STSTestTransport([])
        let client = try self.makeClient(transport)
        let token = String(repeating: "t", count: length)
        await self.expectFailure({ try await client.assumeRoleWithWebIdentity(.sample, webIdentityToken: token) }) { error in
            error.code == .invalidParameter && error.reason == "WebIdentityToken is \(length) bytes; STS accepts 4–20000"
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func stringTokenIsTrimmedButInnerWhitespaceIsRejected() async throws {
        let transport = STSTestTransport([try Self.success()])
        let client = try self.makeClient(transport)
        _ = try await client.assumeRoleWithWebIdentity(.sample, webIdentityToken: "  \(Self.token)\n")
        #expect(transport.forms.first?["WebIdentityToken"] == Self.token)

        await self.expectFailure({ try await client.assumeRoleWithWebIdentity(.sample, webIdentityToken: "abcd efgh") }) { error in
            error.code == .invalidParameter && error.reason == "WebIdentityToken contains whitespace or control characters; a token is a single word"
        }
        let fromSource = STSTestTokenSource("abcd\u{0}efgh")
        await self.expectFailure({ try await client.assumeRoleWithWebIdentity(.sample, tokenSource: fromSource) }) { error in
            error.code == .invalidParameter && !error.reason.contains("abcd")
        }
        #expect(transport.requests.count == 1)
    }

    @Test func expiredTokenIsReadAgainBeforeCallingSTS() async throws {
        let clock = TestClock.sts()
        let stale = WebIdentityToken(value: "stale-token", expiration: clock.now.addingTimeInterval(-1))
        let fresh = WebIdentityToken(value: "fresh-token", expiration: clock.now.addingTimeInterval(600))
        let source = STSTestTokenSource([stale, fresh])
        let transport = STSTestTransport([try Self.success()])
        let client = try self.makeClient(transport, clock: clock)
        _ = try await client.assumeRoleWithWebIdentity(.sample, tokenSource: source)
        #expect(source.calls == [false, true])
        #expect(transport.forms.map { $0["WebIdentityToken"] } == ["fresh-token"])
    }

    @Test func stillExpiredTokenFailsWithoutCallingSTS() async throws {
        let clock = TestClock.sts()
        let stale = WebIdentityToken(value: "stale-token", expiration: clock.now)
        let source = STSTestTokenSource([stale])
        let transport = STSTestTransport([])
        let client = try self.makeClient(transport, clock: clock)
        await self.expectFailure({ try await client.assumeRoleWithWebIdentity(.sample, tokenSource: source) }) { error in
            error.code == .tokenExpired
                && error.reason.contains("expired at 2026-11-21T12:00:00Z")
                && error.reason.contains("reading it again gave no fresher token")
                && !error.reason.contains("stale-token")
        }
        #expect(source.calls == [false, true])
        #expect(transport.requests.isEmpty)
    }

    @Test func tokenSourceErrorsPassThrough() async throws {
        let transport = STSTestTransport([])
        let client = try self.makeClient(transport)
        await self.expectFailure({ try await client.assumeRoleWithWebIdentity(.sample, tokenSource: STSTestTokenSource([])) }) { error in
            error.code == .tokenUnavailable
        }
        #expect(transport.requests.isEmpty)
    }

    // MARK: - Retries

    static let transientAnswers: [(String, STSTestTransport.Answer)] = [
        ("IDPCommunicationError", .response(STSFixtures.errorResponse(code: "IDPCommunicationError", status: 400))),
        ("Throttling", .response(STSFixtures.errorResponse(code: "Throttling", status: 400))),
        ("InternalFailure 500", .response(STSFixtures.errorResponse(code: "InternalFailure", status: 500))),
        ("unknown code with 503", .response(STSFixtures.errorResponse(code: "SomethingNew", status: 503))),
        ("429", .response(STSFixtures.errorResponse(code: "TooManyRequests", status: 429))),
        ("HTML 502", .response(TransportResponse(status: 502, body: Array("<!DOCTYPE html><p>bad gateway</p>".utf8)))),
        ("empty 200", .response(TransportResponse(status: 200, body: []))),
        ("connection failure", .failure(STSTestFailure(description: "connection reset by peer"))),
    ]

    @Test(arguments: Self.transientAnswers)
    func transientFailuresAreRetriedUntilAttemptsRunOut(_ name: String, _ answer: STSTestTransport.Answer) async throws {
        let transport = STSTestTransport(Array(repeating: answer, count: 4))
        let clock = TestClock.sts()
        let source = STSTestTokenSource(Self.token)
        let client = try self.makeClient(transport, clock: clock)
        await self.expectFailure({ try await client.assumeRoleWithWebIdentity(.sample, tokenSource: source) }) { error in
            error.isRecoverable && error.recovery == .retryWithBackoff
        }
        #expect(transport.requests.count == 4)
        #expect(clock.sleeps.count == 3)
        #expect(source.calls == [false])
    }

    @Test(arguments: Self.transientAnswers)
    func transientFailureThenSuccess(_ name: String, _ answer: STSTestTransport.Answer) async throws {
        let transport = STSTestTransport([answer, answer, try Self.success()])
        let clock = TestClock.sts()
        let client = try self.makeClient(transport, clock: clock)
        let result = try await client.assumeRoleWithWebIdentity(.sample, tokenSource: STSTestTokenSource(Self.token))
        #expect(result.credentials.accessKeyId == "ASIAIOSFODNN7EXAMPLE")
        #expect(transport.requests.count == 3)
        #expect(clock.sleeps.count == 2)
    }

    @Test(arguments: [
        "IDPRejectedClaim", "AccessDenied", "MalformedPolicyDocument", "PackedPolicyTooLarge", "RegionDisabledException",
        "ValidationError", "InvalidParameterValue", "InvalidClientTokenId",
    ])
    func permanentFailuresAreNotRetried(_ code: String) async throws {
        let transport = STSTestTransport([.response(STSFixtures.errorResponse(code: code, status: 400, message: "no"))])
        let clock = TestClock.sts()
        let source = STSTestTokenSource(Self.token)
        let client = try self.makeClient(transport, clock: clock)
        await self.expectFailure({ try await client.assumeRoleWithWebIdentity(.sample, tokenSource: source) }) { error in
            error.code == .service && error.serviceError?.code == code && error.serviceError?.message == "no"
                && error.serviceError?.requestId == "req-\(code)" && error.serviceError?.httpStatus == 400
                && !error.isRecoverable
        }
        #expect(transport.requests.count == 1)
        #expect(clock.sleeps.isEmpty)
        #expect(source.calls == [false])
    }

    @Test func disabledRetriesReportTheFirstTransientFailure() async throws {
        let transport = STSTestTransport([.response(STSFixtures.errorResponse(code: "Throttling"))])
        let clock = TestClock.sts()
        let client = try self.makeClient(transport, clock: clock, retry: .disabled)
        await self.expectFailure({ try await client.assumeRoleWithWebIdentity(.sample, tokenSource: STSTestTokenSource(Self.token)) }) {
            $0.serviceError?.code == "Throttling"
        }
        #expect(transport.requests.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test func backoffSleepsGrowWithinTheirJitterRange() async throws {
        let retry = STSClient.Configuration.Retry(maxAttempts: 6, baseDelay: .milliseconds(100), maxDelay: .milliseconds(1000))
        for _ in 0..<20 {
            let transport = STSTestTransport(Array(repeating: .response(STSFixtures.errorResponse(code: "Throttling")), count: 6))
            let clock = TestClock.sts()
            let client = try self.makeClient(transport, clock: clock, retry: retry)
            await self.expectFailure({ try await client.assumeRoleWithWebIdentity(.sample, tokenSource: STSTestTokenSource(Self.token)) }) {
                $0.serviceError?.code == "Throttling"
            }
            let sleeps = clock.sleeps
            #expect(sleeps.count == 5)
            let ceilings: [Duration] = [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1000)]
            for (sleep, ceiling) in zip(sleeps, ceilings) {
                #expect(sleep >= ceiling / 2 && sleep <= ceiling, "sleep \(sleep) outside \(ceiling / 2)…\(ceiling)")
            }
            // While the ceiling doubles, each range starts where the previous one ended, so waits never
            // shrink; once capped at maxDelay they stay jittered within maxDelay/2…maxDelay.
            for index in 0..<3 {
                #expect(sleeps[index] <= sleeps[index + 1], "sleeps shrank: \(sleeps)")
            }
        }
    }

    @Test func jitterPicksWithinTheRange() async throws {
        for (jitter, expected) in [(0.0, [Duration.milliseconds(50), .milliseconds(100)]), (1.0, [.milliseconds(100), .milliseconds(200)])] {
            let transport = STSTestTransport(Array(repeating: .response(STSFixtures.errorResponse(code: "Throttling")), count: 3))
            let clock = TestClock.sts()
            let client = try self.makeClient(
                transport,
                clock: clock,
                retry: .init(maxAttempts: 3, baseDelay: .milliseconds(100), maxDelay: .seconds(1)),
                jitter: { jitter }
            )
            await self.expectFailure({ try await client.assumeRoleWithWebIdentity(.sample, tokenSource: STSTestTokenSource(Self.token)) }) { _ in true }
            #expect(clock.sleeps == expected)
        }
    }

    @Test func retryCeilingsDoubleUpToTheMaximum() {
        let retry = STSClient.Configuration.Retry(maxAttempts: 10, baseDelay: .seconds(1), maxDelay: .seconds(5))
        #expect((1...5).map { retry.ceiling(beforeRetry: $0) } == [.seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5)])
        #expect(retry.ceiling(beforeRetry: 1_000) == .seconds(5))
        #expect(retry.delay(beforeRetry: 2, jitter: 0.5) == .milliseconds(1500))
        #expect(retry.delay(beforeRetry: 2, jitter: .nan) == .seconds(1))
        #expect(retry.delay(beforeRetry: 2, jitter: 7) == .seconds(2))
        let huge = STSClient.Configuration.Retry(maxAttempts: 100, baseDelay: .seconds(1_000_000_000), maxDelay: .seconds(2_000_000_000))
        #expect(huge.ceiling(beforeRetry: 90) == .seconds(2_000_000_000))
    }

    // MARK: - Rejected tokens

    @Test(arguments: ["InvalidIdentityToken", "ExpiredTokenException"])
    func rejectedTokenIsReadAgainOnce(_ code: String) async throws {
        let transport = STSTestTransport([.response(STSFixtures.errorResponse(code: code)), try Self.success()])
        let clock = TestClock.sts()
        let source = STSTestTokenSource("first-token", "second-token")
        let client = try self.makeClient(transport, clock: clock)
        let result = try await client.assumeRoleWithWebIdentity(.sample, tokenSource: source)
        #expect(result.credentials.accessKeyId == "ASIAIOSFODNN7EXAMPLE")
        #expect(source.calls == [false, true])
        #expect(transport.forms.map { $0["WebIdentityToken"] } == ["first-token", "second-token"])
        #expect(clock.sleeps.isEmpty)
    }

    @Test func tokenRejectedTwiceIsReported() async throws {
        let transport = STSTestTransport([
            .response(STSFixtures.errorResponse(code: "InvalidIdentityToken")),
            .response(STSFixtures.errorResponse(code: "ExpiredTokenException")),
        ])
        let source = STSTestTokenSource("first-token", "second-token", "third-token")
        // Re-reading the token does not use up the retry budget: it happens even with retries off.
        let client = try self.makeClient(transport, retry: .disabled)
        await self.expectFailure({ try await client.assumeRoleWithWebIdentity(.sample, tokenSource: source) }) { error in
            error.serviceError?.code == "ExpiredTokenException" && error.recovery == .reloadTokenAndRetryOnce
        }
        #expect(source.calls == [false, true])
        #expect(transport.requests.count == 2)
    }

    @Test func reReadTokenThatIsExpiredFailsWithTokenExpired() async throws {
        let clock = TestClock.sts()
        let transport = STSTestTransport([.response(STSFixtures.errorResponse(code: "ExpiredTokenException"))])
        let source = STSTestTokenSource([
            WebIdentityToken(value: "first-token"),
            WebIdentityToken(value: "second-token", expiration: clock.now.addingTimeInterval(-30)),
        ])
        let client = try self.makeClient(transport, clock: clock)
        await self.expectFailure({ try await client.assumeRoleWithWebIdentity(.sample, tokenSource: source) }) { $0.code == .tokenExpired }
        #expect(transport.requests.count == 1)
    }

    // MARK: - Failures of the exchange itself

    @Test func connectionFailureBecomesANetworkError() async throws {
        let transport = STSTestTransport([.failure(STSTestFailure(description: "connection refused"))])
        let client = try self.makeClient(transport, retry: .disabled)
        await self.expectFailure({ try await client.assumeRoleWithWebIdentity(.sample, tokenSource: STSTestTokenSource(Self.token)) }) { error in
            error.code == .network && error.reason == "could not reach STS at sts.eu-west-1.amazonaws.com: connection refused"
        }
    }

    @Test func cancellationIsNotRetried() async throws {
        let transport = STSTestTransport([.failure(CancellationError()), try Self.success()])
        let clock = TestClock.sts()
        let client = try self.makeClient(transport, clock: clock)
        await #expect(throws: CancellationError.self) {
            try await client.assumeRoleWithWebIdentity(.sample, tokenSource: STSTestTokenSource(Self.token))
        }
        #expect(transport.requests.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    // MARK: - Logging

    @Test func logsRequestIdsAndCodesButNoSecrets() async throws {
        let recorder = TestLogRecorder()
        let transport = STSTestTransport([
            .response(STSFixtures.errorResponse(code: "IDPCommunicationError", status: 400)),
            .response(STSFixtures.errorResponse(code: "InvalidIdentityToken")),
            try Self.success(),
        ])
        let client = try self.makeClient(transport)
        let result = try await client.assumeRoleWithWebIdentity(
            .sample,
            tokenSource: STSTestTokenSource(Self.token, "second-secret-token"),
            logger: recorder.logger
        )
        let records = recorder.records
        #expect(records.allSatisfy { $0.level <= .info })
        #expect(records.contains { $0.metadata["wif.sts.error_code"] == "IDPCommunicationError" && $0.metadata["wif.sts.retry_delay"] != nil })
        #expect(records.contains { $0.metadata["wif.sts.error_code"] == "InvalidIdentityToken" && $0.metadata["wif.sts.request_id"] == "req-InvalidIdentityToken" })
        #expect(records.contains { $0.metadata["wif.sts.request_id"] == "ad4156e9-bce1-11e2-82e6-6b6efEXAMPLE" })
        let text = recorder.text
        for secret in [Self.token, "second-secret-token", PercentEncoding.encode(Self.token), result.credentials.secretAccessKey] {
            #expect(!text.contains(secret))
        }
        #expect(!text.contains(try #require(result.credentials.sessionToken)))
    }

    @Test func resultDescriptionHidesSecrets() async throws {
        let transport = STSTestTransport([try Self.success()])
        let client = try self.makeClient(transport)
        let result = try await client.assumeRoleWithWebIdentity(.sample, tokenSource: STSTestTokenSource(Self.token))
        for text in [result.description, "\(result)", String(reflecting: result)] {
            #expect(text.contains("ASIAIOSFODNN7EXAMPLE"))
            #expect(text.contains("arn:aws:sts::123456789012:assumed-role/FederatedWebIdentityRole/app1"))
            #expect(!text.contains("wJalrXUtnFEMI"))
            #expect(!text.contains("AQoDYXdzEE0a8"))
        }
    }
}
