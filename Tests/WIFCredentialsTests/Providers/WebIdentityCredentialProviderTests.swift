import Foundation
import Logging
import Synchronization
import Testing
@testable import WIFCredentials
import WIFHTTP
import WIFTestSupport

/// An STS stand-in: records each request's form parameters and answers with the next scripted reply,
/// or with fresh credentials valid for an hour on the test clock.
final class WebIdentityFakeSTS: HTTPTransport {
    enum Reply: Sendable {
        case credentials(accessKeyId: String)
        case error(code: String, status: Int)
    }

    struct Recorded: Sendable {
        var url: URL
        var parameters: [String: String]
    }

    private struct State {
        var requests: [Recorded] = []
        var replies: [Reply] = []
        var gate: [CheckedContinuation<Void, Never>]? = nil
    }

    private let state = Mutex(State())
    let clock: ManualTimeSource

    init(clock: ManualTimeSource, replies: [Reply] = []) {
        self.clock = clock
        self.state.withLock { $0.replies = replies }
    }

    var requests: [Recorded] { self.state.withLock { $0.requests } }
    var tokensSeen: [String] { self.requests.map { $0.parameters["WebIdentityToken"] ?? "" } }

    /// Holds every answer until ``open()``.
    func close() { self.state.withLock { $0.gate = [] } }

    func open() {
        let waiting = self.state.withLock { state in
            defer { state.gate = nil }
            return state.gate ?? []
        }
        for continuation in waiting { continuation.resume() }
    }

    func send(_ request: TransportRequest, timeout: Duration, maximumBodyBytes: Int, logger: Logger) async throws -> TransportResponse {
        var components = URLComponents()
        components.percentEncodedQuery = String(decoding: request.body, as: UTF8.self)
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] { parameters[item.name] = item.value ?? "" }
        let reply = self.state.withLock { state in
            state.requests.append(Recorded(url: request.url, parameters: parameters))
            return state.replies.isEmpty ? Reply.credentials(accessKeyId: "ASIAFAKE\(state.requests.count)") : state.replies.removeFirst()
        }
        await withCheckedContinuation { continuation in
            let held = self.state.withLock { state in
                guard state.gate != nil else { return false }
                state.gate?.append(continuation)
                return true
            }
            if !held { continuation.resume() }
        }
        switch reply {
        case .credentials(let accessKeyId):
            let expiration = self.clock.now.addingTimeInterval(3600).formatted(.iso8601)
            let session = parameters["RoleSessionName"] ?? ""
            let body = """
                <AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
                  <AssumeRoleWithWebIdentityResult>
                    <SubjectFromWebIdentityToken>user-1</SubjectFromWebIdentityToken>
                    <Audience>client-1</Audience>
                    <AssumedRoleUser>
                      <Arn>arn:aws:sts::123456789012:assumed-role/app-role/\(session)</Arn>
                      <AssumedRoleId>AROAEXAMPLE:\(session)</AssumedRoleId>
                    </AssumedRoleUser>
                    <Credentials>
                      <AccessKeyId>\(accessKeyId)</AccessKeyId>
                      <SecretAccessKey>fake-secret-key</SecretAccessKey>
                      <SessionToken>fake-session-token</SessionToken>
                      <Expiration>\(expiration)</Expiration>
                    </Credentials>
                    <Provider>issuer.example</Provider>
                  </AssumeRoleWithWebIdentityResult>
                  <ResponseMetadata><RequestId>req-\(accessKeyId)</RequestId></ResponseMetadata>
                </AssumeRoleWithWebIdentityResponse>
                """
            return TransportResponse(status: 200, body: Array(body.utf8))
        case .error(let code, let status):
            let body = """
                <ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
                  <Error><Type>Sender</Type><Code>\(code)</Code><Message>fake \(code)</Message></Error>
                  <RequestId>req-error</RequestId>
                </ErrorResponse>
                """
            return TransportResponse(status: status, body: Array(body.utf8))
        }
    }
}

@Suite struct WebIdentityCredentialProviderTests {
    static let roleArn = "arn:aws:iam::123456789012:role/app-role"

