import Foundation
import Logging
import Synchronization
import Testing
import WIFCredentials

@testable import S3Partition
import WIFTestSupport

/// Retries, backoff and credential refresh against an in-memory S3 with injected faults; the clock
/// never sleeps for real.
@Suite("Retries and credential refresh")
struct RetryTests {
    /// A client of `memory` served on a loopback port, backoff jitter fixed at its ceiling.
    static func withClient(
        _ memory: MemoryS3,
        provider: some CredentialProvider = RotatingCredentialProvider(),
        retry: S3Client.Retry = S3Client.Retry(maxAttempts: 4, baseDelay: .milliseconds(100), maxDelay: .seconds(1)),
        transfer: S3Client.Transfer = S3Client.Transfer(),
        _ body: (S3Client, TestClock) async throws -> Void
    ) async throws {
        try await FaultServer.with(memory.handler) { server in
            let clock = TestClock()
            let client = try S3Client(
                configuration: .init(region: "eu-west-3", endpoint: server.endpoint, retry: retry, transfer: transfer),
                credentialProvider: provider, environment: [:], timeSource: clock.timeSource, jitter: { 1 })
            try await body(client, clock)
        }
    }

    static func isPut(_ key: String) -> @Sendable (FaultServer.Request) -> Bool {
        { $0.method == "PUT" && $0.path == "/bucket/\(key)" && $0.query["uploadId"] == nil }
    }

    @Test("5xx and throttling answers are retried with growing backoff", arguments: [
        (503, "SlowDown"), (500, "InternalError"), (503, "ServiceUnavailable"), (429, "TooManyRequests"), (400, "RequestTimeout"),
    ])
    func transientStatuses(status: Int, code: String) async throws {
        let memory = MemoryS3()
        memory.inject(.error(status: status, code: code), times: 2, when: Self.isPut("a.txt"))
        try await Self.withClient(memory) { client, clock in
            let result = try await client.putObject(bucket: "bucket", key: "a.txt", bytes: Array("hello".utf8))
            #expect(result.eTag == MemoryS3.md5Hex(Array("hello".utf8)))
            #expect(clock.sleeps == [.milliseconds(100), .milliseconds(200)])
            #expect(memory.log.filter { $0.method == "PUT" }.count == 3)
            #expect(memory.object(key: "a.txt") == Array("hello".utf8))
        }
    }

    @Test("a 5xx without an error document is retried too")
    func bareServerError() async throws {
        let memory = MemoryS3()
        memory.inject(.error(status: 502, code: nil), times: 1, when: Self.isPut("a.txt"))
        try await Self.withClient(memory) { client, clock in
            try await client.putObject(bucket: "bucket", key: "a.txt", bytes: [1, 2, 3])
            #expect(clock.sleeps.count == 1)
        }
    }

    @Test("retries stop after maxAttempts and the last error is reported with S3's fields")
    func exhausted() async throws {
        let memory = MemoryS3()
        memory.inject(.error(status: 500, code: "InternalError"), times: 10, when: Self.isPut("a.txt"))
        try await Self.withClient(memory) { client, clock in
            let error = await #expect(throws: S3Error.self) { try await client.putObject(bucket: "bucket", key: "a.txt", bytes: [1]) }
            #expect(error?.code == .internalError)
            #expect(error?.httpStatus == 500)
            #expect(error?.requestId == "REQ-500")
            #expect(error?.message == "injected InternalError")
            #expect(error?.bucket == "bucket")
            #expect(error?.key == "a.txt")
            #expect(clock.sleeps == [.milliseconds(100), .milliseconds(200), .milliseconds(400)])
            #expect(memory.log.count == 4)
        }
    }

    @Test("client errors are not retried", arguments: ["AccessDenied", "NoSuchBucket", "InvalidArgument", "SignatureDoesNotMatch"])
    func permanent(code: String) async throws {
        let memory = MemoryS3()
        memory.inject(.error(status: code == "NoSuchBucket" ? 404 : 403, code: code), times: 5, when: Self.isPut("a.txt"))
        try await Self.withClient(memory) { client, clock in
            let error = await #expect(throws: S3Error.self) { try await client.putObject(bucket: "bucket", key: "a.txt", bytes: [1]) }
            #expect(error?.code == S3Error.Code(code))
            #expect(error?.isServiceError == true)
            #expect(clock.sleeps.isEmpty)
            #expect(memory.log.count == 1)
        }
    }

    @Test("a connection closed without an answer is retried")
    func brokenConnection() async throws {
        let memory = MemoryS3()
        memory.inject(.close, times: 2, when: Self.isPut("a.txt"))
        try await Self.withClient(memory) { client, clock in
            try await client.putObject(bucket: "bucket", key: "a.txt", bytes: Array(repeating: 7, count: 4096))
            #expect(clock.sleeps.count == 2)
            #expect(memory.object(key: "a.txt") == Array(repeating: 7, count: 4096))
        }
    }

