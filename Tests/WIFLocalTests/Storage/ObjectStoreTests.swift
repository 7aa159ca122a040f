import Crypto
import Foundation
import NIOCore
import Testing
import WIFCredentials

@testable import WIFLocal

struct ObjectStoreTests {
    typealias Support = StorageTestSupport

    // MARK: Buckets

    @Test func configuredBucketsAreCreatedOnceAndKeepTheirDate() async throws {
        let root = Support.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let first = try Support.openStore(root: root)
        #expect(first.listBuckets() == [BucketInfo(name: Support.bucket, creationDate: Date(timeIntervalSince1970: 1_700_000_000.25))])
        try await first.createBucket("second.bucket")
        // Reopening with the same configured bucket is not an error and keeps the buckets.
        let second = try ObjectStore(
            data: try DataDirectory(root: root),
            buckets: [Support.bucket],
            timeSource: TimeSource(now: { Date(timeIntervalSince1970: 1_800_000_000) }, sleep: { _ in })
        )
        #expect(second.listBuckets().map(\.name) == ["second.bucket", Support.bucket])
        #expect(second.listBuckets().allSatisfy { $0.creationDate == Date(timeIntervalSince1970: 1_700_000_000.25) })
    }

    @Test func anInvalidConfiguredBucketStopsTheStart() throws {
        let root = Support.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(throws: LocalStackError.self) {
            _ = try ObjectStore(data: try DataDirectory(root: root), buckets: ["Bad_Bucket"])
        }
    }

    @Test func bucketLifecycle() async throws {
        try await Support.withStore { store, _ in
            try await store.createBucket("other-bucket")
            #expect(store.bucketExists("other-bucket"))
            let duplicate = await expectStoreError("BucketAlreadyOwnedByYou") { try await store.createBucket("other-bucket") }
            #expect(duplicate?.status == .conflict)
            let invalid = await expectStoreError("InvalidBucketName") { try await store.createBucket("Other") }
            #expect(invalid?.storageDetail("BucketName") == "Other")
            await expectStoreError("InvalidBucketName") { try await store.createBucket("..") }

            try await store.putObject(bucket: "other-bucket", key: "k", body: StorageBody("x"))
            let notEmpty = await expectStoreError("BucketNotEmpty") { try await store.deleteBucket("other-bucket") }
            #expect(notEmpty?.status == .conflict)
            try await store.deleteObject(bucket: "other-bucket", key: "k")
            try await store.deleteBucket("other-bucket")
            #expect(!store.bucketExists("other-bucket"))
            let missing = await expectStoreError("NoSuchBucket") { try await store.deleteBucket("other-bucket") }
            #expect(missing?.status == .notFound)
            #expect(missing?.storageDetail("BucketName") == "other-bucket")
            await expectStoreError("NoSuchBucket") { try await store.putObject(bucket: "other-bucket", key: "k", body: StorageBody("x")) }
            await expectStoreError("NoSuchBucket") { _ = try await store.getObject(bucket: "other-bucket", key: "k") }
            await expectStoreError("NoSuchBucket") { _ = try await store.listObjects(bucket: "other-bucket", ListObjectsRequest()) }
            // The name can be used again, empty.
            try await store.createBucket("other-bucket")
            #expect(try await store.listObjects(bucket: "other-bucket", ListObjectsRequest()).keyCount == 0)
        }
    }

    // MARK: Put, get, head, delete

