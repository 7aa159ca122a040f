import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import Testing
import WIFCredentials

@testable import WIFLocal
import WIFFoundation
import WIFTestSupport

/// The S3 endpoint through the real server, with AsyncHTTPClient: streamed uploads and downloads, ranges,
/// virtual-hosted addressing, `Expect: 100-continue`, an upload cut off mid-body, and per-user isolation.
@Suite("S3 over HTTP")
struct S3HTTPTests {
    static let admin = AdminCredentials(accessKeyId: "AKIAS3HTTPADMIN00001", secretAccessKey: "s3-http-admin-secret-0123456789abcdefghi")

    /// Runs a stack with administrator credentials in a fresh data directory.
    static func withStack<T: Sendable>(
        configure: (inout LocalConfiguration) -> Void = { _ in }, _ body: (LocalEndpoint, String) async throws -> T
    ) async throws -> T {
        let directory = TemporaryFolder.url("wif-s3-http").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = LocalConfiguration.default(dataDirectory: directory)
        configuration.adminCredentials = Self.admin
        configure(&configuration)
        return try await LocalStack.run(configuration) { endpoint in try await body(endpoint, directory) }
    }

    static var adminCredentials: AWSCredentials {
        AWSCredentials(accessKeyId: Self.admin.accessKeyId, secretAccessKey: Self.admin.secretAccessKey)
    }

    /// Credentials of a session sealed with the running stack's session key (as its STS would issue them).
    static func sessionCredentials(directory: String, kind: ProviderProfile.Kind, user: String) throws -> AWSCredentials {
        let data = try DataDirectory(root: directory)
        let codec = SessionCodec(key: try data.secret(named: "session.key"))
        let profile = ProviderProfile.development(kind, issuer: LocalConfiguration.defaultIssuer)
        let now = Int64(Date().timeIntervalSince1970)
        let session = LocalSession(
            accessKeyId: SessionCodec.makeAccessKeyId(), secretAccessKey: SessionCodec.makeSecretAccessKey(), issuedAt: now - 10,
            expiresAt: now + 900, roleArn: "arn:aws:iam::000000000000:role/personal-store-\(kind.rawValue)",
            roleId: "AROAEXAMPLEROLEID0001", sessionName: user,
            identity: IdentityRecord(kind: kind, issuer: profile.issuer, subject: user, audiences: profile.clientIds))
        return AWSCredentials(accessKeyId: session.accessKeyId, secretAccessKey: session.secretAccessKey, sessionToken: try codec.seal(session))
    }

    struct Answer: Sendable {
        var status: Int
        var headers: [(String, String)]
        var body: ByteBuffer

        func header(_ name: String) -> String? { self.headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        var text: String { String(buffer: self.body) }
        var errorCode: String? { (try? S3RequestXML.parse(Array(buffer: self.body)))?.child("Code")?.text }
    }

    /// Signs and sends a request; the body is streamed in 64 KiB pieces and may fail after `failAfter` bytes.
    static func send(
        _ endpoint: LocalEndpoint, _ method: String, _ path: String, query: String = "", headers: [(String, String)] = [],
        body: [UInt8]? = nil, credentials: AWSCredentials, hostHeader: String? = nil, failAfter: Int? = nil
    ) async throws -> Answer {
        let host = hostHeader ?? "127.0.0.1:\(endpoint.port)"
        var signed = SigV4Request(
            method: method, scheme: "http", host: host, path: path, query: query, headers: headers.map { SigV4Request.Header($0.0, $0.1) })
        let signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3")
        try signer.sign(&signed, payload: .bytes(body ?? []), date: Date())
        var request = HTTPClientRequest(url: endpoint.url + path + (query.isEmpty ? "" : "?" + query))
        request.method = .init(rawValue: method)
        for header in signed.headers { request.headers.add(name: header.name, value: header.value) }
        if hostHeader != nil { request.headers.replaceOrAdd(name: "Host", value: host) }
        if let body {
            let pieces = stride(from: 0, to: body.count, by: 65_536).map { ByteBuffer(bytes: body[$0..<min($0 + 65_536, body.count)]) }
            request.body = .stream(FailingBody(pieces: pieces, failAfter: failAfter), length: .known(Int64(body.count)))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let collected = try await response.body.collect(upTo: 64 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: collected)
    }

    struct Cut: Error {}

    /// Buffers that may stop with an error part-way, as when a client is killed mid-upload.
    struct FailingBody: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        let pieces: [ByteBuffer]
        let failAfter: Int?

        func makeAsyncIterator() -> Iterator { Iterator(pieces: self.pieces, failAfter: self.failAfter) }

        struct Iterator: AsyncIteratorProtocol {
            let pieces: [ByteBuffer]
            let failAfter: Int?
            var index = 0
            var sent = 0

            mutating func next() async throws -> ByteBuffer? {
                if let failAfter, self.sent >= failAfter { throw Cut() }
                guard self.index < self.pieces.count else { return nil }
                defer { self.index += 1 }
                self.sent += self.pieces[self.index].readableBytes
                return self.pieces[self.index]
            }
        }
    }

