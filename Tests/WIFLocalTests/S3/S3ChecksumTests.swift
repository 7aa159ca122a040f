import Foundation
import HTTPTypes
import Testing

@testable import WIFLocal
import WIFFoundation

@Suite("S3 checksums, dates and conditions")
struct S3ChecksumTests {
    /// The standard check values of each CRC over "123456789", and the digests of "abc".
    @Test(
        "checksums match their published check values",
        arguments: [
            (S3Checksum.Algorithm.crc32, "123456789", [0xCB, 0xF4, 0x39, 0x26] as [UInt8]),
            (.crc32c, "123456789", [0xE3, 0x06, 0x92, 0x83]),
            (.crc64nvme, "123456789", [0xAE, 0x8B, 0x14, 0x86, 0x0A, 0x79, 0x98, 0x88]),
        ]
    )
    func crcCheckValues(algorithm: S3Checksum.Algorithm, input: String, digest: [UInt8]) {
        #expect(S3Checksum.compute(algorithm, of: Array(input.utf8)) == Data(digest).base64EncodedString())
    }

    @Test("CRCs computed eight bytes at a time match a bit-by-bit computation, whatever the split", arguments: [0, 1, 7, 8, 9, 63, 1000])
    func crcSlicing(count: Int) {
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        for (algorithm, polynomial) in [(S3Checksum.Algorithm.crc32, UInt32(0xEDB8_8320)), (.crc32c, 0x82F6_3B78)] {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ polynomial : crc >> 1 }
            }
            crc = ~crc
            let expected = Data([UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)])
            #expect(S3Checksum.compute(algorithm, of: bytes) == expected.base64EncodedString())
            // Fed in two pieces at an odd boundary, the running checksum is the same.
            var hasher = S3Checksum.Hasher(algorithm)
            let split = count / 3
            bytes[..<split].withUnsafeBytes { hasher.update($0) }
            bytes[split...].withUnsafeBytes { hasher.update($0) }
            #expect(hasher.finalize() == expected.base64EncodedString())
        }
    }

    @Test("SHA checksums are the base64 of the digest")
    func shaChecksums() {
        #expect(S3Checksum.compute(.sha256, of: Array("abc".utf8)) == "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=")
        #expect(S3Checksum.compute(.sha1, of: Array("abc".utf8)) == "qZk+NkcGgWq6PiVxeFDCbJzQ2J0=")
        #expect(S3Checksum.isWellFormed("AAAAAA==", for: .crc32))
        #expect(!S3Checksum.isWellFormed("AAAAAA==", for: .sha256))
        #expect(!S3Checksum.isWellFormed("not base64!", for: .crc32))
        #expect(S3Checksum.Algorithm(headerName: "X-Amz-Checksum-CRC32C") == .crc32c)
        #expect(S3Checksum.Algorithm(headerName: "x-amz-checksum-mode") == nil)
    }

    @Test("dates are written as S3 writes them")
    func dates() {
        let date = Date(timeIntervalSince1970: 784_111_777.25)  // 1994-11-06T08:49:37.250Z, a Sunday
        #expect(AWSDate.extendedWithMilliseconds(AWSDate.milliseconds(date)) == "1994-11-06T08:49:37.250Z")
        #expect(AWSDate.httpDate(AWSDate.seconds(date)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(AWSDate.httpDate(AWSDate.seconds(Date(timeIntervalSince1970: 951_782_400))) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(AWSDate.extendedWithMilliseconds(AWSDate.milliseconds(Date(timeIntervalSince1970: 0))) == "1970-01-01T00:00:00.000Z")
    }

    @Test(
        "HTTP dates are read in the three forms HTTP allows, and ISO 8601",
        arguments: [
            "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "1994-11-06T08:49:37Z",
            "1994-11-06T08:49:37.000Z",
        ]
    )
    func parseDates(text: String) {
        #expect(AWSDate.parseHTTPDateOrISO8601(text) == 784_111_777)
    }

    @Test("unparseable dates are ignored", arguments: ["", "yesterday", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994"])
    func badDates(text: String) {
        #expect(AWSDate.parseHTTPDateOrISO8601(text) == nil)
    }

    static func headers(_ pairs: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs { fields[HTTPField.Name(name)!] = value }
        return fields
    }

    static let modified = Date(timeIntervalSince1970: 1_714_564_800)
    static let now = Date(timeIntervalSince1970: 1_714_600_000)
    static let before = "Tue, 30 Apr 2024 12:00:00 GMT"
    static let after = "Wed, 01 May 2024 13:00:00 GMT"

    @Test(
        "conditional reads follow S3's precedence",
        arguments: [
            ([], S3Conditions.Outcome.proceed),
            ([("If-Match", "\"e1\"")], .proceed),
            ([("If-Match", "\"other\", \"e1\"")], .proceed),
            ([("If-Match", "*")], .proceed),
            ([("If-Match", "\"other\"")], .preconditionFailed("If-Match")),
            ([("If-Unmodified-Since", S3ChecksumTests.before)], .preconditionFailed("If-Unmodified-Since")),
            ([("If-Unmodified-Since", S3ChecksumTests.after)], .proceed),
            ([("If-Match", "\"e1\""), ("If-Unmodified-Since", S3ChecksumTests.before)], .proceed),
            ([("If-None-Match", "\"e1\"")], .notModified),
            ([("If-None-Match", "W/\"e1\"")], .notModified),
            ([("If-None-Match", "\"other\"")], .proceed),
            ([("If-Modified-Since", S3ChecksumTests.after)], .notModified),
            ([("If-Modified-Since", S3ChecksumTests.before)], .proceed),
            ([("If-None-Match", "\"other\""), ("If-Modified-Since", S3ChecksumTests.after)], .proceed),
            ([("If-None-Match", "\"e1\""), ("If-Modified-Since", S3ChecksumTests.before)], .notModified),
            ([("If-Modified-Since", "Fri, 01 May 2099 13:00:00 GMT")], .proceed),
        ] as [([(String, String)], S3Conditions.Outcome)]
    )
    func conditions(pairs: [(String, String)], outcome: S3Conditions.Outcome) {
        #expect(S3Conditions.evaluate(Self.headers(pairs), etag: "\"e1\"", lastModified: Self.modified, now: Self.now) == outcome)
    }

    @Test("copy-source conditions fail with 412 in every case")
    func copyConditions() {
        func outcome(_ pairs: [(String, String)]) -> S3Conditions.Outcome {
            S3Conditions.evaluateCopySource(Self.headers(pairs), etag: "\"e1\"", lastModified: Self.modified, now: Self.now)
        }
        #expect(outcome([("x-amz-copy-source-if-match", "\"e1\"")]) == .proceed)
        #expect(outcome([("x-amz-copy-source-if-match", "\"e2\"")]) == .preconditionFailed("x-amz-copy-source-If-Match"))
        #expect(outcome([("x-amz-copy-source-if-none-match", "\"e1\"")]) == .preconditionFailed("x-amz-copy-source-If-None-Match"))
        #expect(
            outcome([("x-amz-copy-source-if-modified-since", Self.after)]) == .preconditionFailed("x-amz-copy-source-If-Modified-Since"))
        #expect(
            outcome([("x-amz-copy-source-if-unmodified-since", Self.before)])
                == .preconditionFailed("x-amz-copy-source-If-Unmodified-Since"))
    }
}
