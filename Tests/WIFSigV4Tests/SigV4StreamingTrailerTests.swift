import Foundation
import Testing
@testable import WIFSigV4

/// `aws-chunked` bodies that end with a checksum trailer: signed chunks with a signed trailer
/// (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER`), checked against the worked example of AWS's S3
/// documentation ("Signature calculations for trailing headers"), and unsigned chunks
/// (`STREAMING-UNSIGNED-PAYLOAD-TRAILER`).
@Suite struct SigV4StreamingTrailerTests {
    static let signer = SigV4Signer(credentials: SigV4StreamingTests.credentials, region: "us-east-1", service: "s3")
    static let a65536 = [UInt8](repeating: UInt8(ascii: "a"), count: 65_536)
    static let a1024 = [UInt8](repeating: UInt8(ascii: "a"), count: 1_024)

    static func header(_ name: String, in request: SigV4Request) -> String? {
        SigV4StreamingTests.header(name, in: request)
    }

    @Test func theSeedChunkAndTrailerSignaturesAreAWSsWorkedExample() throws {
        // The example signs these headers and not Content-Length, so its seed signature is made by `sign`
        // with them; the chunks then chain from it.
        var request = SigV4StreamingTests.exampleRequest()
        request.headers += [
            .init("Content-Encoding", "aws-chunked"), .init("x-amz-decoded-content-length", "66560"),
            .init("x-amz-trailer", "x-amz-checksum-crc32c"),
        ]
        try Self.signer.sign(&request, payload: .streamingSignedTrailer, date: SigV4StreamingTests.date)
        let authorization = try #require(Self.header("authorization", in: request))
        #expect(authorization.contains(
            "SignedHeaders=content-encoding;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class;x-amz-trailer,"))
        #expect(authorization.hasSuffix("Signature=106e2a8a18243abcf37539882f36619c00e2dfc72633413f02d3b74544bfeb8e"))

        var chunks = SigV4ChunkSigner(
            key: Self.signer.signingKey(day: "20130524"), amzDate: "20130524T000000Z", scope: "20130524/us-east-1/s3/aws4_request",
            seedSignature: "106e2a8a18243abcf37539882f36619c00e2dfc72633413f02d3b74544bfeb8e", chunkSize: 65_536, trailer: .crc32c)
        let first = try chunks.frame(Self.a65536)
        let second = try chunks.frame(Self.a1024)
        let last = try chunks.frame([UInt8]())
        #expect(String(decoding: first.prefix(88), as: UTF8.self)
            == "10000;chunk-signature=b474d8862b1487a5145d686f57f013e54db672cee1c953b3010fb58501ef5aa2\r\n")
        #expect(String(decoding: second.prefix(86), as: UTF8.self)
            == "400;chunk-signature=1c1344b170168f8e65b41376b44b20fe354e373826ccbbe2c1d40a8cae51e5c7\r\n")
        #expect(String(decoding: last, as: UTF8.self)
            == "0;chunk-signature=2ca2aba2005185cf7159c6277faf83795951dd77a3a99e6e65d5c9f85863f992\r\n"
            + "x-amz-checksum-crc32c:sOO8/Q==\r\n"
            + "x-amz-trailer-signature:d81f82fc3505edab99d459891051a732e8730629a2e4a59689829ca17fe2e435\r\n\r\n")
        #expect(chunks.trailerChecksum == "sOO8/Q==")
        #expect(chunks.isFinished)
        #expect(first.count + second.count + last.count == 66_946)
        #expect(SigV4ChunkSigner.encodedLength(decodedContentLength: 66_560, chunkSize: 65_536, trailer: .crc32c) == 66_946)
        #expect(throws: SigV4Error.self) { try chunks.frame([UInt8(ascii: "a")]) }
    }

    @Test func signStreamingWithATrailerSetsItsHeadersAndFramesTheExample() throws {
        var request = SigV4StreamingTests.exampleRequest()
        var chunks = try Self.signer.signStreaming(
            &request, decodedContentLength: 66_560, chunkSize: 65_536, trailer: .crc32c, date: SigV4StreamingTests.date)
        #expect(Self.header("x-amz-content-sha256", in: request) == "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER")
        #expect(Self.header("x-amz-trailer", in: request) == "x-amz-checksum-crc32c")
        #expect(Self.header("content-encoding", in: request) == "aws-chunked")
        #expect(Self.header("x-amz-decoded-content-length", in: request) == "66560")
        #expect(Self.header("content-length", in: request) == "66946")
        let authorization = try #require(Self.header("authorization", in: request))
        #expect(authorization.contains("x-amz-decoded-content-length;x-amz-storage-class;x-amz-trailer,"))
        let body = try chunks.frame(Self.a65536) + chunks.frame(Self.a1024) + chunks.frame([UInt8]())
        #expect(body.count == 66_946)
        let text = String(decoding: body.suffix(124), as: UTF8.self)
        #expect(text.hasPrefix("x-amz-checksum-crc32c:sOO8/Q==\r\nx-amz-trailer-signature:"))
        #expect(text.hasSuffix("\r\n\r\n"))
        // Signing the trailer moved the chain on from the final chunk's signature to the trailer's.
        #expect(text.contains(chunks.previousSignature))
        #expect(chunks.description == "SigV4ChunkSigner(20130524/us-east-1/s3/aws4_request, chunks of 65536 bytes, trailer x-amz-checksum-crc32c)")
    }

    @Test(arguments: [SigV4Checksum.crc32, .crc32c, .sha256])
    func unsignedChunksEndWithTheChecksumTrailer(_ algorithm: SigV4Checksum) throws {
        let data = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var request = SigV4StreamingTests.exampleRequest()
        var chunks = try Self.signer.signStreamingUnsigned(
            &request, decodedContentLength: data.count, chunkSize: 8_192, trailer: algorithm, date: SigV4StreamingTests.date)
        #expect(Self.header("x-amz-content-sha256", in: request) == "STREAMING-UNSIGNED-PAYLOAD-TRAILER")
        #expect(Self.header("x-amz-trailer", in: request) == algorithm.headerName)
        #expect(!chunks.isSigned)
        var body: [UInt8] = []
        for start in stride(from: 0, to: data.count, by: chunks.chunkSize) {
            body += try chunks.frame(data[start..<min(start + chunks.chunkSize, data.count)])
        }
        body += try chunks.frame([UInt8]())
        let checksum = algorithm.compute(data)
        var expected: [UInt8] = Array("2000\r\n".utf8)
        expected += data[0..<8_192]
        expected += Array("\r\n2000\r\n".utf8)
        expected += data[8_192..<16_384]
        expected += Array("\r\ne20\r\n".utf8)
        expected += data[16_384...]
        expected += Array("\r\n0\r\n\(algorithm.headerName):\(checksum)\r\n\r\n".utf8)
        #expect(body == expected)
        #expect(chunks.trailerChecksum == checksum)
        #expect(Self.header("content-length", in: request) == String(body.count))
    }

    @Test func anEmptyBodyIsTheFinalChunkAndTrailerAlone() throws {
        var request = SigV4StreamingTests.exampleRequest()
        var chunks = try Self.signer.signStreamingUnsigned(
            &request, decodedContentLength: 0, chunkSize: 8_192, trailer: .crc32, date: SigV4StreamingTests.date)
        let body = try chunks.frame([UInt8]())
        #expect(String(decoding: body, as: UTF8.self) == "0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n")
        #expect(Self.header("content-length", in: request) == String(body.count))
    }

    @Test func checksumsMatchTheirCheckValues() {
        // The CRC catalogue's check values: the digest of "123456789".
        let input = Array("123456789".utf8)
        #expect(SigV4Checksum.crc32.compute(input) == Data([0xCB, 0xF4, 0x39, 0x26]).base64EncodedString())
        #expect(SigV4Checksum.crc32c.compute(input) == Data([0xE3, 0x06, 0x92, 0x83]).base64EncodedString())
        #expect(SigV4Checksum.crc64nvme.compute(input) == Data([0xAE, 0x8B, 0x14, 0x86, 0x0A, 0x79, 0x98, 0x88]).base64EncodedString())
        #expect(SigV4Checksum.sha256.compute(Array("abc".utf8)) == "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=")
        #expect(SigV4Checksum(headerName: "X-Amz-Checksum-CRC32C") == .crc32c)
        #expect(SigV4Checksum(headerName: "x-amz-checksum-md5") == nil)
        #expect(SigV4Checksum(name: "crc64nvme") == .crc64nvme)
        #expect(SigV4Checksum(name: "MD5") == nil)
        #expect(SigV4Checksum.all.allSatisfy { SigV4Checksum(name: $0.name) == $0 })
        #expect(SigV4Checksum.all.map(\.encodedCount) == [8, 8, 12, 28, 44])
    }

    @Test func headerNamesNameTheirAlgorithmInAnyASCIICase() {
        for algorithm in SigV4Checksum.all {
            let name = "x-amz-checksum-" + algorithm.name.lowercased()
            #expect(SigV4Checksum(headerName: name) == algorithm)
            #expect(SigV4Checksum(headerName: name.uppercased()) == algorithm)
            #expect(SigV4Checksum(headerName: "X-Amz-Checksum-" + algorithm.name) == algorithm)
            // A longer or shorter name, or one that only ends like it, does not name it.
            #expect(SigV4Checksum(headerName: name + "x") == nil)
            #expect(SigV4Checksum(headerName: String(name.dropLast())) != algorithm)
            #expect(SigV4Checksum(headerName: "y" + name) == nil)
        }
        for other in [
            "", "x-amz-checksum-", "x-amz-checksum", "x-amz-checksum-type", "x-amz-checksum-algorithm",
            "x-amz-checksum-mode", "x-amz-content-sha256", "content-md5", "x-amz-checksum-crc32 ",
            "x_amz_checksum_crc32", "x-amz-checksum-crc32\u{301}",
            // Only ASCII letters fold: a Kelvin sign is not a "k", though Unicode lowercases it to one.
            "x-amz-chec\u{212A}sum-crc32", "X-AMZ-CHEC\u{212A}SUM-CRC32",
        ] {
            #expect(SigV4Checksum(headerName: other) == nil, "\(other)")
        }
    }
}