    @Test("a 12 MiB object streams up and down through the server, whole and by range")
    func largeObject() async throws {
        try await Self.withStack { endpoint, _ in
            let body = S3TestData.bytes(12 * 1024 * 1024 + 3)
            let put = try await Self.send(
                endpoint, "PUT", "/wif-personal/large/object.bin", headers: [("Expect", "100-continue")], body: body,
                credentials: Self.adminCredentials)
            #expect(put.status == 200)
            #expect(put.header("ETag") == "\"\(S3TestData.md5Hex(body))\"")
            let get = try await Self.send(endpoint, "GET", "/wif-personal/large/object.bin", credentials: Self.adminCredentials)
            #expect(get.status == 200)
            #expect(get.header("Content-Length") == String(body.count))
            #expect(Array(buffer: get.body) == body)
            let range = try await Self.send(
                endpoint, "GET", "/wif-personal/large/object.bin", headers: [("Range", "bytes=5000000-5000099")],
                credentials: Self.adminCredentials)
            #expect(range.status == 206)
            #expect(Array(buffer: range.body) == Array(body[5_000_000...5_000_099]))
            #expect(range.header("Content-Range") == "bytes 5000000-5000099/\(body.count)")
        }
    }

    /// The head of a PUT with `Expect: 100-continue`, as raw HTTP/1.1, signed with `credentials`.
    static func expectContinueHead(port: Int, path: String, length: Int, credentials: AWSCredentials) throws -> String {
        let host = "127.0.0.1:\(port)"
        var signed = SigV4Request(
            method: "PUT", scheme: "http", host: host, path: path,
            headers: [.init("Content-Length", String(length)), .init("Expect", "100-continue")])
        let signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3")
        try signer.sign(&signed, payload: .unsigned, date: Date())
        var head = "PUT \(path) HTTP/1.1\r\nHost: \(host)\r\n"
        for header in signed.headers where header.name.lowercased() != "host" { head += "\(header.name): \(header.value)\r\n" }
        return head + "\r\n"
    }

    @Test("Expect: 100-continue is answered only for a request that is let in; a refused one gets its refusal, not 100")
    func expectContinueAfterAuthorization() async throws {
        try await Self.withStack { endpoint, _ in
            let refused = try LoopbackConnection(port: endpoint.port)
            let wrongKey = AWSCredentials(accessKeyId: Self.admin.accessKeyId, secretAccessKey: "not-the-secret-key-at-all")
            try refused.send(try Self.expectContinueHead(port: endpoint.port, path: "/wif-personal/expect/refused.bin", length: 5, credentials: wrongKey))
            let answer = await refused.readUntilClosed(timeout: .seconds(60))
            #expect(answer.received.hasPrefix("HTTP/1.1 403"), "\(answer.received.prefix(200))")
            #expect(!answer.received.contains("100 Continue"))
            #expect(answer.received.lowercased().contains("connection: close"))
            #expect(answer.closed, "the body the client held back is never read, so the connection is closed")

            let allowed = try LoopbackConnection(port: endpoint.port)
            try allowed.send(try Self.expectContinueHead(
                port: endpoint.port, path: "/wif-personal/expect/allowed.bin", length: 5, credentials: Self.adminCredentials))
            guard case .received(let interim) = await allowed.next(timeout: .seconds(60)) else {
                Issue.record("no interim answer to an authorized request")
                return
            }
            #expect(interim.hasPrefix("HTTP/1.1 100 Continue"), "\(interim.prefix(200))")
            try allowed.send("hello")
            var final = interim
            while !final.contains("HTTP/1.1 200") {
                guard case .received(let more) = await allowed.next(timeout: .seconds(60)) else { break }
                final += more
            }
            #expect(final.contains("HTTP/1.1 200"), "\(final.prefix(400))")
            let stored = try await Self.send(endpoint, "GET", "/wif-personal/expect/allowed.bin", credentials: Self.adminCredentials)
            #expect(stored.text == "hello")
            let notStored = try await Self.send(endpoint, "GET", "/wif-personal/expect/refused.bin", credentials: Self.adminCredentials)
            #expect(notStored.status == 404)
        }
    }