    func makeProvider(
        _ configuration: WebIdentityConfiguration,
        sts: WebIdentityFakeSTS,
        environment: [String: String] = [:]
    ) -> WebIdentityCredentialProvider {
        WebIdentityCredentialProvider(
            configuration: configuration,
            sts: .init(retry: .disabled),
            environment: environment,
            transport: sts,
            timeSource: sts.clock.timeSource,
            jitter: { 0 }
        )
    }

    @Test func assumesRoleWithTheFileToken() async throws {
        let directory = try TokenTestDirectory()
        let path = try directory.write("token", "token-from-file\n")
        let clock = ManualTimeSource()
        let sts = WebIdentityFakeSTS(clock: clock)
        let provider = self.makeProvider(
            WebIdentityConfiguration(roleArn: Self.roleArn, tokenSource: .file(path), region: "eu-west-1"),
            sts: sts
        )
        let credentials = try await provider.getCredentials(logger: .noop)
        #expect(credentials.accessKeyId == "ASIAFAKE1")
        #expect(credentials.secretAccessKey == "fake-secret-key")
        #expect(credentials.sessionToken == "fake-session-token")
        #expect(credentials.expiration == clock.now.addingTimeInterval(3600))
        #expect(credentials.accountId == "123456789012")

        let request = try #require(sts.requests.first)
        #expect(request.url.absoluteString == "https://sts.eu-west-1.amazonaws.com")
        #expect(request.parameters["Action"] == "AssumeRoleWithWebIdentity")
        #expect(request.parameters["RoleArn"] == Self.roleArn)
        #expect(request.parameters["WebIdentityToken"] == "token-from-file")
        #expect(request.parameters["RoleSessionName"] == "wif-1700000000000")
        #expect(provider.roleSessionName == "wif-1700000000000")
    }

    @Test func sendsEveryConfiguredParameter() async throws {
        let clock = ManualTimeSource()
        let sts = WebIdentityFakeSTS(clock: clock)
        let provider = self.makeProvider(
            WebIdentityConfiguration(
                roleArn: Self.roleArn,
                tokenSource: .string("EAAGfacebookAccessToken"),
                roleSessionName: "alice@example.com",
                durationSeconds: 900,
                providerId: "graph.facebook.com",
                policy: #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}"#,
                policyArns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"],
                stsEndpoint: "http://127.0.0.1:5000/"
            ),
            sts: sts,
            environment: ["AWS_ENDPOINT_URL_STS": "http://ignored.example"]
        )
        _ = try await provider.getCredentials(logger: .noop)
        let request = try #require(sts.requests.first)
        #expect(request.url.absoluteString == "http://127.0.0.1:5000/")
        #expect(request.parameters["RoleSessionName"] == "alice@example.com")
        #expect(request.parameters["DurationSeconds"] == "900")
        #expect(request.parameters["ProviderId"] == "graph.facebook.com")
        #expect(request.parameters["Policy"]?.contains("s3:GetObject") == true)
        #expect(request.parameters["PolicyArns.member.1.arn"] == "arn:aws:iam::aws:policy/ReadOnlyAccess")
        #expect(request.parameters["WebIdentityToken"] == "EAAGfacebookAccessToken")
    }

    @Test func environmentFillsWhatTheConfigurationLeavesOpen() async throws {
        let sts = WebIdentityFakeSTS(clock: ManualTimeSource())
        let provider = self.makeProvider(
            WebIdentityConfiguration(roleArn: Self.roleArn, tokenSource: .string("opaque-token")),
            sts: sts,
            environment: ["AWS_REGION": "ap-southeast-2"]
        )
        _ = try await provider.getCredentials(logger: .noop)
        #expect(sts.requests.first?.url.absoluteString == "https://sts.ap-southeast-2.amazonaws.com")
    }

