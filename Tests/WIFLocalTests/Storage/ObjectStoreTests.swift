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
            let outcomes = try await store.deleteObjects(
                bucket: Support.bucket, keys: ["a", "missing", String(repeating: "x", count: 1025), "c"].map { ($0, nil) })
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
            await expectStoreError("NoSuchBucket") { _ = try await store.deleteObjects(bucket: "missing-bucket", keys: [("a", nil)]) }
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
}
