import Foundation
import Testing

@testable import WIFLocal

struct ObjectKeyTests {
    @Test func keysCompareByUTF8Bytes() throws {
        let composed = try ObjectKey("caf\u{E9}")
        let decomposed = try ObjectKey("cafe\u{301}")
        // Equal as Swift strings, distinct as S3 keys.
        #expect("caf\u{E9}" == "cafe\u{301}")
        #expect(composed != decomposed)
        #expect(decomposed < composed)
        #expect(try ObjectKey("Z") < ObjectKey("a"))
        #expect(try ObjectKey("a") < ObjectKey("a/"))
        #expect(try ObjectKey("~") < ObjectKey("\u{E9}"))
        #expect(try ObjectKey("\u{FFFD}") < ObjectKey("\u{1F600}"))
    }

    @Test func keyLengthIsCountedInBytes() async throws {
        #expect(try ObjectKey(String(repeating: "a", count: 1024)).bytes.count == 1024)
        // 512 two-byte characters fit, 513 do not.
        #expect(try ObjectKey(String(repeating: "\u{E9}", count: 512)).bytes.count == 1024)
        let error = await expectStoreError("KeyTooLongError") { _ = try ObjectKey(String(repeating: "\u{E9}", count: 513)) }
        #expect(error?.storageDetail("Size") == "1026")
        #expect(error?.storageDetail("MaxSizeAllowed") == "1024")
    }

    @Test(arguments: ["", "a\u{0}b", "\u{0}"])
    func emptyKeysAndNULAreRejected(key: String) async {
        await expectStoreError("InvalidArgument") { _ = try ObjectKey(key) }
    }

    @Test func invalidUTF8IsRejected() async {
        await expectStoreError("InvalidArgument") { _ = try ObjectKey(bytes: [0x61, 0xC3]) }
        await expectStoreError("InvalidArgument") { _ = try ObjectKey(bytes: [0xFF, 0x61]) }
        await expectStoreError("InvalidArgument") { _ = try ObjectKey(bytes: [0xED, 0xA0, 0x80]) }
    }

    @Test(arguments: ["../x", "..", ".", "/etc/passwd", "a\\b", "..%2f..%2fetc", "a//b/"])
    func storageNamesAreHexadecimalDigests(key: String) throws {
        let name = try ObjectKey(key).storageName
        #expect(name.file.count == 64)
        #expect(name.file.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(name.folder == String(name.file.prefix(2)))
    }
}

struct BucketNameTests {
    @Test(arguments: ["abc", "wif-personal", "my.bucket.name", "a1b", "0ab", String(repeating: "a", count: 63)])
    func validNames(name: String) {
        #expect(BucketName.check(name) == nil)
    }

    @Test(arguments: [
        ("ab", "between 3 and 63"),
        (String(repeating: "a", count: 64), "between 3 and 63"),
        ("My-Bucket", "lowercase"),
        ("my_bucket", "lowercase"),
        ("my bucket", "lowercase"),
        ("-abc", "begin and end"),
        ("abc-", "begin and end"),
        (".abc", "begin and end"),
        ("a..b", "adjacent periods"),
        ("192.168.5.4", "IP address"),
        ("xn--abc", "xn--"),
        ("sthree-abc", "sthree-"),
        ("abc-s3alias", "-s3alias"),
        ("abc--ol-s3", "--ol-s3"),
        ("../x", "lowercase"),
    ])
    func invalidNames(name: String, reason: String) {
        let message = BucketName.check(name)
        #expect(message?.contains(reason) == true, "\(name): \(message ?? "accepted")")
    }
}

struct ByteRangeTests {
    @Test(arguments: [
        ("bytes=0-0", 0...0),
        ("bytes=0-9", 0...9),
        ("bytes=5-", 5...99),
        ("bytes=90-200", 90...99),
        ("bytes=-10", 90...99),
        ("bytes=-1000", 0...99),
        ("bytes=99-99", 99...99),
        (" bytes=1-2 ", 1...2),
    ] as [(String, ClosedRange<Int64>)])
    func satisfiableRanges(header: String, expected: ClosedRange<Int64>) throws {
        let range = try #require(ByteRange(header: header))
        #expect(try range.resolve(size: 100) == expected)
    }

    @Test(arguments: ["bytes=100-", "bytes=100-200", "bytes=-0", "bytes=1000-1001"])
    func unsatisfiableRanges(header: String) async throws {
        let range = try #require(ByteRange(header: header))
        let error = await expectStoreError("InvalidRange") { _ = try range.resolve(size: 100) }
        #expect(error?.status == .rangeNotSatisfiable)
        #expect(error?.storageDetail("ActualObjectSize") == "100")
        #expect(error?.storageDetail("RangeRequested") == header.trimmingCharacters(in: .whitespaces))
    }

    @Test func anyRangeOfAnEmptyObjectIsUnsatisfiable() async throws {
        for header in ["bytes=0-", "bytes=0-0", "bytes=-5"] {
            let range = try #require(ByteRange(header: header))
            await expectStoreError("InvalidRange") { _ = try range.resolve(size: 0) }
        }
    }

    /// S3 ignores a Range header it cannot parse and serves the whole object.
    @Test(arguments: ["", "bytes", "bytes=", "bytes=-", "bytes=a-b", "bytes=5-1", "bytes=0-1,3-4", "items=0-1", "bytes=+1-2", "bytes=1--2", "bytes=0x10-"])
    func malformedRangesAreIgnored(header: String) {
        #expect(ByteRange(header: header) == nil)
    }
}