    @Test func cachesUntilNearExpiry() async throws {
        let clock = ManualTimeSource()
        let sts = WebIdentityFakeSTS(clock: clock)
        let provider = self.makeProvider(WebIdentityConfiguration(roleArn: Self.roleArn, tokenSource: .string("opaque-token")), sts: sts)
        #expect(try await provider.getCredentials(logger: .noop).accessKeyId == "ASIAFAKE1")
        clock.advance(by: .seconds(600))
        #expect(try await provider.getCredentials(logger: .noop).accessKeyId == "ASIAFAKE1")
        #expect(sts.requests.count == 1)

        // Inside the advisory window (15 minutes before expiry for one-hour credentials).
        clock.advance(by: .seconds(2400))
        #expect(try await provider.getCredentials(logger: .noop).accessKeyId == "ASIAFAKE2")
        #expect(sts.requests.count == 2)
    }

    @Test func concurrentCallersShareOneCall() async throws {
        let sts = WebIdentityFakeSTS(clock: ManualTimeSource())
        sts.close()
        let provider = self.makeProvider(WebIdentityConfiguration(roleArn: Self.roleArn, tokenSource: .string("opaque-token")), sts: sts)
        let callers = Task {
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await provider.getCredentials(logger: .noop).accessKeyId }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
        }
        while sts.requests.isEmpty { await Task.yield() }
        sts.open()
        let keys = try await callers.value
        #expect(keys.count == 8)
        #expect(Set(keys) == ["ASIAFAKE1"])
        #expect(sts.requests.count == 1)
    }

    @Test func rotatedTokenFileIsReadOnTheNextRefresh() async throws {
        let directory = try TokenTestDirectory()
        let path = try directory.write("token", "token-AAAA")
        try directory.setModificationDate("token", Date(timeIntervalSince1970: 1_600_000_000))
        let clock = ManualTimeSource()
        let sts = WebIdentityFakeSTS(clock: clock)
        let provider = self.makeProvider(WebIdentityConfiguration(roleArn: Self.roleArn, tokenSource: .file(path)), sts: sts)
        _ = try await provider.getCredentials(logger: .noop)

        try directory.write("token", "token-BBBB-rotated")
        try directory.setModificationDate("token", Date(timeIntervalSince1970: 1_600_003_600))
        clock.advance(by: .seconds(3600))
        _ = try await provider.getCredentials(logger: .noop)
        #expect(sts.tokensSeen == ["token-AAAA", "token-BBBB-rotated"])
    }

    /// The file changed behind an unchanged size and modification time; STS rejects the stale token,
    /// and the forced re-read picks up the new one.
    @Test func rejectedTokenIsReadAgainBypassingTheCache() async throws {
        let directory = try TokenTestDirectory()
        let when = Date(timeIntervalSince1970: 1_600_000_000)
        let path = try directory.write("token", "token-AAAA")
        try directory.setModificationDate("token", when)
        let clock = ManualTimeSource()
        let sts = WebIdentityFakeSTS(clock: clock)
        let provider = self.makeProvider(WebIdentityConfiguration(roleArn: Self.roleArn, tokenSource: .file(path)), sts: sts)
        _ = try await provider.getCredentials(logger: .noop)

        try directory.write("token", "token-BBBB")
        try directory.setModificationDate("token", when)
        let replies: [WebIdentityFakeSTS.Reply] = [.error(code: "InvalidIdentityToken", status: 400), .credentials(accessKeyId: "ASIANEW")]
        let rejecting = WebIdentityFakeSTS(clock: clock, replies: replies)
        let second = self.makeProvider(WebIdentityConfiguration(roleArn: Self.roleArn, tokenSource: provider.configuration.tokenSource), sts: rejecting)
        #expect(try await second.getCredentials(logger: .noop).accessKeyId == "ASIANEW")
        #expect(rejecting.tokensSeen == ["token-AAAA", "token-BBBB"])
    }

    @Test func invalidateFetchesNewCredentials() async throws {
        let sts = WebIdentityFakeSTS(clock: ManualTimeSource())
        let provider = self.makeProvider(WebIdentityConfiguration(roleArn: Self.roleArn, tokenSource: .string("opaque-token")), sts: sts)
        #expect(try await provider.getCredentials(logger: .noop).accessKeyId == "ASIAFAKE1")
        await provider.invalidate(accessKeyId: "ASIAOTHER")
        #expect(try await provider.getCredentials(logger: .noop).accessKeyId == "ASIAFAKE1")
        await provider.invalidate(accessKeyId: "ASIAFAKE1")
        #expect(try await provider.getCredentials(logger: .noop).accessKeyId == "ASIAFAKE2")
        #expect(sts.requests.count == 2)
    }

    @Test func missingTokenFileIsReported() async throws {
        let directory = try TokenTestDirectory()
        let path = directory.path("absent")
        let sts = WebIdentityFakeSTS(clock: ManualTimeSource())
        let provider = self.makeProvider(WebIdentityConfiguration(roleArn: Self.roleArn, tokenSource: .file(path)), sts: sts)
        let error = await #expect(throws: WIFCredentialsError.tokenUnavailable("")) {
            try await provider.getCredentials(logger: .noop)
        }
        #expect(error?.reason == "web-identity token file '\(path)' does not exist")
        #expect(sts.requests.isEmpty)
    }

    @Test func accessDeniedIsReported() async throws {
        let sts = WebIdentityFakeSTS(clock: ManualTimeSource(), replies: [.error(code: "AccessDenied", status: 403)])
        let provider = self.makeProvider(WebIdentityConfiguration(roleArn: Self.roleArn, tokenSource: .string("opaque-token")), sts: sts)
        let error = await #expect(throws: WIFCredentialsError.service(AWSServiceError(code: "", httpStatus: 0))) {
            try await provider.getCredentials(logger: .noop)
        }
        #expect(error?.serviceError?.code == "AccessDenied")
        #expect(error?.serviceError?.httpStatus == 403)
    }

    @Test func badEndpointIsReportedWhenCredentialsAreAskedFor() async throws {
        let sts = WebIdentityFakeSTS(clock: ManualTimeSource())
        let provider = self.makeProvider(
            WebIdentityConfiguration(roleArn: Self.roleArn, tokenSource: .string("opaque-token"), stsEndpoint: "file:///etc/passwd"),
            sts: sts
        )
        let error = await #expect(throws: WIFCredentialsError.invalidConfiguration("")) {
            try await provider.getCredentials(logger: .noop)
        }
        #expect(error?.reason == "configured STS endpoint 'file:///etc/passwd' has scheme 'file'; STS endpoints must use http or https")
        #expect(sts.requests.isEmpty)
    }

    @Test func badParameterIsReported() async throws {
        let sts = WebIdentityFakeSTS(clock: ManualTimeSource())
        let provider = self.makeProvider(
            WebIdentityConfiguration(roleArn: Self.roleArn, tokenSource: .string("opaque-token"), roleSessionName: "has space"),
            sts: sts
        )
        let error = await #expect(throws: WIFCredentialsError.invalidParameter("")) {
            try await provider.getCredentials(logger: .noop)
        }
        #expect(error?.reason.hasPrefix("RoleSessionName 'has space'") == true)
        #expect(sts.requests.isEmpty)
    }

    @Test func factoryBuildsTheProvider() throws {
        let opaque: some CredentialProvider = .webIdentity(
            roleArn: Self.roleArn,
            tokenSource: .file("/var/run/token"),
            roleSessionName: "svc",
            region: "us-west-2"
        )
        let provider = try #require(opaque as? WebIdentityCredentialProvider)
        #expect(provider.configuration.region == "us-west-2")
        #expect(provider.roleSessionName == "svc")
        #expect((provider.configuration.tokenSource as? FileTokenSource)?.path == "/var/run/token")
        let fromConfiguration: WebIdentityCredentialProvider = .webIdentity(provider.configuration)
        #expect(fromConfiguration.configuration.roleArn == Self.roleArn)
    }

    @Test func descriptionHidesTokenAndCredentials() async throws {
        let sts = WebIdentityFakeSTS(clock: ManualTimeSource())
        let provider = self.makeProvider(
            WebIdentityConfiguration(roleArn: Self.roleArn, tokenSource: .string("secret-token-value"), roleSessionName: "svc"),
            sts: sts
        )
        _ = try await provider.getCredentials(logger: .noop)
        #expect(provider.description == "WebIdentityCredentialProvider(roleArn: \(Self.roleArn), roleSessionName: svc, tokenSource: StringTokenSource)")
        #expect(!provider.description.contains("secret"))
        #expect(!provider.description.contains("fake-"))
    }
}
