import Foundation
import Logging
import Testing
import WIFFoundation
import WIFHTTP

@testable import WIFCredentials
import WIFTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The client over real HTTP: against moto (a third-party STS), and against ports that refuse or
/// never answer.
@Suite struct STSClientPeerTests {
    static let roleName = "wif-web-users"
    static let roleArn = "arn:aws:iam::123456789012:role/\(roleName)"

    /// A token shaped like an OIDC ID token (moto checks no signature), expiring in an hour.
    static func jwtShapedToken(subject: String) -> String {
        func base64URL(_ text: String) -> String {
            Data(text.utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let expiry = Int(Date().timeIntervalSince1970) + 3600
        let header = base64URL(#"{"alg":"RS256","kid":"test-key","typ":"JWT"}"#)
        let claims = base64URL(#"{"iss":"https://accounts.example.com","sub":"\#(subject)","aud":"wif-tests","exp":\#(expiry)}"#)
        return "\(header).\(claims).c2lnbmF0dXJlLW5vdC1jaGVja2VkLWJ5LW1vdG8"
    }

    @Test(.enabled(if: MotoServer.isAvailable, MotoServer.skipReason), .timeLimit(.minutes(2)))
    func federatesThroughMoto() async throws {
        try await MotoServer.withServer { server in
            let client = try STSClient(
                configuration: .init(region: "us-east-1", endpoint: server.endpoint.absoluteString, retry: .disabled),
                environment: [:]
            )
            let request = AssumeRoleWithWebIdentityRequest(
                roleArn: Self.roleArn,
                roleSessionName: "alice@example.com",
                durationSeconds: 900,
                policy: #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::shared/users/alice/*"}]}"#,
                policyArns: ["arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess"]
            )
            let token = Self.jwtShapedToken(subject: "alice")
            let recorder = TestLogRecorder()
            let before = Date()
            let result = try await client.assumeRoleWithWebIdentity(request, tokenSource: .string(token), logger: recorder.logger)

            let credentials = result.credentials
            #expect(credentials.accessKeyId.hasPrefix("ASIA"))
            #expect(credentials.accessKeyId.count == 20)
            #expect(credentials.secretAccessKey.count >= 40)
            #expect((credentials.sessionToken?.count ?? 0) > 100)
            #expect(credentials.accountId == "123456789012")
            #expect(result.assumedRoleUser?.arn == "arn:aws:sts::123456789012:assumed-role/\(Self.roleName)/alice@example.com")
            #expect(result.assumedRoleUser?.assumedRoleId?.hasSuffix(":alice@example.com") == true)
            #expect(result.packedPolicySize != nil)
            #expect(result.requestId?.isEmpty == false)
            // moto grants DurationSeconds from its own clock, which is this machine's.
            let lifetime = result.serverExpiration.timeIntervalSince(before)
            #expect(lifetime > 0 && lifetime <= 900 + 60, "lifetime \(lifetime)")
            // Same machine, so the skew is the Date header's rounding to whole seconds plus however long the
            // answer took to arrive (seconds, on a loaded machine).
            let elapsed = Date().timeIntervalSince(before)
            let skew = try #require(result.clockSkew)
            #expect(abs(skew) < 1.5 + elapsed, "skew \(skew) after \(elapsed) s")
            #expect(credentials.expiration == result.serverExpiration.addingTimeInterval(-skew))

            #expect(!result.description.contains(credentials.secretAccessKey))
            #expect(!recorder.text.contains(token))
            #expect(!recorder.text.contains(credentials.secretAccessKey))
            #expect(recorder.records.contains { $0.metadata["wif.sts.request_id"] == result.requestId })

            // The environment's endpoint reaches the same server; every call yields new keys.
            let viaEnvironment = try STSClient(
                configuration: .init(region: "us-east-1", retry: .disabled),
                environment: ["AWS_ENDPOINT_URL_STS": server.endpoint.absoluteString]
            )
            let second = try await viaEnvironment.assumeRoleWithWebIdentity(
                AssumeRoleWithWebIdentityRequest(roleArn: Self.roleArn, roleSessionName: "bob"),
                webIdentityToken: Self.jwtShapedToken(subject: "bob")
            )
            #expect(second.assumedRoleUser?.arn == "arn:aws:sts::123456789012:assumed-role/\(Self.roleName)/bob")
            #expect(second.credentials.accessKeyId != credentials.accessKeyId)
        }
    }

    /// The credentials STS hands out work: moto, with request authentication switched on after
    /// federation, accepts S3 requests signed with them and refuses a wrong secret or session token.
    @Test(.enabled(if: MotoServer.isAvailable, MotoServer.skipReason), .timeLimit(.minutes(2)))
    func federatedCredentialsSignS3RequestsMotoAccepts() async throws {
        try await MotoServer.withServer { server in
            let http = AsyncHTTPClientTransport()
            // With authentication still off, moto takes any signature and routes by its scope: set up
            // the role the session will act as, with an inline policy allowing S3.
            let setup = SigV4Signer(
                credentials: AWSCredentials(accessKeyId: "AKIDSETUPEXAMPLE", secretAccessKey: "setup-secret"),
                region: "us-east-1",
                service: "iam"
            )
            let trust = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"accounts.example.com"},"Action":"sts:AssumeRoleWithWebIdentity"}]}"#
            let allowS3 = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}"#
            for form in [
                [("Action", "CreateRole"), ("Version", "2010-05-08"), ("RoleName", Self.roleName), ("AssumeRolePolicyDocument", trust)],
                [("Action", "PutRolePolicy"), ("Version", "2010-05-08"), ("RoleName", Self.roleName), ("PolicyName", "s3"), ("PolicyDocument", allowS3)],
            ] {
                let body = Array(PercentEncoding.form(form.map { (name: $0.0, value: $0.1) }).utf8)
                let response = try await Self.send(
                    http, "POST", server.endpoint, body: body,
                    headers: [.init("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")], signer: setup
                )
                #expect(response.status == 200, "\(form[0].1): \(String(decoding: response.body, as: UTF8.self))")
            }

            let sts = try STSClient(configuration: .init(endpoint: server.endpoint.absoluteString, retry: .disabled), environment: [:])
            let result = try await sts.assumeRoleWithWebIdentity(
                AssumeRoleWithWebIdentityRequest(roleArn: Self.roleArn, roleSessionName: "alice"),
                webIdentityToken: Self.jwtShapedToken(subject: "alice")
            )

            // From here on moto checks every signature.
            let reset = try await Self.send(
                http, "POST", server.endpoint.appendingPathComponent("moto-api/reset-auth"), body: Array("0".utf8),
                headers: [.init("Content-Type", "text/plain")], signer: nil
            )
            #expect(reset.status == 200)

            let s3 = SigV4Signer(credentials: result.credentials, region: "us-east-1", service: "s3")
            let bucket = server.endpoint.appendingPathComponent("wif-shared")
            let object = bucket.appendingPathComponent("users/alice/hello.txt")
            let created = try await Self.send(http, "PUT", bucket, body: [], signer: s3)
            #expect(created.status == 200, "CreateBucket: \(String(decoding: created.body, as: UTF8.self))")
            let put = try await Self.send(http, "PUT", object, body: Array("hello from alice".utf8), signer: s3)
            #expect(put.status == 200, "PutObject: \(String(decoding: put.body, as: UTF8.self))")
            let get = try await Self.send(http, "GET", object, body: [], signer: s3)
            #expect(get.status == 200)
            #expect(String(decoding: get.body, as: UTF8.self) == "hello from alice")

            var wrongSecret = result.credentials
            wrongSecret.secretAccessKey = String(wrongSecret.secretAccessKey.reversed())
            let forged = try await Self.send(
                http, "GET", object, body: [], signer: SigV4Signer(credentials: wrongSecret, region: "us-east-1", service: "s3")
            )
            #expect(forged.status == 403)
            #expect(String(decoding: forged.body, as: UTF8.self).contains("<Code>SignatureDoesNotMatch</Code>"))

            var wrongToken = result.credentials
            wrongToken.sessionToken = "not-the-session-token"
            let stale = try await Self.send(
                http, "GET", object, body: [], signer: SigV4Signer(credentials: wrongToken, region: "us-east-1", service: "s3")
            )
            #expect(stale.status == 400 || stale.status == 403)
            #expect(String(decoding: stale.body, as: UTF8.self).contains("<Code>InvalidToken</Code>"))
        }
    }

    /// Sends one request over HTTP, signed when a signer is given.
    static func send(
        _ transport: AsyncHTTPClientTransport,
        _ method: String,
        _ url: URL,
        body: [UInt8],
        headers: [SigV4Request.Header] = [],
        signer: SigV4Signer?
    ) async throws -> TransportResponse {
        var request = try SigV4Request(method: method, url: url, headers: headers)
        if let signer {
            try signer.sign(&request, payload: .bytes(body), date: Date())
        }
        return try await transport.send(
            TransportRequest(url: url, method: method, headers: request.headers.map { (name: $0.name, value: $0.value) }, body: body),
            timeout: .seconds(30),
            maximumBodyBytes: 1 << 20,
            logger: Logger.noop
        )
    }

    @Test func refusedConnectionIsANetworkError() async throws {
        // Port 0's pick is closed again at once, so nothing listens there.
        let port = try Loopback.freePort()
        let client = try STSClient(
            configuration: .init(region: "us-east-1", endpoint: "http://127.0.0.1:\(port)", retry: .disabled, timeout: .seconds(30)),
            environment: [:]
        )
        do {
            _ = try await client.assumeRoleWithWebIdentity(.sample, webIdentityToken: "abcd.efgh.ijkl")
            Issue.record("expected a network error")
        } catch let error as WIFCredentialsError {
            #expect(error.code == .network)
            #expect(error.reason == "could not reach STS at 127.0.0.1:\(port): connection refused")
            #expect(error.recovery == .retryWithBackoff)
        }
    }

    @Test(.timeLimit(.minutes(4)))
    func silentServerTimesOut() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let client = try STSClient(
            configuration: .init(region: "us-east-1", endpoint: "http://127.0.0.1:\(listener.port)", retry: .disabled, timeout: .milliseconds(300)),
            environment: [:]
        )
        do {
            _ = try await client.assumeRoleWithWebIdentity(.sample, webIdentityToken: "abcd.efgh.ijkl")
            Issue.record("expected a timeout")
        } catch let error as WIFCredentialsError {
            #expect(error.code == .network)
            #expect(error.reason.contains("127.0.0.1"))
        }
    }
}

/// A loopback socket that listens but never reads or answers: connections queue in its backlog.
private final class SilentListener: Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        #if canImport(Glibc)
        let streamType = Int32(SOCK_STREAM.rawValue)
        #else
        let streamType = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, streamType, 0)
        guard descriptor >= 0 else { throw MotoServerError(description: "socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && listen(descriptor, 8) == 0
                    && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard ready else {
            Self.closeDescriptor(descriptor)
            throw MotoServerError(description: "could not listen on a loopback port")
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        Self.closeDescriptor(self.descriptor)
    }

    private static func closeDescriptor(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }
}