    @Test("an unreachable endpoint is a network error, distinct from S3's errors")
    func unreachable() async throws {
        let port = try freeLoopbackPort()
        let clock = TestClock()
        let client = try S3Client(
            configuration: .init(endpoint: "http://127.0.0.1:\(port)", retry: .init(maxAttempts: 2)),
            credentialProvider: RotatingCredentialProvider(), environment: [:], timeSource: clock.timeSource,
            jitter: { 0 })
        let error = await #expect(throws: S3Error.self) { try await client.headObject(bucket: "bucket", key: "a") }
        #expect(error?.code == .network)
        #expect(error?.isServiceError == false)
        #expect(error?.httpStatus == nil)
        #expect(error?.message.contains("HeadObject to 127.0.0.1:\(port) failed") == true, "\(error?.message ?? "")")
        #expect(clock.sleeps == [.milliseconds(50)], "jitter 0 waits half the ceiling")
    }

    @Test("ExpiredToken, InvalidAccessKeyId and InvalidToken invalidate the credentials and retry once with fresh ones",
        arguments: [(400, "ExpiredToken"), (403, "InvalidAccessKeyId"), (400, "InvalidToken")])
    func credentialRefresh(status: Int, code: String) async throws {
        let memory = MemoryS3(rejection: (status, code))
        memory.reject(accessKeyId: "KEY1")
        let provider = RotatingCredentialProvider()
        try await Self.withClient(memory, provider: provider) { client, clock in
            try await client.putObject(bucket: "bucket", key: "a.txt", bytes: [1])
            #expect(provider.invalidated == ["KEY1"])
            #expect(memory.log.map(\.accessKeyId) == ["KEY1", "KEY2"])
            #expect(memory.log[1].header("x-amz-security-token") == "token-2")
            #expect(clock.sleeps.isEmpty, "a refresh is not a backoff")
        }
    }

    @Test("fresh credentials are tried only once")
    func refreshOnce() async throws {
        let memory = MemoryS3(rejection: (403, "InvalidAccessKeyId"))
        memory.reject(accessKeyId: "KEY1")
        memory.reject(accessKeyId: "KEY2")
        let provider = RotatingCredentialProvider()
        try await Self.withClient(memory, provider: provider) { client, _ in
            let error = await #expect(throws: S3Error.self) { try await client.putObject(bucket: "bucket", key: "a.txt", bytes: [1]) }
            #expect(error?.code == .invalidAccessKeyId)
            #expect(provider.invalidated == ["KEY1"])
            #expect(memory.log.count == 2)
        }
    }

    @Test("a provider that cannot give credentials fails before anything is sent")
    func noCredentials() async throws {
        let memory = MemoryS3()
        try await Self.withClient(memory, provider: FailingCredentialProvider()) { client, _ in
            let error = await #expect(throws: S3Error.self) { try await client.putObject(bucket: "bucket", key: "a.txt", bytes: [1]) }
            #expect(error?.code == .credentialsUnavailable)
            #expect(error?.credentialsError?.code == .noCredentials)
            #expect(error?.message.contains("no provider in the chain had credentials") == true)
            #expect(memory.log.isEmpty)
        }
    }

    @Test("RequestTimeTooSkewed adopts S3's clock from its Date header and retries at once")
    func clockSkew() async throws {
        let memory = MemoryS3()
        let serverDate = "Tue, 18 Sep 2029 10:00:00 GMT"
        memory.inject(.errorWithHeaders(status: 403, code: "RequestTimeTooSkewed", headers: [("Date", serverDate)]), when: Self.isPut("a.txt"))
        try await Self.withClient(memory) { client, clock in
            try await client.putObject(bucket: "bucket", key: "a.txt", bytes: [1])
            #expect(memory.log.map { $0.header("x-amz-date") } == ["20260921T141320Z", "20290918T100000Z"])
            #expect(clock.sleeps.isEmpty)
        }
    }

