import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Testing
import WIFCredentials

@testable import WIFLocal
import WIFFoundation
import WIFTestSupport

/// An S3 endpoint in its own temporary data directory, with administrator credentials, a fixed clock and
/// helpers that sign requests with WIFCredentials' signer and read the answers.
final class S3Fixture: Sendable {
    static let admin = AdminCredentials(accessKeyId: "AKIAS3TESTADMIN00001", secretAccessKey: "s3-test-admin-secret-0123456789abcdefghij")
    static let host = "127.0.0.1:9000"
    /// 2024-05-01T12:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_714_564_800)
    static let bucket = LocalConfiguration.defaultBucket

    let directory: String
    let state: LocalState
    let service: S3Service

    init(configure: (inout LocalConfiguration) -> Void = { _ in }) throws {
        let directory = TemporaryFolder.url("wif-s3").path
        var configuration = LocalConfiguration.default(dataDirectory: directory)
        configuration.adminCredentials = Self.admin
        configure(&configuration)
        self.directory = directory
        self.state = try LocalState(
            configuration: configuration, timeSource: TimeSource(now: { S3Fixture.now }, sleep: { _ in }),
            logger: Logger(label: "wif.test.s3"))
        var storeConfiguration = ObjectStore.Configuration()
        storeConfiguration.synchronizeWrites = false
        storeConfiguration.minimumPartSize = 5
        let store = try ObjectStore(state: self.state, configuration: storeConfiguration)
        self.service = try S3Service(state: self.state, authenticator: RequestAuthenticator(state: self.state), store: store)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: self.directory)
    }

    var adminCredentials: AWSCredentials {
        AWSCredentials(accessKeyId: Self.admin.accessKeyId, secretAccessKey: Self.admin.secretAccessKey)
    }

    /// A session of a provider profile's personal-store role, sealed by the stack, and its credentials.
    func credentials(_ kind: ProviderProfile.Kind, user: String, sessionPolicy: String? = nil) throws -> AWSCredentials {
        let profile = try #require(self.state.configuration.provider(named: kind.rawValue))
        let session = LocalSession(
            accessKeyId: SessionCodec.makeAccessKeyId(), secretAccessKey: SessionCodec.makeSecretAccessKey(),
            issuedAt: Int64(Self.now.timeIntervalSince1970) - 60, expiresAt: Int64(Self.now.timeIntervalSince1970) + 3600,
            roleArn: "arn:aws:iam::000000000000:role/personal-store-\(kind.rawValue)", roleId: "AROAEXAMPLEROLEID0001",
            sessionName: "\(user)-session",
            identity: IdentityRecord(kind: kind, issuer: profile.issuer, subject: user, audiences: profile.clientIds),
            sessionPolicy: sessionPolicy)
        let token = try self.state.sessions.seal(session)
        return AWSCredentials(accessKeyId: session.accessKeyId, secretAccessKey: session.secretAccessKey, sessionToken: token)
    }

    /// Signs a request as a client would (`x-amz-content-sha256` of `payload`, by default the body's hash), sends
    /// it to the service and reads the whole answer.
    func send(
        _ method: String, _ path: String, query: String = "", headers: [(String, String)] = [], body: [UInt8] = [],
        as credentials: AWSCredentials, payload: SigV4Signer.Payload? = nil, host: String = S3Fixture.host,
        bodyPieceSize: Int = 64 * 1024, sourceIp: String? = nil
    ) async throws -> S3Reply {
        var request = SigV4Request(
            method: method, scheme: "http", host: host, path: path, query: query,
            headers: headers.map { SigV4Request.Header($0.0, $0.1) })
        let signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3")
        try signer.sign(&request, payload: payload ?? .bytes(body), date: Self.now)
        return try await self.deliver(request, body: body, bodyPieceSize: bodyPieceSize, sourceIp: sourceIp)
    }

    /// Sends a request whose payload hash is a marker the signer does not produce (`STREAMING-…`), signing it
    /// with WIFCredentials' canonicalisation.
    func sendSigned(
        _ method: String, _ path: String, query: String = "", headers: [(String, String)], body: [UInt8], payloadHash: String,
        as credentials: AWSCredentials
    ) async throws -> (reply: S3Reply, seedSignature: String) {
        let amzDate = "20240501T120000Z"
        var all = headers.map { SigV4Request.Header($0.0, $0.1) }
        all.append(.init("Host", Self.host))
        all.append(.init("X-Amz-Date", amzDate))
        all.append(.init("X-Amz-Content-SHA256", payloadHash))
        if let token = credentials.sessionToken { all.append(.init("X-Amz-Security-Token", token)) }
        let names = all.map { $0.name.lowercased() }.sorted()
        let canonical = try SigV4Canonical.canonicalRequest(
            method: method, path: path, query: query, headers: all, signedHeaderNames: names, payloadHash: payloadHash, rules: .s3)
        let scope = "20240501/us-east-1/s3/aws4_request"
        let stringToSign = SigV4Canonical.stringToSign(canonicalRequest: canonical, amzDate: amzDate, scope: scope)
        let key = SigV4SigningKey(secretAccessKey: credentials.secretAccessKey, day: "20240501", region: "us-east-1", service: "s3")
        let signature = SigV4Canonical.signature(stringToSign: stringToSign, key: key)
        all.append(
            .init(
                "Authorization",
                "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyId)/\(scope), SignedHeaders=\(names.joined(separator: ";")), Signature=\(signature)"
            ))
        let request = SigV4Request(method: method, scheme: "http", host: Self.host, path: path, query: query, headers: all)
        return (try await self.deliver(request, body: body, bodyPieceSize: 1000), signature)
    }

    /// A presigned URL's path and query.
    func presigned(_ method: String, _ path: String, as credentials: AWSCredentials, expires: Int = 900) throws -> (path: String, query: String) {
        let request = SigV4Request(method: method, scheme: "http", host: Self.host, path: path)
        let signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3")
        let url = try signer.presign(request, date: Self.now, expires: expires)
        let target = url.dropFirst("http://\(Self.host)".count)
        let parts = target.split(separator: "?", maxSplits: 1)
        return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
    }

    /// Sends a request without signing it further.
    func deliver(
        _ signed: SigV4Request, body: [UInt8] = [], bodyPieceSize: Int = 64 * 1024, sourceIp: String? = nil
    ) async throws -> S3Reply {
        var fields = HTTPFields()
        var authority = signed.host
        for header in signed.headers {
            if header.name.lowercased() == "host" {
                authority = header.value
                continue
            }
            fields.append(HTTPField(name: try #require(HTTPField.Name(header.name)), value: header.value))
        }
        if fields[.contentLength] == nil, !body.isEmpty || signed.method == "PUT" || signed.method == "POST" {
            fields[.contentLength] = String(body.count)
        }
        let target = signed.path + (signed.query.isEmpty ? "" : "?" + signed.query)
        let head = HTTPRequest(
            method: HTTPRequest.Method(signed.method) ?? .get, scheme: "http", authority: authority, path: target, headerFields: fields)
        let pieces = stride(from: 0, to: body.count, by: bodyPieceSize).map {
            ByteBuffer(bytes: body[$0..<Swift.min($0 + bodyPieceSize, body.count)])
        }
        let requestBody = RequestBody(asyncSequence: S3TestBody(buffers: pieces))
        let response = await self.service.respond(to: Request(head: head, body: requestBody), sourceIp: sourceIp)
        let collector = S3BodyCollector()
        try await response.body.write(collector)
        return S3Reply(status: response.status, headers: response.headers, body: Array(buffer: collector.collected))
    }
}

/// A request body made of fixed buffers.
struct S3TestBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let buffers: [ByteBuffer]

    func makeAsyncIterator() -> Iterator { Iterator(buffers: self.buffers) }

    struct Iterator: AsyncIteratorProtocol {
        let buffers: [ByteBuffer]
        var index = 0

        mutating func next() async -> ByteBuffer? {
            guard self.index < self.buffers.count else { return nil }
            defer { self.index += 1 }
            return self.buffers[self.index]
        }
    }
}