    @Test func putThenGetAndHead() async throws {
        try await Support.withStore { store, _ in
            let bytes = Support.bytes(300_000)
            let attributes = ObjectAttributes(
                contentType: "image/png",
                contentEncoding: "gzip",
                contentDisposition: "attachment; filename=\"a.png\"",
                contentLanguage: "fr",
                cacheControl: "no-cache",
                expires: "Wed, 21 Oct 2026 07:28:00 GMT",
                userMetadata: ["owner": "alice", "note": "caf\u{E9}"]
            )
            let sha256 = SHA256.hash(data: bytes).hexString
            let put = try await store.putObject(
                bucket: Support.bucket,
                key: "photos/a.png",
                body: StorageBody(bytes),
                attributes: attributes,
                checks: PayloadChecks(expectedSHA256: sha256.uppercased(), contentMD5: Data(Insecure.MD5.hash(data: bytes)).base64EncodedString(), expectedLength: 300_000)
            )
            #expect(put.etag == "\"\(Insecure.MD5.hash(data: bytes).hexString)\"")
            #expect(put.size == 300_000)
            #expect(put.sha256 == sha256)
            #expect(put.partCount == nil)
            #expect(put.lastModified == Date(timeIntervalSince1970: 1_700_000_000.25))

            let head = try await store.headObject(bucket: Support.bucket, key: "photos/a.png")
            #expect(head == put)
            #expect(head.attributes == attributes)

            let content = try await store.getObject(bucket: Support.bucket, key: "photos/a.png")
            #expect(content.info == put)
            #expect(content.range == nil)
            #expect(content.contentRange == nil)
            #expect(content.contentLength == 300_000)
            var chunks = 0
            var collected: [UInt8] = []
            for try await buffer in content.body {
                chunks += 1
                #expect(buffer.readableBytes <= 256 * 1024)
                collected += buffer.readableBytesView
            }
            #expect(chunks == 2)
            #expect(collected == bytes)
        }
    }

    @Test func emptyObjectsAreStored() async throws {
        try await Support.withStore { store, _ in
            let info = try await store.putObject(bucket: Support.bucket, key: "empty", body: StorageBody([]))
            #expect(info.etag == "\"d41d8cd98f00b204e9800998ecf8427e\"")
            #expect(info.size == 0)
            #expect(try await Support.read(store, "empty") == [])
        }
    }

