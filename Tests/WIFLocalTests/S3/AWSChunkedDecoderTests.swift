import Crypto
import NIOCore
import Testing
import WIFCredentials

@testable import WIFLocal

@Suite("aws-chunked bodies")
struct AWSChunkedDecoderTests {
    /// A body sequence cut into pieces of a given size.
    struct Pieces: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        let bytes: [UInt8]
        let size: Int

        func makeAsyncIterator() -> Iterator { Iterator(bytes: self.bytes, size: self.size) }

        struct Iterator: AsyncIteratorProtocol {
            let bytes: [UInt8]
            let size: Int
            var offset = 0

            mutating func next() async throws -> ByteBuffer? {
                guard self.offset < self.bytes.count else { return nil }
                let end = Swift.min(self.offset + self.size, self.bytes.count)
                defer { self.offset = end }
                return ByteBuffer(bytes: self.bytes[self.offset..<end])
            }
        }
    }

    static func collect(_ stream: S3BodyStream<Pieces>) async throws -> [UInt8] {
        var output: [UInt8] = []
        for try await buffer in stream { output += Array(buffer: buffer) }
        return output
    }

    /// The example of AWS's "Transferring payload in multiple chunks" documentation: 65 KiB of 'a' sent in
    /// chunks of 64 KiB and 1 KiB with the example credentials, and the signatures it lists.
    static let exampleSigning = ChunkSigning(
        key: SigV4SigningKey(secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", day: "20130524", region: "us-east-1", service: "s3"),
        amzDate: "20130524T000000Z", scope: "20130524/us-east-1/s3/aws4_request",
        seedSignature: "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9")

    static func exampleBody(tamper: Bool = false) -> [UInt8] {
        var body: [UInt8] = []
        body += Array("10000;chunk-signature=ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648\r\n".utf8)
        body += [UInt8](repeating: UInt8(ascii: "a"), count: 65_536)
        body += Array("\r\n400;chunk-signature=0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497\r\n".utf8)
        body += [UInt8](repeating: UInt8(ascii: tamper ? "b" : "a"), count: 1024)
        body += Array("\r\n0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n".utf8)
        return body
    }

    @Test("AWS's signed chunked example decodes and every chunk signature verifies", arguments: [1_000, 65_536, 200_000])
    func signedExample(pieceSize: Int) async throws {
        let stream = S3BodyStream(
            base: Pieces(bytes: Self.exampleBody(), size: pieceSize), encoding: .chunked(signed: true, trailer: false),
            decodedLength: 66_560, signing: Self.exampleSigning)
        let decoded = try await Self.collect(stream)
        #expect(decoded == [UInt8](repeating: UInt8(ascii: "a"), count: 66_560))
    }

    @Test("a tampered chunk or a wrong seed signature is SignatureDoesNotMatch")
    func tampered() async throws {
        let stream = S3BodyStream(
            base: Pieces(bytes: Self.exampleBody(tamper: true), size: 4096), encoding: .chunked(signed: true, trailer: false),
            decodedLength: 66_560, signing: Self.exampleSigning)
        await #expect {
            _ = try await Self.collect(stream)
        } throws: { ($0 as? AWSErrorResponse)?.code == "SignatureDoesNotMatch" }

        var wrongSeed = Self.exampleSigning
        wrongSeed.seedSignature = String(repeating: "0", count: 64)
        let second = S3BodyStream(
            base: Pieces(bytes: Self.exampleBody(), size: 4096), encoding: .chunked(signed: true, trailer: false),
            decodedLength: 66_560, signing: wrongSeed)
        await #expect {
            _ = try await Self.collect(second)
        } throws: { ($0 as? AWSErrorResponse)?.code == "SignatureDoesNotMatch" }
    }

    static func trailerBody(_ data: [UInt8], checksum: String, chunk: Int = 5) -> [UInt8] {
        var body: [UInt8] = []
        var offset = 0
        while offset < data.count {
            let end = min(offset + chunk, data.count)
            body += Array("\(String(end - offset, radix: 16))\r\n".utf8) + data[offset..<end] + Array("\r\n".utf8)
            offset = end
        }
        body += Array("0\r\nx-amz-checksum-crc32:\(checksum)\r\n\r\n".utf8)
        return body
    }

    @Test("an unsigned body with a trailing checksum decodes whatever the buffer boundaries")
    func unsignedTrailer() async throws {
        let data = Array("hello, chunked world".utf8)
        let body = Self.trailerBody(data, checksum: S3Checksum.compute(.crc32, of: data))
        for pieceSize in 1...body.count {
            let stream = S3BodyStream(
                base: Pieces(bytes: body, size: pieceSize), encoding: .chunked(signed: false, trailer: true), trailerAlgorithm: .crc32,
                decodedLength: Int64(data.count))
            #expect(try await Self.collect(stream) == data)
        }
    }

    @Test("a wrong trailing checksum is BadDigest; a missing one is refused")
    func badTrailer() async throws {
        let data = Array("hello".utf8)
        let wrong = S3BodyStream(
            base: Pieces(bytes: Self.trailerBody(data, checksum: S3Checksum.compute(.crc32, of: Array("other".utf8))), size: 64),
            encoding: .chunked(signed: false, trailer: true), trailerAlgorithm: .crc32, decodedLength: 5)
        await #expect {
            _ = try await Self.collect(wrong)
        } throws: { ($0 as? AWSErrorResponse)?.code == "BadDigest" }

        let missing = S3BodyStream(
            base: Pieces(bytes: Array("5\r\nhello\r\n0\r\n\r\n".utf8), size: 64), encoding: .chunked(signed: false, trailer: true),
            trailerAlgorithm: .crc32, decodedLength: 5)
        await #expect {
            _ = try await Self.collect(missing)
        } throws: { ($0 as? AWSErrorResponse)?.code == "InvalidRequest" }
    }

    @Test(
        "malformed framing and wrong lengths are refused",
        arguments: [
            ("zz\r\nhello\r\n0\r\n\r\n", "hexadecimal"),
            ("5\r\nhelloX\r\n0\r\n\r\n", "longer than"),
            ("5\nhello\r\n0\r\n\r\n", "CRLF"),
            ("5\r\nhel", "terminated"),
            ("3\r\nhel\r\n0\r\n\r\n", "x-amz-decoded-content-length"),
            ("5\r\nhello\r\n0\r\n\r\nextra", "follow the final chunk"),
        ]
    )
    func malformed(body: String, reason: String) async throws {
        let stream = S3BodyStream(
            base: Pieces(bytes: Array(body.utf8), size: 3), encoding: .chunked(signed: false, trailer: false), decodedLength: 5)
        await #expect {
            _ = try await Self.collect(stream)
        } throws: { error in
            guard let error = error as? AWSErrorResponse else { return false }
            return error.message.contains(reason)
        }
    }

    @Test("a plain body with a checksum header passes through and is verified at its end")
    func plainChecksum() async throws {
        let data = Array("plain body".utf8)
        let good = S3BodyStream(
            base: Pieces(bytes: data, size: 3), encoding: .plain,
            checksum: S3Checksum(algorithm: .crc32c, expected: S3Checksum.compute(.crc32c, of: data)))
        #expect(try await Self.collect(good) == data)
        let bad = S3BodyStream(
            base: Pieces(bytes: data, size: 3), encoding: .plain,
            checksum: S3Checksum(algorithm: .sha256, expected: S3Checksum.compute(.sha256, of: Array("other".utf8))))
        await #expect {
            _ = try await Self.collect(bad)
        } throws: { error in
            guard let error = error as? AWSErrorResponse else { return false }
            return error.code == "BadDigest" && error.message.contains("x-amz-checksum-sha256")
        }
    }

    @Test("payload hashes are a hex SHA-256 or one of S3's markers")
    func payloadHashes() throws {
        try S3PayloadHash.validate(String(repeating: "a", count: 64))
        try S3PayloadHash.validate("UNSIGNED-PAYLOAD")
        try S3PayloadHash.validate("STREAMING-UNSIGNED-PAYLOAD-TRAILER")
        #expect(S3BodyEncoding.from(payloadHash: "STREAMING-AWS4-HMAC-SHA256-PAYLOAD") == .chunked(signed: true, trailer: false))
        #expect(S3BodyEncoding.from(payloadHash: "UNSIGNED-PAYLOAD") == .plain)
        #expect { try S3PayloadHash.validate("STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD") } throws: {
            ($0 as? AWSErrorResponse)?.code == "NotImplemented"
        }
        #expect { try S3PayloadHash.validate("abc") } throws: { ($0 as? AWSErrorResponse)?.code == "InvalidArgument" }
    }
}