/// Collects a response body.
final class S3BodyCollector: ResponseBodyWriter {
    var collected = ByteBuffer()

    func write(_ buffer: ByteBuffer) async throws {
        var incoming = buffer
        self.collected.writeBuffer(&incoming)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// An answer of the service.
struct S3Reply: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: [UInt8]

    var text: String { String(decoding: self.body, as: UTF8.self) }

    func xml() throws -> XMLTreeElement { try S3RequestXML.parse(self.body) }

    /// The `Code` of an error document.
    var errorCode: String? { (try? self.xml())?.child("Code")?.text }
    /// The `Message` of an error document.
    var errorMessage: String? { (try? self.xml())?.child("Message")?.text }

    func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { self.headers[$0] } }
}

enum S3TestData {
    /// Deterministic bytes.
    static func bytes(_ count: Int, seed: UInt8 = 7) -> [UInt8] {
        var value = UInt32(seed) &* 2_654_435_761
        return (0..<count).map { _ in
            value = value &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: value >> 24)
        }
    }

    static func md5Base64(_ bytes: [UInt8]) -> String {
        Data(Insecure.MD5.hash(data: bytes)).base64EncodedString()
    }

    static func md5Hex(_ bytes: [UInt8]) -> String {
        Insecure.MD5.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }
}
