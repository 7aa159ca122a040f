import Foundation
import Testing
import WIFSigV4

/// Signed `aws-chunked` uploads, checked against the worked example of AWS's S3 documentation
/// ("Signature Calculations for the Authorization Header: Transferring Payload in Multiple Chunks"):
/// 66,560 bytes of `a` in a 64 KiB chunk, a 1 KiB chunk and the final empty chunk.
@Suite struct SigV4StreamingTests {
    static let credentials = AWSCredentials(
        accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    static let date = Date(timeIntervalSince1970: 1_369_353_600)  // 2013-05-24T00:00:00Z

    static func exampleRequest() -> SigV4Request {
        SigV4Request(
            method: "PUT", host: "s3.amazonaws.com", path: "/examplebucket/chunkObject.txt",
            headers: [.init("x-amz-storage-class", "REDUCED_REDUNDANCY")])
    }

    static func header(_ name: String, in request: SigV4Request) -> String? {
        request.headers.first { $0.name.lowercased() == name }?.value
    }

    @Test func theSeedAndChunkSignaturesAreAWSsWorkedExample() throws {
        let signer = SigV4Signer(credentials: Self.credentials, region: "us-east-1", service: "s3")
        var request = Self.exampleRequest()
        var chunks = try signer.signStreaming(&request, decodedContentLength: 66_560, chunkSize: 65_536, date: Self.date)

        #expect(Self.header("content-length", in: request) == "66824")
        #expect(Self.header("x-amz-decoded-content-length", in: request) == "66560")
        #expect(Self.header("content-encoding", in: request) == "aws-chunked")
        #expect(Self.header("x-amz-content-sha256", in: request) == "STREAMING-AWS4-HMAC-SHA256-PAYLOAD")
        let authorization = try #require(Self.header("authorization", in: request))
        #expect(authorization.contains(
            "SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class"))
        #expect(authorization.hasSuffix("Signature=4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9"))

        let first = try chunks.frame(Array(repeating: UInt8(ascii: "a"), count: 65_536))
        let second = try chunks.frame(Array(repeating: UInt8(ascii: "a"), count: 1_024))
        let last = try chunks.frame([UInt8]())
        #expect(String(decoding: first.prefix(88), as: UTF8.self)
            == "10000;chunk-signature=ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648\r\n")
        #expect(String(decoding: second.prefix(86), as: UTF8.self)
            == "400;chunk-signature=0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497\r\n")
        #expect(String(decoding: last, as: UTF8.self)
            == "0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n")
        // The frames add up to the Content-Length the request declares.
        #expect(first.count + second.count + last.count == 66_824)
        #expect(chunks.isFinished)
        #expect(throws: SigV4Error.self) { try chunks.frame([UInt8(ascii: "a")]) }
    }

    @Test func aChangedChunkOrOrderChangesItsSignature() throws {
        let signer = SigV4Signer(credentials: Self.credentials, region: "us-east-1", service: "s3")
        var request = Self.exampleRequest()
        let chunks = try signer.signStreaming(&request, decodedContentLength: 66_560, chunkSize: 65_536, date: Self.date)
        var data = Array(repeating: UInt8(ascii: "a"), count: 1_024)
        // The 1 KiB chunk signed first (out of order) does not carry the example's second signature.
        #expect(chunks.signature(of: data) != "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497")
        var afterFirst = chunks
        _ = try afterFirst.frame(Array(repeating: UInt8(ascii: "a"), count: 65_536))
        #expect(afterFirst.signature(of: data) == "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497")
        data[10] = UInt8(ascii: "b")
        #expect(afterFirst.signature(of: data) != "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497")
    }

    @Test func encodedLengthsCountEveryFrame() {
        #expect(SigV4ChunkSigner.encodedLength(decodedContentLength: 66_560, chunkSize: 65_536) == 66_824)
        // An empty body is the final chunk alone: "0;chunk-signature=<64>\r\n\r\n".
        #expect(SigV4ChunkSigner.encodedLength(decodedContentLength: 0, chunkSize: 65_536) == 86)
        #expect(SigV4ChunkSigner.encodedLength(decodedContentLength: 65_536, chunkSize: 65_536) == 65_536 + 88 + 2 + 86)
    }

    @Test func unusableSizesAreRefused() {
        let signer = SigV4Signer(credentials: Self.credentials, region: "us-east-1", service: "s3")
        var request = Self.exampleRequest()
        #expect(throws: SigV4Error.self) { try signer.signStreaming(&request, decodedContentLength: 10, chunkSize: 1_024, date: Self.date) }
        #expect(throws: SigV4Error.self) { try signer.signStreaming(&request, decodedContentLength: -1, chunkSize: 65_536, date: Self.date) }
    }

    @Test func theChunkSignerDescribesNoSecret() throws {
        let signer = SigV4Signer(credentials: Self.credentials, region: "us-east-1", service: "s3")
        var request = Self.exampleRequest()
        let chunks = try signer.signStreaming(&request, decodedContentLength: 66_560, chunkSize: 65_536, date: Self.date)
        #expect(chunks.description == "SigV4ChunkSigner(20130524/us-east-1/s3/aws4_request, chunks of 65536 bytes)")
        #expect(!chunks.description.contains("4f232c43"))
    }
}