    @Test("backoff delays stay within half and all of a ceiling that doubles up to maxDelay")
    func backoffBounds() {
        let retry = S3Client.Retry(maxAttempts: 10, baseDelay: .milliseconds(100), maxDelay: .seconds(1))
        #expect((1...6).map { retry.delay(beforeRetry: $0, jitter: 1) } == [
            .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1),
        ])
        #expect(retry.delay(beforeRetry: 3, jitter: 0) == .milliseconds(200))
        #expect(retry.delay(beforeRetry: 3, jitter: 0.5) == .milliseconds(300))
        #expect(retry.delay(beforeRetry: 100, jitter: .nan) == .milliseconds(500))
    }

    @Test("retry decisions", arguments: [
        (S3Error(code: .network), S3RetryState.Recovery.transient),
        (S3Error(code: .slowDown, httpStatus: 503), .transient),
        (S3Error(code: S3Error.Code("Whatever"), httpStatus: 504), .transient),
        (S3Error(code: S3Error.Code("NotImplemented"), httpStatus: 501), .permanent),
        (S3Error(code: S3Error.Code("TooManyRequests"), httpStatus: 429), .transient),
        (S3Error(code: .integrityCheckFailed), .transient),
        (S3Error(code: .expiredToken, httpStatus: 400), .credentialsRejected),
        (S3Error(code: .invalidAccessKeyId, httpStatus: 403), .credentialsRejected),
        (S3Error(code: .requestTimeTooSkewed, httpStatus: 403), .clockSkew),
        (S3Error(code: .accessDenied, httpStatus: 403), .permanent),
        (S3Error(code: .noSuchKey, httpStatus: 404), .permanent),
        (S3Error(code: .fileError), .permanent),
        (S3Error(code: .preconditionFailed, httpStatus: 412), .permanent),
    ])
    func recoveries(error: S3Error, expected: S3RetryState.Recovery) {
        #expect(S3RetryState.recovery(for: error) == expected, "\(error.code)")
    }

    @Test("the retry state counts attempts and allows one credential refresh and one clock correction")
    func retryState() {
        var state = S3RetryState(policy: .init(maxAttempts: 2, baseDelay: .milliseconds(10), maxDelay: .seconds(1)))
        #expect(state.next(after: S3Error(code: .expiredToken), jitter: 1) == .refreshCredentialsAndRetry)
        #expect(state.next(after: S3Error(code: .expiredToken), jitter: 1) == .fail)
        #expect(state.next(after: S3Error(code: .requestTimeTooSkewed), jitter: 1, canCorrectClock: false) == .fail)
        #expect(state.next(after: S3Error(code: .requestTimeTooSkewed), jitter: 1, canCorrectClock: true) == .correctClockAndRetry)
        #expect(state.next(after: S3Error(code: .requestTimeTooSkewed), jitter: 1, canCorrectClock: true) == .fail)
        #expect(state.next(after: S3Error(code: .network), jitter: 1) == .retry(after: .milliseconds(10)))
        #expect(state.next(after: S3Error(code: .network), jitter: 1) == .fail)
    }

    @Test("invalid retry and transfer settings are refused with the setting named", arguments: [
        (S3Client.Configuration(retry: .init(maxAttempts: 0)), "maxAttempts is 0"),
        (S3Client.Configuration(retry: .init(baseDelay: .seconds(2), maxDelay: .seconds(1))), "maxDelay"),
        (S3Client.Configuration(transfer: .init(partSize: 1024)), "partSize is 1024 bytes"),
        (S3Client.Configuration(transfer: .init(concurrency: 0)), "concurrency is 0"),
        (S3Client.Configuration(transfer: .init(multipartThreshold: 0)), "multipartThreshold is 0"),
        (S3Client.Configuration(transfer: .init(downloadPartSize: 4096)), "downloadPartSize is 4096 bytes"),
        (S3Client.Configuration(transfer: .init(downloadConcurrency: 65)), "downloadConcurrency is 65"),
        (S3Client.Configuration(timeout: .zero), "timeout"),
    ])
    func invalidSettings(configuration: S3Client.Configuration, fragment: String) {
        let error = #expect(throws: S3Error.self) {
            try S3Client(configuration: configuration, credentialProvider: RotatingCredentialProvider(), environment: [:])
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "")")
    }

    // MARK: In process

    @Test("retries, a truncated body and clock correction run in process through the transport seam")
    func inProcess() async throws {
        let memory = MemoryS3()
        memory.store(Array("hello, world".utf8), key: "a.txt")
        let isGet: @Sendable (FaultServer.Request) -> Bool = { $0.method == "GET" && $0.path == "/bucket/a.txt" }
        memory.inject(.error(status: 503, code: "SlowDown"), when: isGet)
        memory.inject(.truncate(after: 3), when: isGet)
        let clock = TestClock()
        let client = try S3Client(
            configuration: .init(
                region: "eu-west-3", endpoint: "http://s3.in-process.test",
                retry: S3Client.Retry(maxAttempts: 4, baseDelay: .milliseconds(100), maxDelay: .seconds(1))),
            credentialProvider: RotatingCredentialProvider(), environment: [:],
            transport: InProcessS3Transport(handler: memory.handler), timeSource: clock.timeSource, jitter: { 1 })
        let object = try await client.getObject(bucket: "bucket", key: "a.txt")
        #expect(object.bytes == Array("hello, world".utf8))
        #expect(clock.sleeps == [.milliseconds(100), .milliseconds(200)])
        #expect(memory.log.filter { $0.method == "GET" }.count == 3)

        memory.inject(.errorWithHeaders(status: 403, code: "RequestTimeTooSkewed", headers: [("Date", "Sun, 06 Nov 1994 08:49:37 GMT")]), when: isGet)
        _ = try await client.getObject(bucket: "bucket", key: "a.txt")
        #expect(clock.sleeps.count == 2, "a skewed clock is corrected and retried at once")
        #expect(memory.log.filter { $0.method == "GET" }.count == 5)
    }
}
