import AccessRules
import Foundation
import Logging
import Synchronization
import Testing
import WIFCredentials
import WIFFoundation
import WIFHTTP
import WIFSigV4
import WIFTestSupport
@testable import WIFAPIClient

/// The client's request building and fallback, against a transport that records what is sent and answers
/// as told.
@Suite struct APIClientTests {
    final class RecordingTransport: HTTPTransport {
        let answers: @Sendable (TransportRequest) -> TransportResponse
        let sent = Mutex<[TransportRequest]>([])

        init(_ answers: @escaping @Sendable (TransportRequest) -> TransportResponse) {
            self.answers = answers
        }

        func send(_ request: TransportRequest, timeout: Duration, maximumBodyBytes: Int, logger: Logger) async throws -> TransportResponse {
            self.sent.withLock { $0.append(request) }
            return self.answers(request)
        }
    }

    struct FixedToken: APITokenProvider {
        let token: String
        func latestToken() async throws -> String { self.token }
    }

    /// Records what the request held when it ran, and adds a header.
    final class Seen: Sendable {
        let entries = Mutex<[String]>([])
    }

    struct Stamp: APIRequestInterceptor {
        let seen: Seen
        func intercept(_ request: inout APIRequest, mode: APIAuthorizationMode) async throws {
            self.seen.entries.withLock { $0.append("\(mode):\(request.header("x-api-key") ?? "-"):\(request.header("x-custom") ?? "-")") }
            request.setHeader("x-stamp", "1")
        }
    }

    struct Refuse: APIRequestInterceptor {
        struct No: Error {}
        func intercept(_ request: inout APIRequest, mode: APIAuthorizationMode) async throws { throw No() }
    }

    static let endpoint = APIEndpoint(
        name: "api", kind: .rest, url: URL(string: "https://api.example.com/prod")!, region: "eu-west-1", defaultMode: .apiKey,
        modes: [.iam, .userPools], apiKey: "da2-key")

    static func client(
        _ transport: RecordingTransport, credentials: APIClientCredentials = APIClientCredentials(), interceptors: [any APIRequestInterceptor] = []
    ) -> APIClient {
        APIClient(
            endpoint: Self.endpoint, credentials: credentials, customHeaders: [("x-custom", "c")], interceptors: interceptors, timeout: .seconds(5),
            transport: transport)
    }

    static let credentials = StaticCredentialProvider(
        credentials: AWSCredentials(accessKeyId: "ASIAEXAMPLE", secretAccessKey: "secret", sessionToken: "token"))

    @Test func interceptorsRunAfterTheModeAndBeforeSigning() async throws {
        let transport = RecordingTransport { _ in TransportResponse(status: 200, body: []) }
        let seen = Seen()
        let client = Self.client(transport, credentials: APIClientCredentials(iam: Self.credentials), interceptors: [Stamp(seen: seen)])
        _ = try await client.send("GET", "/items", mode: .apiKey)
        _ = try await client.send("GET", "/items", mode: .iam)
        #expect(seen.entries.withLock { $0 } == ["API_KEY:da2-key:c", "AWS_IAM:-:c"])
        let signed = try #require(transport.sent.withLock { $0.last })
        let authorization = try #require(signed.header("Authorization"))
        // SigV4 came last: it signed the interceptor's header, for the host the request goes to, as execute-api.
        #expect(authorization.contains("x-stamp"))
        #expect(authorization.contains("/eu-west-1/execute-api/aws4_request"))
        #expect(signed.url.absoluteString == "https://api.example.com/prod/items")
        #expect(signed.header("x-amz-security-token") == "token")
    }

    /// A request names the package and its version, as the SDKs name themselves, unless the caller named
    /// its own client; the name is not signed, so adding it leaves the signature valid.
    @Test func requestsNameThePackageUnlessTheCallerDid() async throws {
        let transport = RecordingTransport { _ in TransportResponse(status: 200, body: []) }
        let client = Self.client(transport, credentials: APIClientCredentials(iam: Self.credentials))
        _ = try await client.send("GET", "/items", mode: .iam)
        _ = try await client.send("GET", "/items", headers: [("user-agent", "my-app/2.0")], mode: .apiKey)
        let sent = transport.sent.withLock { $0 }
        #expect(sent.map { $0.header("User-Agent") } == ["swift-wif/" + SwiftWIFVersion.current, "my-app/2.0"])
        #expect(sent.last.map { $0.headers.filter { $0.name.lowercased() == "user-agent" }.count } == 1)
        let authorization = try #require(sent.first?.header("Authorization"))
        #expect(!authorization.lowercased().contains("user-agent"))
    }

    /// Sends the request through a proxy, as a custom domain or a corporate proxy does.
    struct Proxy: APIRequestInterceptor {
        func intercept(_ request: inout APIRequest, mode: APIAuthorizationMode) async throws {
            var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
            components?.host = "proxy.example.net"
            if let url = components?.url { request.url = url }
        }
    }

