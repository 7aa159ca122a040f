import Crypto
import Foundation
import NIOHTTP1
import Testing

@testable import S3Partition
import WIFTestSupport

@Suite("Checksums and body verification")
struct PayloadDigestTests {
    @Test("CRC-32 matches the standard check values", arguments: [
        ("", UInt32(0)), ("a", 0xE8B7_BE43), ("123456789", 0xCBF4_3926), ("The quick brown fox jumps over the lazy dog", 0x414F_A339),
    ])
    func crc32(text: String, expected: UInt32) {
        var crc = CRC32()
        Array(text.utf8).withUnsafeBytes { crc.update($0) }
        #expect(crc.value == expected)
    }

    @Test("CRC-32 is the same however the bytes are split, and S3's base64 is big-endian")
    func crc32Chunks() {
        let bytes = patternBytes(size: 10_007, seed: 3)
        var whole = CRC32()
        bytes.withUnsafeBytes { whole.update($0) }
        var pieces = CRC32()
        var index = 0
        for size in [1, 7, 8, 9, 1000, 3, 64] + Array(repeating: 997, count: 10) where index < bytes.count {
            let end = min(index + size, bytes.count)
            bytes[index..<end].withUnsafeBytes { pieces.update($0) }
            index = end
        }
        bytes[index...].withUnsafeBytes { pieces.update($0) }
        #expect(pieces.value == whole.value)
        var check = CRC32()
        Array("123456789".utf8).withUnsafeBytes { check.update($0) }
        #expect(check.base64 == Data([0xCB, 0xF4, 0x39, 0x26]).base64EncodedString())
    }

    @Test("one pass gives the signed hash and the checksum headers")
    func digests() {
        let bytes = Array("hello".utf8)
        let digest = bytes.withUnsafeBytes { PayloadDigest(of: $0, kinds: DigestKinds(sha256: true, crc32: true, md5: true)) }
        #expect(digest.sha256Hex == sha256Hex(bytes))
        #expect(digest.sha256Base64 == Data(SHA256.hash(data: bytes)).base64EncodedString())
        #expect(digest.md5Base64 == Data(Insecure.MD5.hash(data: bytes)).base64EncodedString())
        #expect(digest.checksumHeader(.sha256)?.name == "x-amz-checksum-sha256")
        #expect(digest.checksumHeader(.crc32)?.value == digest.crc32Base64)
        #expect(digest.checksumHeader(.none) == nil)
        #expect(digest.signingPayload == .hash(sha256Hex(bytes)))
        #expect(PayloadDigest().signingPayload == .unsigned)
    }

    @Test("file digests over a range equal in-memory ones")
    func fileDigest() async throws {
        let folder = try TemporaryFolder()
        try folder.writePatternFile("f.bin", size: 3_000_000, seed: 4)
        let bytes = patternBytes(size: 3_000_000, seed: 4)
        let file = try ReadableFile.open(folder.file("f.bin"))
        #expect(file.size == 3_000_000)
        let kinds = DigestKinds(sha256: true, crc32: true)
        let digest = try await file.digest(at: 1_000_001, length: 1_500_000, kinds: kinds)
        let expected = bytes[1_000_001..<2_500_001].withUnsafeBytes { PayloadDigest(of: $0, kinds: kinds) }
        #expect(digest == expected)
        let read = try await file.read(at: 2_999_990, count: 10, allocator: .init())
        #expect(Array(read.readableBytesView) == Array(bytes[2_999_990...]))
        let error = await #expect(throws: S3Error.self) { try await file.read(at: 2_999_995, count: 10, allocator: .init()) }
        #expect(error?.code == .fileError)
        #expect(error?.message.contains("became shorter") == true)
        let folderError = #expect(throws: S3Error.self) { try ReadableFile.open(folder.path) }
        #expect(folderError?.message.contains("not a regular file") == true)
    }

    static func headers(_ pairs: [(String, String)]) -> HTTPHeaders { HTTPHeaders(pairs) }

    @Test("ETags are checked as MD5s only when they are MD5s", arguments: [
        ([("ETag", "\"0123456789abcdef0123456789abcdef\"")], true),
        ([("ETag", "\"0123456789abcdef0123456789abcdef-2\"")], false),
        ([("ETag", "\"0123456789abcdef0123456789abcdef\""), ("x-amz-server-side-encryption", "aws:kms")], false),
        ([("ETag", "\"0123456789abcdef0123456789abcdef\""), ("x-amz-server-side-encryption", "AES256")], true),
        ([("ETag", "\"0123456789abcdef0123456789abcdef\""), ("x-amz-server-side-encryption-customer-algorithm", "AES256")], false),
        ([("ETag", "\"not-hex-but-thirty-two-chars-xx\"")], false),
    ])
    func eTagRules(pairs: [(String, String)], isMD5: Bool) {
        let headers = Self.headers(pairs)
        let eTag = ObjectMetadata.unquoted(headers.first(name: "etag") ?? "")
        #expect(BodyVerifier.eTagIsMD5(eTag, headers: headers) == isMD5)
    }

    @Test("the verifier checks length, MD5, and a full-object checksum but not a composite one")
    func verifier() throws {
        let body = Array("payload".utf8)
        let md5 = Insecure.MD5.hash(data: body).map { String(format: "%02x", $0) }.joined()
        let sha = Data(SHA256.hash(data: body)).base64EncodedString()
        func run(_ pairs: [(String, String)], length: Int64 = 7, verifies: Bool = true, data: [UInt8] = body) -> S3Error? {
            var verifier = BodyVerifier(headers: Self.headers(pairs), expectedLength: length, verifies: verifies)
            verifier.update(.init(bytes: data))
            do {
                try verifier.verify(bucket: "b", key: "k")
                return nil
            } catch {
                return error
            }
        }
        #expect(run([("ETag", "\"\(md5)\""), ("x-amz-checksum-sha256", sha)]) == nil)
        #expect(run([("ETag", "\"\(md5)\"")], length: 8)?.message == "received 7 bytes where S3 announced 8")
        #expect(run([("ETag", "\"\(md5)\"")], data: Array("PAYLOAD".utf8))?.code == .integrityCheckFailed)
        #expect(run([("x-amz-checksum-sha256", "AAAA")])?.message.contains("stored checksum") == true)
        #expect(run([("x-amz-checksum-sha256", "AAAA-3")]) == nil, "composite checksums cannot be checked against the body")
        #expect(run([("x-amz-checksum-sha256", "AAAA"), ("x-amz-checksum-type", "COMPOSITE")]) == nil)
        #expect(run([("x-amz-checksum-crc32", "AAAAAA==")])?.code == .integrityCheckFailed)
        #expect(run([("ETag", "\"00000000000000000000000000000000\"")], verifies: false) == nil, "only the length when verification is off")
    }
}
