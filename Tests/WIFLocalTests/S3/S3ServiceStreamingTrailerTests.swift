import Foundation
import Testing
import WIFCredentials

@testable import WIFLocal

/// `aws-chunked` bodies with a checksum trailer, framed by the SigV4 library's signer and sent to the local
/// S3: what was signed is stored; a body changed anywhere after signing is refused with S3's error code
/// and nothing is stored.
@Suite("S3 service: aws-chunked bodies with a trailer, from the library's signer")
struct S3ServiceStreamingTrailerTests {
    let fixture: S3Fixture
    let admin: AWSCredentials
    let data = S3TestData.bytes(40_000)

    init() throws {
        self.fixture = try S3Fixture()
        self.admin = self.fixture.adminCredentials
    }

    /// A request to `path` signed for a body with a trailer, and the body's data chunks framed; the final
    /// chunk and trailer are left to the caller with the chunk signer as it stands before them.
    func signedRequest(_ path: String, signed: Bool, trailer: SigV4Checksum) throws -> (SigV4Request, [UInt8], SigV4ChunkSigner) {
        let signer = SigV4Signer(credentials: self.admin, region: "us-east-1", service: "s3")
        var request = SigV4Request(method: "PUT", scheme: "http", host: S3Fixture.host, path: path)
        var chunks =
            signed
            ? try signer.signStreaming(&request, decodedContentLength: self.data.count, chunkSize: 16 * 1024, trailer: trailer, date: S3Fixture.now)
            : try signer.signStreamingUnsigned(
                &request, decodedContentLength: self.data.count, chunkSize: 16 * 1024, trailer: trailer, date: S3Fixture.now)
        var body: [UInt8] = []
        for start in stride(from: 0, to: self.data.count, by: chunks.chunkSize) {
            body += try chunks.frame(self.data[start..<min(start + chunks.chunkSize, self.data.count)])
        }
        return (request, body, chunks)
    }

    func isAbsent(_ path: String) async throws -> Bool {
        try await self.fixture.send("HEAD", path, as: self.admin).status == .notFound
    }

    @Test("signed and unsigned chunks with each trailer checksum are stored, the checksum sent back", arguments: [
        (true, SigV4Checksum.crc32c), (true, .sha256), (false, .crc32), (false, .crc32c),
    ])
    func accepted(signed: Bool, trailer: SigV4Checksum) async throws {
        let path = "/wif-personal/trailer-\(signed)-\(trailer.name).bin"
        let (request, framed, signer) = try self.signedRequest(path, signed: signed, trailer: trailer)
        var chunks = signer
        let body = framed + (try chunks.frame([UInt8]()))
        #expect(request.headers.first { $0.name == "Content-Length" }?.value == String(body.count))
        let reply = try await self.fixture.deliver(request, body: body, bodyPieceSize: 777)
        #expect(reply.status == .ok, "\(reply.text)")
        #expect(try await self.fixture.send("GET", path, as: self.admin).body == self.data)
    }

    @Test("a chunk changed after signing is SignatureDoesNotMatch and nothing is stored")
    func wrongChunkSignature() async throws {
        let path = "/wif-personal/trailer-chunk.bin"
        let (request, framed, signer) = try self.signedRequest(path, signed: true, trailer: .crc32c)
        var chunks = signer
        var body = framed + (try chunks.frame([UInt8]()))
        body[20_000] ^= 0x01
        let reply = try await self.fixture.deliver(request, body: body)
        #expect(reply.errorCode == "SignatureDoesNotMatch", "\(reply.text)")
        #expect(try await self.isAbsent(path))
    }

    @Test("a trailer signature that does not match is SignatureDoesNotMatch and nothing is stored")
    func wrongTrailerSignature() async throws {
        let path = "/wif-personal/trailer-signature.bin"
        let (request, framed, signer) = try self.signedRequest(path, signed: true, trailer: .sha256)
        var chunks = signer
        var end = try chunks.frame([UInt8]())
        // The last hex digit of x-amz-trailer-signature, before its CRLF and the closing empty line.
        end[end.count - 5] = end[end.count - 5] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        let reply = try await self.fixture.deliver(request, body: framed + end)
        #expect(reply.errorCode == "SignatureDoesNotMatch", "\(reply.text)")
        #expect(try await self.isAbsent(path))
    }

    @Test("a signed trailer whose checksum is not the body's is BadDigest and nothing is stored")
    func wrongSignedTrailerChecksum() async throws {
        let path = "/wif-personal/trailer-digest.bin"
        let (request, body, chunks) = try self.signedRequest(path, signed: true, trailer: .crc32c)
        // The final chunk as the signer frames it, then a trailer carrying another body's checksum, signed
        // properly: only the checksum comparison can refuse it.
        var finished = chunks
        let end = try finished.frame([UInt8]())
        let finalChunk = Array(end.prefix { $0 != 0x0A }) + [0x0A]
        var chained = chunks
        chained.chain(to: String(decoding: finalChunk.dropFirst(18).prefix(64), as: UTF8.self))
        let line = "x-amz-checksum-crc32c:\(SigV4Checksum.crc32c.compute(Array("other".utf8)))"
        let signature = chained.trailerSignature(canonicalTrailers: line + "\n")
        let trailer = Array("\(line)\r\nx-amz-trailer-signature:\(signature)\r\n\r\n".utf8)
        let reply = try await self.fixture.deliver(request, body: body + finalChunk + trailer)
        #expect(reply.errorCode == "BadDigest", "\(reply.text)")
        #expect(reply.text.contains("x-amz-checksum-crc32c"))
        #expect(try await self.isAbsent(path))
    }

    @Test("an unsigned trailer whose checksum is not the body's is BadDigest and nothing is stored")
    func wrongUnsignedTrailerChecksum() async throws {
        let path = "/wif-personal/trailer-unsigned-digest.bin"
        let (request, framed, signer) = try self.signedRequest(path, signed: false, trailer: .crc32)
        var chunks = signer
        let end = String(decoding: try chunks.frame([UInt8]()), as: UTF8.self)
        let other = SigV4Checksum.crc32.compute(Array("other".utf8))
        let trailer = end.replacingOccurrences(of: try #require(chunks.trailerChecksum), with: other)
        let reply = try await self.fixture.deliver(request, body: framed + Array(trailer.utf8))
        #expect(reply.errorCode == "BadDigest", "\(reply.text)")
        #expect(try await self.isAbsent(path))
    }

    @Test("a body that stops inside a chunk is IncompleteBody and nothing is stored", arguments: [true, false])
    func shortChunk(signed: Bool) async throws {
        let path = "/wif-personal/trailer-short-\(signed).bin"
        let (request, body, _) = try self.signedRequest(path, signed: signed, trailer: .crc32c)
        let reply = try await self.fixture.deliver(request, body: Array(body.prefix(body.count - 1_000)))
        #expect(reply.errorCode == "IncompleteBody", "\(reply.text)")
        #expect(try await self.isAbsent(path))
    }
}