    @Test("an upload cut off mid-body stores nothing and leaves the previous object intact")
    func interruptedUpload() async throws {
        try await Self.withStack { endpoint, _ in
            let path = "/wif-personal/cut/object.bin"
            let original = Array("the committed version".utf8)
            #expect(try await Self.send(endpoint, "PUT", path, body: original, credentials: Self.adminCredentials).status == 200)
            await #expect(throws: (any Error).self) {
                _ = try await Self.send(
                    endpoint, "PUT", path, body: S3TestData.bytes(2 * 1024 * 1024), credentials: Self.adminCredentials, failAfter: 1024 * 1024)
            }
            let get = try await Self.send(endpoint, "GET", path, credentials: Self.adminCredentials)
            #expect(Array(buffer: get.body) == original)
            let list = try await Self.send(endpoint, "GET", "/wif-personal", query: "list-type=2&prefix=cut%2F", credentials: Self.adminCredentials)
            #expect(try S3RequestXML.parse(Array(buffer: list.body)).child("KeyCount")?.text == "1")
        }
    }

    @Test("virtual-hosted addressing works through the server's Host header")
    func virtualHosted() async throws {
        try await Self.withStack { endpoint, _ in
            let host = "wif-personal.localhost:\(endpoint.port)"
            let put = try await Self.send(
                endpoint, "PUT", "/hosted.txt", body: Array("by host".utf8), credentials: Self.adminCredentials, hostHeader: host)
            #expect(put.status == 200)
            let get = try await Self.send(endpoint, "GET", "/wif-personal/hosted.txt", credentials: Self.adminCredentials)
            #expect(get.text == "by host")
        }
    }

    @Test("over HTTP too, bob cannot read, overwrite or list alice's folder, and alice can")
    func isolation() async throws {
        try await Self.withStack { endpoint, directory in
            let alice = try Self.sessionCredentials(directory: directory, kind: .facebook, user: "alice")
            let bob = try Self.sessionCredentials(directory: directory, kind: .facebook, user: "bob")
            let path = "/wif-personal/facebook/alice/diary.txt"
            #expect(try await Self.send(endpoint, "PUT", path, body: Array("dear diary".utf8), credentials: alice).status == 200)
            let read = try await Self.send(endpoint, "GET", path, credentials: bob)
            #expect(read.status == 403)
            #expect(read.errorCode == "AccessDenied")
            let overwrite = try await Self.send(endpoint, "PUT", path, body: S3TestData.bytes(300_000), credentials: bob)
            #expect(overwrite.errorCode == "AccessDenied")
            let list = try await Self.send(
                endpoint, "GET", "/wif-personal", query: "list-type=2&prefix=facebook%2Falice%2F", credentials: bob)
            #expect(list.errorCode == "AccessDenied")
            #expect(try await Self.send(endpoint, "GET", path, credentials: alice).text == "dear diary")
            // The connection stays usable after a refused upload whose body was never read.
            #expect(try await Self.send(endpoint, "HEAD", path, credentials: alice).status == 200)
        }
    }

    @Test(
        "aws:SourceIp in a bucket policy sees the connection's address (127.0.0.1)",
        arguments: [("NotIpAddress", "127.0.0.0/8", 200), ("IpAddress", "127.0.0.1/32", 403), ("NotIpAddress", "10.0.0.0/8", 403)]
    )
    func sourceIpOverHTTP(condition: String, range: String, status: Int) async throws {
        let policy = """
            {"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:PutObject",\
            "Resource":"arn:aws:s3:::wif-personal/*","Condition":{"\(condition)":{"aws:SourceIp":"\(range)"}}}]}
            """
        try await Self.withStack(configure: { $0.buckets = [BucketDefinition(name: "wif-personal", policy: policy)] }) { endpoint, directory in
            let alice = try Self.sessionCredentials(directory: directory, kind: .google, user: "alice")
            let put = try await Self.send(endpoint, "PUT", "/wif-personal/google/alice/ip.txt", body: [1, 2, 3], credentials: alice)
            #expect(put.status == status, "\(condition) \(range): \(put.text)")
            if status == 403 { #expect(put.errorCode == "AccessDenied") }
        }
    }
}