    @Test func sigV4SignsTheHostTheRequestGoesTo() async throws {
        let transport = RecordingTransport { _ in TransportResponse(status: 200, body: []) }
        let client = Self.client(transport, credentials: APIClientCredentials(iam: Self.credentials), interceptors: [Proxy()])
        _ = try await client.send("GET", "/items", mode: .iam)
        let sent = try #require(transport.sent.withLock { $0.first })
        #expect(sent.url.host == "proxy.example.net")
        // Signing the proxy's request again at the same time gives the same signature: it covers the
        // proxy's host, which is what the server behind it sees (signing the configured host fails there).
        let amzDate = try #require(sent.header("x-amz-date"))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let date = try #require(formatter.date(from: amzDate))
        let credentials = try await Self.credentials.getCredentials()
        let signer = SigV4Signer(credentials: credentials, region: "eu-west-1", service: "execute-api")
        let unsigned = sent.headers.filter { !["authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256", "host"].contains($0.name.lowercased()) }
        var again = try SigV4Request(method: "GET", url: sent.url, headers: unsigned.map { SigV4Request.Header($0.name, $0.value) })
        try signer.sign(&again, payload: .bytes([UInt8]()), date: date)
        let expected = again.headers.first { $0.name.lowercased() == "authorization" }?.value
        #expect(sent.header("Authorization") == expected)
        var configured = try SigV4Request(method: "GET", url: URL(string: "https://api.example.com/prod/items")!, headers: unsigned.map { SigV4Request.Header($0.name, $0.value) })
        try signer.sign(&configured, payload: .bytes([UInt8]()), date: date)
        #expect(configured.headers.first { $0.name.lowercased() == "authorization" }?.value != expected)
    }

    @Test func anInterceptorMayRefuse() async {
        let transport = RecordingTransport { _ in TransportResponse(status: 200, body: []) }
        await #expect(throws: APIClientError.self) {
            _ = try await Self.client(transport, interceptors: [Refuse()]).send("GET", "/items")
        }
        #expect(transport.sent.withLock { $0.isEmpty })
    }

    @Test func tokensGoInAuthorizationWithoutBearer() async throws {
        let transport = RecordingTransport { _ in TransportResponse(status: 200, body: []) }
        let client = Self.client(transport, credentials: APIClientCredentials(userPoolTokens: FixedToken(token: "eyJ.a.b")))
        let result = try await client.send("GET", "/items", mode: .userPools)
        #expect(result.mode == .userPools)
        #expect(transport.sent.withLock { $0.first?.header("Authorization") } == "eyJ.a.b")
    }

    @Test func noFallbackAfterAServerError() async throws {
        let transport = RecordingTransport { request in
            TransportResponse(status: request.header("Authorization") != nil ? 500 : 200, body: Array(#"{"errorType":"InternalFailure"}"#.utf8))
        }
        let client = Self.client(transport, credentials: APIClientCredentials(userPoolTokens: FixedToken(token: "t")))
        let result = try await client.send("GET", "/items", modes: [.userPools, .apiKey])
        #expect(result.response.status == 500)
        #expect(result.attempts == [APIAttempt(mode: .userPools, outcome: .answered(status: 500))])
    }

    @Test func fallbackAfter401AndAnAuthorization403() async throws {
        let transport = RecordingTransport { request in
            if request.header("Authorization") != nil {
                return TransportResponse(status: 401, headers: [("x-amzn-ErrorType", "UnauthorizedException")], body: [])
            }
            if request.header("x-api-key") != nil { return TransportResponse(status: 403, body: Array(#"{"errorType":"ForbiddenException"}"#.utf8)) }
            return TransportResponse(status: 200, body: [])
        }
        let client = Self.client(transport, credentials: APIClientCredentials(userPoolTokens: FixedToken(token: "t")))
        let recorder = TestLogRecorder()
        let result = try await client.send("GET", "/items", modes: [.userPools, .apiKey, .none], logger: recorder.logger(level: .debug))
        #expect(result.mode == .none)
        #expect(result.attempts.map(\.outcome) == [.unauthorized(status: 401), .unauthorized(status: 403), .answered(status: 200)])
        // Every attempt is logged at debug with its mode and outcome, and never the token.
        let attempts = recorder.records.filter { $0.message == "api attempt" }
        #expect(attempts.map { $0.metadata["wif.api.mode"] } == ["AMAZON_COGNITO_USER_POOLS", "API_KEY", "NONE"])
        #expect(attempts.map { $0.metadata["wif.api.status"] } == ["401", "403", "200"])
        #expect(attempts.allSatisfy { $0.level == .debug })
        #expect(!recorder.text.contains("da2-"))
        // A failed condition is the data's answer, not the credentials': no fallback.
        let conditional = RecordingTransport { _ in
            TransportResponse(status: 403, body: Array(#"{"errorType":"ConditionalCheckFailedException"}"#.utf8))
        }
        let once = try await Self.client(conditional).send("PUT", "/items/1", modes: [.apiKey, .none])
        #expect(once.attempts.count == 1)
    }

    @Test func modesWithoutCredentialsAreSkippedAndNamed() async throws {
        let transport = RecordingTransport { _ in TransportResponse(status: 200, body: []) }
        var endpoint = Self.endpoint
        endpoint.apiKey = nil
        let client = APIClient(endpoint: endpoint, credentials: APIClientCredentials(), customHeaders: [], interceptors: [], timeout: .seconds(5), transport: transport)
        do {
            _ = try await client.send("GET", "/items", modes: [.userPools, .iam, .apiKey])
            Issue.record("sent without credentials")
        } catch {
            #expect(error.attempts.count == 3)
            #expect(error.message.contains("AMAZON_COGNITO_USER_POOLS: no user pool token (not signed in to a user pool)"))
            #expect(error.message.contains("API_KEY: no API key"))
        }
        #expect(transport.sent.withLock { $0.isEmpty })
    }
}
