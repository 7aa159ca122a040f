import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import WIFCredentials

@testable import S3Partition
import WIFTestSupport

@Suite("Request building and signing")
struct RequestSigningTests {
    static let credentials = AWSCredentials(accessKeyId: "ASIAEXAMPLE", secretAccessKey: "secret", sessionToken: "session-token-value")

    static func client(endpoint: String? = nil, signsPayload: Bool = true, checksum: S3Client.ChecksumAlgorithm = .sha256) throws -> S3Client {
        try S3Client(
            configuration: .init(region: "eu-west-3", endpoint: endpoint, checksumAlgorithm: checksum, signsPayload: signsPayload),
            credentialProvider: .static(Self.credentials), environment: [:],
            timeSource: TestClock(now: Date(timeIntervalSince1970: 1_714_564_800)).timeSource)
    }

    @Test("a PutObject is addressed, hashed and signed with the session token")
    func putShape() throws {
        let client = try Self.client()
        let body = ByteBuffer(string: "hello")
        let digest = body.withUnsafeReadableBytes { PayloadDigest(of: $0, kinds: client.digestKinds) }
        var request = S3Request(operation: "PutObject", method: .PUT, bucket: "wif-personal", key: "1001/a b.txt")
        request.headers = [("Content-Type", "text/plain")]
        if let checksum = digest.checksumHeader(.sha256) { request.headers.append(checksum) }
        request.body = .bytes(body, payload: client.signingPayload(digest))
        let signed = try client.signedRequest(request, credentials: Self.credentials)
        #expect(signed.urlString == "https://wif-personal.s3.eu-west-3.amazonaws.com/1001/a%20b.txt")
        let bodyHash = sha256Hex(Array("hello".utf8))
        #expect(signed.headerValue("x-amz-content-sha256") == bodyHash)
        #expect(signed.headerValue("x-amz-checksum-sha256") == Data(SHA256.hash(data: Array("hello".utf8))).base64EncodedString())
        #expect(signed.headerValue("x-amz-date") == "20240501T120000Z")
        #expect(signed.headerValue("x-amz-security-token") == "session-token-value")
        let authorization = try #require(signed.headerValue("authorization"))
        #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=ASIAEXAMPLE/20240501/eu-west-3/s3/aws4_request, "))
        #expect(authorization.contains(
            "SignedHeaders=content-type;host;x-amz-checksum-sha256;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature="))
        #expect(!signed.description.contains("session-token-value"), "descriptions redact the token")

        let http = try client.prepare(request, credentials: Self.credentials, progress: AttemptProgress(nil))
        #expect(http.url == signed.urlString)
        #expect(http.method == .PUT)
        #expect(http.headers.first(name: "host") == "wif-personal.s3.eu-west-3.amazonaws.com")
        #expect(http.headers.first(name: "authorization") == authorization)
    }

    @Test("the signature verifies with the same canonical request an independent signer builds")
    func signatureMatches() throws {
        let client = try Self.client(endpoint: "http://127.0.0.1:9000")
        var request = S3Request(operation: "ListObjectsV2", method: .GET, bucket: "b")
        request.query = [("list-type", "2"), ("prefix", "1001/ü x"), ("continuation-token", "a+b/c=")]
        let signed = try client.signedRequest(request, credentials: Self.credentials)
        #expect(signed.urlString == "http://127.0.0.1:9000/b?list-type=2&prefix=1001%2F%C3%BC%20x&continuation-token=a%2Bb%2Fc%3D")
        #expect(signed.host == "127.0.0.1:9000")
        var unsigned = SigV4Request(method: "GET", scheme: "http", host: "127.0.0.1:9000", path: "/b", query: signed.query)
        let signer = SigV4Signer(credentials: Self.credentials, region: "eu-west-3", service: "s3")
        try signer.sign(&unsigned, payload: .empty, date: Date(timeIntervalSince1970: 1_714_564_800))
        #expect(unsigned.headerValue("authorization") == signed.headerValue("authorization"))
    }

    @Test("bare query parameters are sent without '='")
    func bareParameters() throws {
        let client = try Self.client(endpoint: "http://localhost:9000")
        var request = S3Request(operation: "CreateMultipartUpload", method: .POST, bucket: "b", key: "k")
        request.query = [("uploads", nil)]
        let signed = try client.signedRequest(request, credentials: Self.credentials)
        #expect(signed.urlString == "http://localhost:9000/b/k?uploads")
        #expect(signed.headerValue("x-amz-content-sha256") == SigV4Signer.Payload.empty.hashText)
    }

    @Test("bodies are UNSIGNED-PAYLOAD only when asked and over HTTPS")
    func unsignedPayload() throws {
        #expect(try Self.client(signsPayload: false).sendsUnsignedPayload)
        #expect(try Self.client(signsPayload: false).signingPayload(PayloadDigest(sha256Hex: String(repeating: "a", count: 64))) == .unsigned)
        #expect(try !Self.client(endpoint: "http://127.0.0.1:1", signsPayload: false).sendsUnsignedPayload)
        #expect(try !Self.client(signsPayload: true).sendsUnsignedPayload)
        #expect(try Self.client(signsPayload: false, checksum: .crc32).digestKinds == DigestKinds(sha256: false, crc32: true))
        #expect(try Self.client(signsPayload: false, checksum: .sha256).digestKinds == DigestKinds(sha256: true, crc32: false))
        #expect(try Self.client(endpoint: "http://h", signsPayload: false, checksum: .none).digestKinds == DigestKinds(sha256: true, crc32: false))
    }

    @Test("upload options become checked headers")
    func options() throws {
        let headers = try PutObjectOptions(contentType: "image/png", metadata: ["Origin": "camera", "b": "2"], overwrite: false)
            .headers(bucket: "b", key: "k")
        #expect(headers.map(\.name) == ["Content-Type", "x-amz-meta-origin", "x-amz-meta-b", "If-None-Match"])
        #expect(headers.map(\.value) == ["image/png", "camera", "2", "*"])
        #expect(try PutObjectOptions().headers(bucket: "b", key: "k").map(\.value) == ["application/octet-stream"])
        // Text outside printable US-ASCII travels as an RFC 2047 encoded-word, as S3 expects it.
        let encoded = try PutObjectOptions(metadata: ["n": "caf\u{E9}", "line": "a\r\nX-Evil: 1"]).headers(bucket: "b", key: "k")
        #expect(encoded.filter { $0.name.hasPrefix("x-amz-meta-") }.map(\.value) == ["=?UTF-8?B?YQ0KWC1FdmlsOiAx?=", "=?UTF-8?B?Y2Fmw6k=?="])
        for bad in [PutObjectOptions(contentType: "text/plain\r\nX-Evil: 1"), PutObjectOptions(metadata: ["bad name": "v"]),
            PutObjectOptions(metadata: ["": "v"])]
        {
            let error = #expect(throws: S3Error.self) { try bad.headers(bucket: "b", key: "k") }
            #expect(error?.code == .invalidArgument)
        }
    }

    @Test("response metadata is read from headers")
    func metadata() {
        let headers = NIOHTTP1Headers.make([
            ("ETag", "\"0123456789abcdef0123456789abcdef\""), ("Last-Modified", "Wed, 01 May 2024 12:00:00 GMT"),
            ("Content-Type", "text/plain"), ("x-amz-meta-Origin", "camera"), ("x-amz-version-id", "v1"),
            ("x-amz-checksum-sha256", "abc="), ("x-amz-mp-parts-count", "3"), ("x-amz-meta-note", "=?UTF-8?B?Y2Fmw6k=?="),
        ])
        let metadata = ObjectMetadata(headers: headers, contentLength: 42)
        #expect(metadata == ObjectMetadata(
            contentLength: 42, eTag: "0123456789abcdef0123456789abcdef", lastModified: Date(timeIntervalSince1970: 1_714_564_800),
            contentType: "text/plain", versionId: "v1", checksumSHA256: "abc=", partsCount: 3, metadata: ["origin": "camera", "note": "caf\u{E9}"]))
        #expect(ObjectMetadata.unquoted("W/\"abc\"") == "abc")
        #expect(ObjectMetadata.unquoted("abc-2") == "abc-2")
        // Spaces and tabs around it go, as Foundation's `.whitespaces` trims them; line breaks do not.
        #expect(ObjectMetadata.unquoted(" \t\"abc\"\t ") == "abc")
        #expect(ObjectMetadata.unquoted("\n\"abc\"") == "\n\"abc\"")
        #expect(ObjectMetadata.unquoted("\"\"") == "")
        #expect(ObjectMetadata.unquoted("\"") == "\"")
        #expect(ObjectMetadata.unquoted("W/abc") == "abc")
        // Beyond ASCII: every space separator is trimmed (here U+00A0 and U+3000).
        #expect(ObjectMetadata.unquoted("\u{A0}\"caf\u{E9}\"\u{3000}") == "caf\u{E9}")
    }
}

enum NIOHTTP1Headers {
    static func make(_ pairs: [(String, String)]) -> HTTPHeaders { HTTPHeaders(pairs) }
}
