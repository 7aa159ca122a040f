import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization
import Testing
import WIFCredentials

@testable import WIFLocal
import WIFTestSupport

extension TestClock {
    /// 2024-05-01T12:00:00Z, where the authentication and STS tests' clocks start.
    static let signingStart: Int64 = 1_714_564_800

    /// A clock for the authentication and STS tests, at ``signingStart``.
    static func signing() -> TestClock { TestClock(now: Date(timeIntervalSince1970: TimeInterval(Self.signingStart))) }
}

/// A stack state in its own temporary data directory with administrator credentials and a hand-moved
/// clock, and functions that sign hummingbird requests with WIFCredentials' signer.
final class SigningFixture: Sendable {
    static let admin = AdminCredentials(accessKeyId: "AKIAWIFLOCALADMIN001", secretAccessKey: "wif-local-admin-secret-0123456789abcdef")
    static let host = "127.0.0.1:9000"

    let directory: String
    let clock: TestClock
    let state: LocalState
    let authenticator: RequestAuthenticator

    init(configure: (inout LocalConfiguration) -> Void = { _ in }) throws {
        let directory = TemporaryFolder.url("wif-signing").path
        var configuration = LocalConfiguration.default(dataDirectory: directory)
        configuration.adminCredentials = Self.admin
        configure(&configuration)
        self.directory = directory
        self.clock = TestClock.signing()
        self.state = try LocalState(configuration: configuration, timeSource: self.clock.timeSource, logger: Logger(label: "wif.test.signing"))
        self.authenticator = RequestAuthenticator(state: self.state)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: self.directory)
    }

    var adminCredentials: AWSCredentials {
        AWSCredentials(accessKeyId: Self.admin.accessKeyId, secretAccessKey: Self.admin.secretAccessKey)
    }

    /// A session of the facebook role sealed by the stack, and credentials that use it.
    func session(expiresIn lifetime: Int64 = 3600, user: String = "1001") throws -> (session: LocalSession, credentials: AWSCredentials) {
        let roleArn = "arn:aws:iam::000000000000:role/personal-store-facebook"
        let session = LocalSession(
            accessKeyId: SessionCodec.makeAccessKeyId(), secretAccessKey: SessionCodec.makeSecretAccessKey(),
            issuedAt: self.clock.seconds, expiresAt: self.clock.seconds + lifetime, roleArn: roleArn, roleId: "AROAEXAMPLEROLEID0001",
            sessionName: "app-\(user)", identity: IdentityRecord(kind: .facebook, subject: user, audiences: ["100000000000001"]))
        let token = try self.state.sessions.seal(session)
        return (session, AWSCredentials(accessKeyId: session.accessKeyId, secretAccessKey: session.secretAccessKey, sessionToken: token))
    }

    // MARK: Signing

    /// Signs a request with an `Authorization` header at the fixture's time (or `date`).
    func signed(
        _ method: String = "GET", path: String = "/wif-personal/facebook/1001/notes.txt", query: String = "",
        headers: [SigV4Request.Header] = [], body: [UInt8] = [], credentials: AWSCredentials? = nil, service: String = "s3",
        region: String = "us-east-1", rules: SigV4Signer.Rules? = nil, date: Date? = nil
    ) throws -> SigV4Request {
        var request = SigV4Request(method: method, scheme: "http", host: Self.host, path: path, query: query, headers: headers)
        let signer = SigV4Signer(credentials: credentials ?? self.adminCredentials, region: region, service: service, rules: rules)
        try signer.sign(&request, payload: .bytes(body), date: date ?? self.clock.now)
        return request
    }

    /// A presigned URL's path and query at the fixture's time (or `date`).
    func presigned(
        _ method: String = "GET", path: String = "/wif-personal/facebook/1001/notes.txt", query: String = "",
        credentials: AWSCredentials? = nil, service: String = "s3", region: String = "us-east-1", expires: Int = 900,
        date: Date? = nil
    ) throws -> String {
        let request = SigV4Request(method: method, scheme: "http", host: Self.host, path: path, query: query)
        let signer = SigV4Signer(credentials: credentials ?? self.adminCredentials, region: region, service: service)
        let url = try signer.presign(request, date: date ?? self.clock.now, expires: expires)
        return String(url.dropFirst("http://\(Self.host)".count))
    }

    /// The hummingbird request a client would send for a signed request.
    static func request(_ signed: SigV4Request, body: [UInt8] = []) -> Request {
        let target = signed.path + (signed.query.isEmpty ? "" : "?" + signed.query)
        return self.request(signed.method, target: target, headers: signed.headers.map { ($0.name, $0.value) }, body: body)
    }

    /// A hummingbird request from its parts; a `Host` header becomes the authority, as HTTP/1 servers do.
    static func request(
        _ method: String, target: String, host: String? = SigningFixture.host, headers: [(String, String)] = [], body: [UInt8] = []
    ) -> Request {
        var fields = HTTPFields()
        var authority = host
        for (name, value) in headers {
            if name.lowercased() == "host" {
                authority = value
                continue
            }
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        let head = HTTPRequest(
            method: HTTPRequest.Method(method) ?? .get, scheme: "http", authority: authority, path: target, headerFields: fields)
        return Request(head: head, body: RequestBody(buffer: ByteBuffer(bytes: body)))
    }
}

extension SigV4Request {
    /// The request with one header's value replaced, or the header added.
    func replacing(_ name: String, with value: String) -> SigV4Request {
        var copy = self
        if let index = copy.headers.firstIndex(where: { $0.name.lowercased() == name.lowercased() }) {
            copy.headers[index].value = value
        } else {
            copy.headers.append(.init(name, value))
        }
        return copy
    }
}

/// Runs `body`, expecting an AWS error, and returns it.
func expectAWSError(
    _ sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> AWSErrorResponse? {
    do {
        try body()
        Issue.record("expected an AWS error, got success", sourceLocation: sourceLocation)
    } catch let error as AWSErrorResponse {
        return error
    } catch {
        Issue.record("expected an AWS error, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

extension AWSErrorResponse {
    /// The value of an S3 error detail.
    func detailValue(_ name: String) -> String? {
        self.details.first { $0.0 == name }?.1
    }
}
