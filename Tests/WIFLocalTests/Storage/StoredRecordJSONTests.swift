import Foundation
import Testing
import WIFTestSupport

@testable import WIFLocal

/// A stored file's record is written and read with the package's JSON writer and reader; files written by
/// earlier versions hold the records' `Codable` form, so the two must read each other's JSON.
@Suite struct StoredRecordJSONTests {
    /// Text with the characters JSON must escape, non-ASCII and an astral scalar among plain ones.
    private static func text(_ generator: inout SplitMix64) -> String {
        let pieces = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{1}", "\u{7F}", "é", "日本", "🪣", "\u{2028}", "%20", "="]
        let count = Int.random(in: 0...12, using: &generator)
        return (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    private static func maybe<Value>(_ generator: inout SplitMix64, _ make: (inout SplitMix64) -> Value) -> Value? {
        Bool.random(using: &generator) ? make(&generator) : nil
    }

    private static func record(seed: UInt64) -> StoredRecord {
        var generator = SplitMix64(seed: seed)
        var record = StoredRecord(
            key: Data(Self.text(&generator).utf8).base64EncodedString(),
            size: Int64.random(in: 0...Int64.max, using: &generator),
            etag: "\"" + Self.text(&generator) + "\"",
            lastModified: Int64.random(in: Int64.min...Int64.max, using: &generator)
        )
        record.format = Int.random(in: 1...3, using: &generator)
        record.attributes = Self.maybe(&generator) { generator in
            var metadata: [String: String] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &generator) { metadata[Self.text(&generator)] = Self.text(&generator) }
            return ObjectAttributes(
                contentType: Self.maybe(&generator, Self.text), contentEncoding: Self.maybe(&generator, Self.text),
                contentDisposition: Self.maybe(&generator, Self.text), contentLanguage: Self.maybe(&generator, Self.text),
                cacheControl: Self.maybe(&generator, Self.text), expires: Self.maybe(&generator, Self.text),
                userMetadata: metadata
            )
        }
        record.sha256 = Self.maybe(&generator, Self.text)
        record.md5 = Self.maybe(&generator, Self.text)
        record.partCount = Self.maybe(&generator) { Int.random(in: 1...10_000, using: &$0) }
        record.uploadId = Self.maybe(&generator, Self.text)
        record.checksum = Self.maybe(&generator) { generator in
            StoredChecksum(
                algorithm: S3Checksum.Algorithm.all.randomElement(using: &generator)!, value: Self.text(&generator),
                type: Bool.random(using: &generator) ? .fullObject : .composite)
        }
        record.encryption = Self.maybe(&generator) { generator in
            StoredEncryption(
                mode: Bool.random(using: &generator) ? .s3 : .customer, keyMD5: Self.maybe(&generator, Self.text),
                segments: (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                    .init(length: Int64.random(in: 0...Int64.max, using: &generator), iv: Self.text(&generator))
                })
        }
        record.bodyParts = Self.maybe(&generator) { generator in
            (0..<Int.random(in: 0...4, using: &generator)).map { _ in
                StoredBodyPart(number: Int.random(in: 1...10_000, using: &generator), length: Int64.random(in: 0...Int64.max, using: &generator))
            }
        }
        record.partLengths = Self.maybe(&generator) { generator in
            (0..<Int.random(in: 0...4, using: &generator)).map { _ in Int64.random(in: 0...Int64.max, using: &generator) }
        }
        return record
    }

    @Test(arguments: 0..<300)
    func aRecordReadsBackAsWrittenAndAsItsCodableForm(seed: Int) throws {
        let record = Self.record(seed: UInt64(seed))
        let written = record.json()
        #expect(StoredRecord(json: written) == record, "seed \(seed)")
        // Earlier versions read with JSONDecoder and wrote with JSONEncoder.
        #expect(try JSONDecoder().decode(StoredRecord.self, from: Data(written)) == record, "seed \(seed)")
        #expect(StoredRecord(json: Array(try JSONEncoder().encode(record))) == record, "seed \(seed)")
    }

    @Test func aFileWrittenByAnEarlierVersionReads() {
        let earlier = #"{"format":1,"key":"YS50eHQ=","size":5,"etag":"\"5d41402abc4b2a76b9719d911017c592\"","lastModified":1795843613123,"attributes":{"contentType":"text\/plain","userMetadata":{"owner":"alice"}},"sha256":"2cf24dba","md5":"5d41402a","checksum":{"algorithm":"CRC32","value":"NhCmhg==","type":"FULL_OBJECT"},"encryption":{"mode":"AES256","segments":[{"length":5,"iv":"AAAAAAAAAAAAAAAAAAAAAA=="}]}}"#
        let record = StoredRecord(json: Array(earlier.utf8))
        #expect(record?.objectKey == ObjectKey(unchecked: Array("a.txt".utf8)))
        #expect(record?.lastModified == 1_795_843_613_123)
        #expect(record?.attributes?.contentType == "text/plain")
        #expect(record?.attributes?.userMetadata == ["owner": "alice"])
        #expect(record?.checksum?.algorithm == .crc32)
        #expect(record?.encryption?.segments.first?.length == 5)
        #expect(record?.partCount == nil && record?.bodyParts == nil)
    }

    @Test(arguments: [
        "", "[]", "{", #"{"format":1}"#,
        // a required member missing
        #"{"format":1,"key":"","size":1,"lastModified":0}"#,
        // a member of the wrong type
        #"{"format":1,"key":"","size":"1","etag":"","lastModified":0}"#,
        #"{"format":1,"key":"","size":1.5,"etag":"","lastModified":0}"#,
        #"{"format":1,"key":"","size":1e3,"etag":"","lastModified":0}"#,
        #"{"format":1,"key":"","size":18446744073709551616,"etag":"","lastModified":0}"#,
        #"{"format":1,"key":"","size":1,"etag":"","lastModified":0,"md5":5}"#,
        #"{"format":1,"key":"","size":1,"etag":"","lastModified":0,"partLengths":[1,"2"]}"#,
        #"{"format":1,"key":"","size":1,"etag":"","lastModified":0,"attributes":{}}"#,
        #"{"format":1,"key":"","size":1,"etag":"","lastModified":0,"attributes":{"userMetadata":{"a":1}}}"#,
        // an unknown algorithm, mode or checksum type
        #"{"format":1,"key":"","size":1,"etag":"","lastModified":0,"checksum":{"algorithm":"MD4","value":"","type":"FULL_OBJECT"}}"#,
        #"{"format":1,"key":"","size":1,"etag":"","lastModified":0,"checksum":{"algorithm":"CRC32","value":"","type":"PARTIAL"}}"#,
        #"{"format":1,"key":"","size":1,"etag":"","lastModified":0,"encryption":{"mode":"KMS","segments":[]}}"#,
        #"{"format":1,"key":"","size":1,"etag":"","lastModified":0,"bodyParts":[{"number":1}]}"#,
    ])
    func aMalformedRecordIsRefused(json: String) {
        #expect(StoredRecord(json: Array(json.utf8)) == nil)
    }

    @Test func missingAndNullOptionalMembersReadAsAbsent() {
        let json = #"{"format":1,"key":"","size":1,"etag":"e","lastModified":0,"md5":null,"partCount":null,"extra":[1]}"#
        let record = StoredRecord(json: Array(json.utf8))
        #expect(record == StoredRecord(key: "", size: 1, etag: "e", lastModified: 0))
    }
}