    @Test func aPutReplacesTheObject() async throws {
        try await Support.withStore { store, _ in
            try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody("first version"), attributes: ObjectAttributes(userMetadata: ["v": "1"]))
            let second = try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody("second"))
            #expect(try await Support.read(store, "k") == Array("second".utf8))
            #expect(try await store.headObject(bucket: Support.bucket, key: "k").attributes.userMetadata.isEmpty)
            let listing = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest())
            #expect(listing.objects == [ObjectSummary(key: "k", size: 6, etag: second.etag, lastModified: second.lastModified)])
        }
    }

    @Test func aReaderKeepsTheVersionItOpened() async throws {
        try await Support.withStore { store, _ in
            try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody(Support.bytes(600_000, seed: 1)))
            let content = try await store.getObject(bucket: Support.bucket, key: "k")
            try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody(Support.bytes(10, seed: 2)))
            try await store.deleteObject(bucket: Support.bucket, key: "k")
            #expect(Array(try await content.body.collect().readableBytesView) == Support.bytes(600_000, seed: 1))
        }
    }

    @Test func missingObjects() async throws {
        try await Support.withStore { store, _ in
            let error = await expectStoreError("NoSuchKey") { _ = try await store.getObject(bucket: Support.bucket, key: "nope/x") }
            #expect(error?.status == .notFound)
            #expect(error?.storageDetail("Key") == "nope/x")
            await expectStoreError("NoSuchKey") { _ = try await store.headObject(bucket: Support.bucket, key: "nope") }
            await expectStoreError("NoSuchBucket") { _ = try await store.headObject(bucket: "missing-bucket", key: "nope") }
        }
    }

    @Test func deleteIsIdempotent() async throws {
        try await Support.withStore { store, _ in
            try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody("x"))
            #expect(try await store.deleteObject(bucket: Support.bucket, key: "k"))
            #expect(try await store.deleteObject(bucket: Support.bucket, key: "k") == false)
            await expectStoreError("NoSuchKey") { _ = try await store.headObject(bucket: Support.bucket, key: "k") }
            await expectStoreError("NoSuchBucket") { try await store.deleteObject(bucket: "missing-bucket", key: "k") }
        }
    }

    @Test func deleteObjectsReportsEachKey() async throws {
        try await Support.withStore { store, _ in
            for key in ["a", "b", "c"] { try await store.putObject(bucket: Support.bucket, key: key, body: StorageBody(key)) }
            let outcomes = try await store.deleteObjects(bucket: Support.bucket, keys: ["a", "missing", String(repeating: "x", count: 1025), "c"])
            #expect(outcomes.count == 4)
            var deleted: [String] = []
            var failed: [String: String] = [:]
            for outcome in outcomes {
                switch outcome {
                case .deleted(let key): deleted.append(key)
                case .failed(let key, let error): failed[key] = error.code
                }
            }
            #expect(deleted == ["a", "missing", "c"])
            #expect(failed == [String(repeating: "x", count: 1025): "KeyTooLongError"])
            #expect(try await store.listObjects(bucket: Support.bucket, ListObjectsRequest()).objects.map(\.key) == ["b"])
            await expectStoreError("NoSuchBucket") { _ = try await store.deleteObjects(bucket: "missing-bucket", keys: ["a"]) }
        }
    }

    // MARK: Ranges

    @Test func rangedReads() async throws {
        try await Support.withStore { store, _ in
            let bytes = Support.bytes(1_000)
            try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody(bytes))
            let cases: [(String, ClosedRange<Int>)] = [("bytes=0-0", 0...0), ("bytes=10-19", 10...19), ("bytes=990-", 990...999), ("bytes=-5", 995...999), ("bytes=500-5000", 500...999)]
            for (header, expected) in cases {
                let range = try #require(ByteRange(header: header))
                let content = try await store.getObject(bucket: Support.bucket, key: "k", range: range)
                #expect(content.range == Int64(expected.lowerBound)...Int64(expected.upperBound))
                #expect(content.contentLength == Int64(expected.count))
                #expect(content.contentRange == "bytes \(expected.lowerBound)-\(expected.upperBound)/1000")
                #expect(Array(try await content.body.collect().readableBytesView) == Array(bytes[expected]))
            }
            let error = await expectStoreError("InvalidRange") {
                _ = try await store.getObject(bucket: Support.bucket, key: "k", range: .from(1000))
            }
            #expect(error?.status == .rangeNotSatisfiable)
        }
    }

    @Test func rangesSpanningReadChunks() async throws {
        var configuration = ObjectStore.Configuration()
        configuration.readChunkSize = 4096
        try await Support.withStore(configuration: configuration) { store, _ in
            let bytes = Support.bytes(50_000)
            try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody(bytes, chunkSize: 999))
            let content = try await store.getObject(bucket: Support.bucket, key: "k", range: .from(4000, through: 20_000))
            var sizes: [Int] = []
            var collected: [UInt8] = []
            for try await buffer in content.body {
                sizes.append(buffer.readableBytes)
                collected += buffer.readableBytesView
            }
            #expect(sizes == [4096, 4096, 4096, 3713])
            #expect(collected == Array(bytes[4000...20_000]))
        }
    }

    // MARK: Payload checks

    @Test func digestsAreChecked() async throws {
        try await Support.withStore { store, root in
            let body = Array("hello world".utf8)
            let goodMD5 = Data(Insecure.MD5.hash(data: body)).base64EncodedString()
            let wrongMD5 = Data(Insecure.MD5.hash(data: Array("other".utf8))).base64EncodedString()

            let bad = await expectStoreError("BadDigest") {
                try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody(body), checks: PayloadChecks(contentMD5: wrongMD5))
            }
            #expect(bad?.storageDetail("CalculatedDigest") == goodMD5)
            for invalid in ["not base64!", "AAAA", Data(repeating: 1, count: 17).base64EncodedString()] {
                let error = await expectStoreError("InvalidDigest") {
                    try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody(body), checks: PayloadChecks(contentMD5: invalid))
                }
                #expect(error?.message == "The Content-MD5 you specified was invalid.")
            }
            let wrongSHA = SHA256.hash(data: Array("other".utf8)).hexString
            let mismatch = await expectStoreError("XAmzContentSHA256Mismatch") {
                try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody(body), checks: PayloadChecks(expectedSHA256: wrongSHA))
            }
            #expect(mismatch?.storageDetail("ClientComputedContentSHA256") == wrongSHA)
            #expect(mismatch?.storageDetail("S3ComputedContentSHA256") == SHA256.hash(data: body).hexString)
            await expectStoreError("InvalidArgument") {
                try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody(body), checks: PayloadChecks(expectedSHA256: "abc"))
            }
            let short = await expectStoreError("IncompleteBody") {
                try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody(body), checks: PayloadChecks(expectedLength: 20))
            }
            #expect(short?.storageDetail("ReceivedLength") == "11")

            // None of the refused puts left an object or a temporary file.
            await expectStoreError("NoSuchKey") { _ = try await store.headObject(bucket: Support.bucket, key: "k") }
            #expect(Support.files(under: root + "/tmp").isEmpty)
            #expect(Support.files(under: root + "/buckets").allSatisfy { $0.hasSuffix("bucket.json") })

            try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody(body), checks: PayloadChecks(expectedSHA256: SHA256.hash(data: body).hexString, contentMD5: goodMD5, expectedLength: 11))
            #expect(try await Support.read(store, "k") == body)
        }
    }

    @Test func sizeLimits() async throws {
        var configuration = ObjectStore.Configuration()
        configuration.maximumObjectSize = 10_000
        try await Support.withStore(configuration: configuration) { store, root in
            let streamed = await expectStoreError("EntityTooLarge") {
                try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody(Support.bytes(10_001), chunkSize: 3000))
            }
            #expect(streamed?.storageDetail("MaxSizeAllowed") == "10000")
            let declared = await expectStoreError("EntityTooLarge") {
                try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody([]), checks: PayloadChecks(expectedLength: 20_000))
            }
            #expect(declared?.storageDetail("ProposedSize") == "20000")
            #expect(Support.files(under: root + "/tmp").isEmpty)
            try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody(Support.bytes(10_000)))

            let metadata = ObjectAttributes(userMetadata: ["big": String(repeating: "v", count: 2046)])
            await expectStoreError("MetadataTooLarge") { try await store.putObject(bucket: Support.bucket, key: "m", body: StorageBody("x"), attributes: metadata) }
        }
    }

    // MARK: Durability

    @Test func aFailingStreamLeavesTheOldObject() async throws {
        try await Support.withStore { store, root in
            try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody("old contents"))
            let error = await expectStoreError("IncompleteBody") {
                try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody(Support.bytes(100_000), failure: StorageBody.Interrupted()))
            }
            #expect(error?.storageDetail("ReceivedLength") == "100000")
            #expect(try await Support.read(store, "k") == Array("old contents".utf8))
            #expect(try await store.headObject(bucket: Support.bucket, key: "k").size == 12)

            await expectStoreError("IncompleteBody") {
                try await store.putObject(bucket: Support.bucket, key: "new", body: StorageBody(Support.bytes(1000), failure: StorageBody.Interrupted()))
            }
            await expectStoreError("NoSuchKey") { _ = try await store.headObject(bucket: Support.bucket, key: "new") }
            #expect(try await store.listObjects(bucket: Support.bucket, ListObjectsRequest()).objects.map(\.key) == ["k"])
            #expect(Support.files(under: root + "/tmp").isEmpty)
        }
    }

    @Test func anErrorThrownByTheBodyIsPassedThrough() async throws {
        try await Support.withStore { store, _ in
            let failure = AWSErrorResponse("SignatureDoesNotMatch", "chunk signature mismatch", status: .forbidden)
            await expectStoreError("SignatureDoesNotMatch") {
                try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody(Support.bytes(10), failure: failure))
            }
            await expectStoreError("NoSuchKey") { _ = try await store.headObject(bucket: Support.bucket, key: "k") }
        }
    }

    @Test func aRestartSeesEveryCommittedObjectAndCleansTemporaryFiles() async throws {
        let root = Support.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        var expected: [String: ObjectInfo] = [:]
        do {
            let store = try Support.openStore(root: root)
            for index in 0..<50 {
                let key = "dir\(index % 3)/object-\(index)"
                expected[key] = try await store.putObject(bucket: Support.bucket, key: key, body: StorageBody(Support.bytes(index * 10, seed: UInt64(index))))
            }
            try await store.deleteObject(bucket: Support.bucket, key: "dir0/object-0")
            expected["dir0/object-0"] = nil
            // What a crash mid-put leaves behind: a temporary file and a staging folder.
            FileManager.default.createFile(atPath: root + "/tmp/" + UUID().uuidString.lowercased(), contents: Data(Support.bytes(5000)))
            try FileManager.default.createDirectory(atPath: root + "/tmp/bucket-leftover", withIntermediateDirectories: true)
        }
        let reopened = try Support.openStore(root: root)
        #expect(Support.files(under: root + "/tmp").isEmpty)
        #expect((try FileManager.default.contentsOfDirectory(atPath: root + "/tmp")).isEmpty)
        let listing = try await reopened.listObjects(bucket: Support.bucket, ListObjectsRequest())
        #expect(listing.objects.map(\.key) == expected.keys.sorted())
        for (key, info) in expected {
            #expect(try await reopened.headObject(bucket: Support.bucket, key: key) == info)
            #expect(try await Support.read(reopened, key) == Support.bytes(Int(info.size), seed: UInt64(key.split(separator: "-").last.flatMap { Int($0) } ?? 0)))
        }
        #expect(listing.objects.first { $0.key == "dir1/object-1" }?.etag == expected["dir1/object-1"]?.etag)
    }

    @Test func foreignOrDamagedFilesInABucketAreSkippedAtStart() async throws {
        let root = Support.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        do {
            let store = try Support.openStore(root: root)
            try await store.putObject(bucket: Support.bucket, key: "good", body: StorageBody("fine"))
        }
        let bucketPath = root + "/buckets/" + Support.bucket
        try FileManager.default.createDirectory(atPath: bucketPath + "/ab", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: bucketPath + "/ab/" + String(repeating: "ab", count: 32), contents: Data("garbage".utf8))
        FileManager.default.createFile(atPath: bucketPath + "/notes.txt", contents: Data("x".utf8))
        let reopened = try Support.openStore(root: root)
        #expect(try await reopened.listObjects(bucket: Support.bucket, ListObjectsRequest()).objects.map(\.key) == ["good"])
    }

    // MARK: Keys and paths

    static let hostileKeys = [
        "../x", "../../../../../../etc/passwd", "..", ".", "..%2f..%2fescape", "%2e%2e/%2e%2e/escape", "/etc/passwd", "//double//slash",
        "a\\b", "..\\..\\windows", "a/./b", "a/../b", "tmp/../../uploads/x", String(repeating: "../", count: 341), "\u{202E}rtl", "line\nbreak",
    ]

    @Test func hostileKeysStayInTheBucket() async throws {
        let parent = Support.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let root = parent + "/data"
        do {
            let store = try Support.openStore(root: root)
            for (index, key) in Self.hostileKeys.enumerated() {
                try await store.putObject(bucket: Support.bucket, key: key, body: StorageBody("value \(index)"))
            }
            for (index, key) in Self.hostileKeys.enumerated() {
                #expect(try await Support.read(store, key) == Array("value \(index)".utf8), "\(key)")
            }
            let listing = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest())
            #expect(listing.objects.map(\.key) == Self.hostileKeys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
            // Every file is in the bucket, under a hexadecimal fan-out folder; nothing was written beside the root.
            let files = Support.files(under: root)
            let objectFiles = files.filter { $0.hasPrefix("buckets/\(Support.bucket)/") && !$0.hasSuffix("/bucket.json") }
            #expect(objectFiles.count == Self.hostileKeys.count)
            for file in objectFiles {
                let parts = file.split(separator: "/")
                #expect(parts.count == 4)
                #expect(parts[2].count == 2 && parts[3].count == 64 && parts[3].hasPrefix(parts[2]))
            }
            #expect(files.filter { !$0.hasPrefix("buckets/") && !$0.hasPrefix("keys/") }.isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: parent) == ["data"])
            for key in Self.hostileKeys { try await store.deleteObject(bucket: Support.bucket, key: key) }
            #expect(Support.files(under: root + "/buckets").allSatisfy { $0.hasSuffix("bucket.json") })
        }
    }

    @Test func invalidKeysAreRefused() async throws {
        try await Support.withStore { store, _ in
            let long = String(repeating: "k", count: 1025)
            await expectStoreError("KeyTooLongError") { try await store.putObject(bucket: Support.bucket, key: long, body: StorageBody("x")) }
            await expectStoreError("KeyTooLongError") { _ = try await store.getObject(bucket: Support.bucket, key: long) }
            await expectStoreError("InvalidArgument") { try await store.putObject(bucket: Support.bucket, key: "a\u{0}b", body: StorageBody("x")) }
            await expectStoreError("InvalidArgument") { try await store.putObject(bucket: Support.bucket, key: "", body: StorageBody("x")) }
            let longest = String(repeating: "k", count: 1024)
            try await store.putObject(bucket: Support.bucket, key: longest, body: StorageBody("x"))
            #expect(try await Support.read(store, longest) == Array("x".utf8))
        }
    }

    @Test func aKeyAndItsExtensionsCoexist() async throws {
        try await Support.withStore { store, _ in
            let keys = ["a", "a/", "a/b", "a/b/c", "a//b", "a/b/c/"]
            for key in keys { try await store.putObject(bucket: Support.bucket, key: key, body: StorageBody("value of \(key)")) }
            for key in keys { #expect(try await Support.read(store, key) == Array("value of \(key)".utf8)) }
            try await store.deleteObject(bucket: Support.bucket, key: "a/b")
            #expect(try await Support.read(store, "a/b/c") == Array("value of a/b/c".utf8))
        }
    }

    @Test func canonicallyEquivalentKeysAreDistinctObjects() async throws {
        try await Support.withStore { store, _ in
            try await store.putObject(bucket: Support.bucket, key: "caf\u{E9}", body: StorageBody("composed"))
            try await store.putObject(bucket: Support.bucket, key: "cafe\u{301}", body: StorageBody("decomposed"))
            #expect(try await Support.read(store, "caf\u{E9}") == Array("composed".utf8))
            #expect(try await Support.read(store, "cafe\u{301}") == Array("decomposed".utf8))
            let keys = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest()).objects.map { Array($0.key.utf8) }
            #expect(keys == [Array("cafe\u{301}".utf8), Array("caf\u{E9}".utf8)])
        }
    }

    // MARK: Concurrency

    @Test func parallelPutsToDifferentAndSameKeys() async throws {
        try await Support.withStore { store, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        try await store.putObject(bucket: Support.bucket, key: "parallel/\(index)", body: StorageBody(Support.bytes(20_000, seed: UInt64(index)), chunkSize: 1000))
                    }
                    group.addTask {
                        try await store.putObject(bucket: Support.bucket, key: "contended", body: StorageBody(Support.bytes(5000, seed: UInt64(index)), chunkSize: 500))
                    }
                }
                try await group.waitForAll()
            }
            let listing = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest())
            #expect(listing.keyCount == 41)
            for index in 0..<40 {
                #expect(try await Support.read(store, "parallel/\(index)") == Support.bytes(20_000, seed: UInt64(index)))
            }
            // The index and the disk agree on which put of the contended key won.
            let winner = try await store.headObject(bucket: Support.bucket, key: "contended")
            #expect(listing.objects.first { $0.key == "contended" }?.etag == winner.etag)
            let body = try await Support.read(store, "contended")
            #expect("\"\(Insecure.MD5.hash(data: body).hexString)\"" == winner.etag)
        }
    }
}
