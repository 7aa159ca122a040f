import Crypto
import Foundation
import Testing

@testable import WIFLocal

struct ObjectStoreMultipartTests {
    typealias Support = StorageTestSupport

    /// A configuration with a 1 KiB minimum part, so error cases need no large parts.
    static var smallParts: ObjectStore.Configuration {
        var configuration = ObjectStore.Configuration()
        configuration.minimumPartSize = 1024
        return configuration
    }

    static func expectedETag(_ parts: [[UInt8]]) -> String {
        let digests = parts.flatMap { Array(Insecure.MD5.hash(data: $0)) }
        return "\"\(Insecure.MD5.hash(data: digests).hexString)-\(parts.count)\""
    }

    @Test func happyPathWithFiveMebibyteParts() async throws {
        try await Support.withStore { store, root in
            let attributes = ObjectAttributes(contentType: "video/mp4", userMetadata: ["owner": "bob"])
            let upload = try await store.createMultipartUpload(bucket: Support.bucket, key: "videos/big.mp4", attributes: attributes)
            #expect(upload.key == "videos/big.mp4")
            #expect(upload.bucket == Support.bucket)
            #expect(upload.initiated == Date(timeIntervalSince1970: 1_700_000_000.25))
            let parts = [Support.bytes(5 * 1024 * 1024, seed: 1), Support.bytes(5 * 1024 * 1024, seed: 2), Support.bytes(1234, seed: 3)]
            var completed: [CompletedPart] = []
            // Uploaded out of order, completed in order.
            for number in [3, 1, 2] {
                let part = try await store.uploadPart(
                    bucket: Support.bucket, key: "videos/big.mp4", uploadId: upload.uploadId, partNumber: number,
                    body: StorageBody(parts[number - 1], chunkSize: 65_536),
                    checks: PayloadChecks(contentMD5: Data(Insecure.MD5.hash(data: parts[number - 1])).base64EncodedString())
                )
                #expect(part.etag == "\"\(Insecure.MD5.hash(data: parts[number - 1]).hexString)\"")
                #expect(part.size == Int64(parts[number - 1].count))
                completed.append(CompletedPart(partNumber: number, etag: part.etag))
            }
            completed.sort { $0.partNumber < $1.partNumber }
            let listed = try await store.listParts(bucket: Support.bucket, key: "videos/big.mp4", uploadId: upload.uploadId)
            #expect(listed.parts.map(\.partNumber) == [1, 2, 3])
            #expect(listed.parts.map(\.etag) == completed.map(\.etag))
            #expect(!listed.isTruncated)
            #expect(try await store.listMultipartUploads(bucket: Support.bucket).map(\.uploadId) == [upload.uploadId])

            let object = try await store.completeMultipartUpload(bucket: Support.bucket, key: "videos/big.mp4", uploadId: upload.uploadId, parts: completed)
            #expect(object.etag == Self.expectedETag(parts))
            let totalSize = parts.reduce(0) { $0 + $1.count }
            #expect(object.size == Int64(totalSize))
            #expect(object.partCount == 3)
            #expect(object.attributes == attributes)
            #expect(try await store.headObject(bucket: Support.bucket, key: "videos/big.mp4") == object)
            let whole: [UInt8] = parts.flatMap { $0 }
            #expect(try await Support.read(store, "videos/big.mp4") == whole)
            let range = try await Support.read(store, "videos/big.mp4", range: .from(Int64(5_242_878), through: Int64(5_242_881)))
            let expectedRange: [UInt8] = Array(parts[0].suffix(2)) + Array(parts[1].prefix(2))
            #expect(range == expectedRange)

            // The upload is gone and its files with it.
            await expectStoreError("NoSuchUpload") { _ = try await store.listParts(bucket: Support.bucket, key: "videos/big.mp4", uploadId: upload.uploadId) }
            #expect(try await store.listMultipartUploads(bucket: Support.bucket).isEmpty)
            #expect(Support.files(under: root + "/uploads").isEmpty)
            #expect(Support.files(under: root + "/tmp").isEmpty)
            let listing = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest())
            #expect(listing.objects == [ObjectSummary(key: "videos/big.mp4", size: object.size, etag: object.etag, lastModified: object.lastModified)])
        }
    }

    @Test func aSinglePartMayBeSmallAndPartsMayBeReplaced() async throws {
        try await Support.withStore { store, _ in
            let upload = try await store.createMultipartUpload(bucket: Support.bucket, key: "k")
            try await store.uploadPart(bucket: Support.bucket, key: "k", uploadId: upload.uploadId, partNumber: 1, body: StorageBody("first try"))
            let part = try await store.uploadPart(bucket: Support.bucket, key: "k", uploadId: upload.uploadId, partNumber: 1, body: StorageBody("tiny"))
            let object = try await store.completeMultipartUpload(bucket: Support.bucket, key: "k", uploadId: upload.uploadId, parts: [CompletedPart(partNumber: 1, etag: part.etag)])
            #expect(object.etag == Self.expectedETag([Array("tiny".utf8)]))
            #expect(try await Support.read(store, "k") == Array("tiny".utf8))
        }
    }

    @Test func partsMayBeSkippedAndETagsGivenUnquoted() async throws {
        try await Support.withStore(configuration: Self.smallParts) { store, _ in
            let upload = try await store.createMultipartUpload(bucket: Support.bucket, key: "k")
            var etags: [Int: String] = [:]
            for number in [2, 5, 9] {
                etags[number] = try await store.uploadPart(bucket: Support.bucket, key: "k", uploadId: upload.uploadId, partNumber: number, body: StorageBody(Support.bytes(1024, seed: UInt64(number)))).etag
            }
            // Part 5 is uploaded but left out.
            let two = try #require(etags[2])
            let nine = try #require(etags[9])
            let parts = [CompletedPart(partNumber: 2, etag: String(two.dropFirst().dropLast())), CompletedPart(partNumber: 9, etag: nine.uppercased())]
            let object = try await store.completeMultipartUpload(bucket: Support.bucket, key: "k", uploadId: upload.uploadId, parts: parts)
            #expect(object.etag == Self.expectedETag([Support.bytes(1024, seed: 2), Support.bytes(1024, seed: 9)]))
            #expect(try await Support.read(store, "k") == Support.bytes(1024, seed: 2) + Support.bytes(1024, seed: 9))
        }
    }

    @Test func completionErrors() async throws {
        try await Support.withStore(configuration: Self.smallParts) { store, _ in
            let upload = try await store.createMultipartUpload(bucket: Support.bucket, key: "k")
            let id = upload.uploadId
            let small = try await store.uploadPart(bucket: Support.bucket, key: "k", uploadId: id, partNumber: 1, body: StorageBody(Support.bytes(1023)))
            let big = try await store.uploadPart(bucket: Support.bucket, key: "k", uploadId: id, partNumber: 2, body: StorageBody(Support.bytes(1024)))
            let last = try await store.uploadPart(bucket: Support.bucket, key: "k", uploadId: id, partNumber: 3, body: StorageBody(Support.bytes(10)))

            let order = await expectStoreError("InvalidPartOrder") {
                try await store.completeMultipartUpload(bucket: Support.bucket, key: "k", uploadId: id, parts: [CompletedPart(partNumber: 2, etag: big.etag), CompletedPart(partNumber: 1, etag: small.etag)])
            }
            #expect(order?.storageDetail("UploadId") == id)
            await expectStoreError("InvalidPartOrder") {
                try await store.completeMultipartUpload(bucket: Support.bucket, key: "k", uploadId: id, parts: [CompletedPart(partNumber: 2, etag: big.etag), CompletedPart(partNumber: 2, etag: big.etag)])
            }
            let missing = await expectStoreError("InvalidPart") {
                try await store.completeMultipartUpload(bucket: Support.bucket, key: "k", uploadId: id, parts: [CompletedPart(partNumber: 2, etag: big.etag), CompletedPart(partNumber: 4, etag: big.etag)])
            }
            #expect(missing?.storageDetail("PartNumber") == "4")
            let wrongTag = await expectStoreError("InvalidPart") {
                try await store.completeMultipartUpload(bucket: Support.bucket, key: "k", uploadId: id, parts: [CompletedPart(partNumber: 2, etag: small.etag)])
            }
            #expect(wrongTag?.storageDetail("ETag") == small.etag)
            let tooSmall = await expectStoreError("EntityTooSmall") {
                try await store.completeMultipartUpload(bucket: Support.bucket, key: "k", uploadId: id, parts: [CompletedPart(partNumber: 1, etag: small.etag), CompletedPart(partNumber: 3, etag: last.etag)])
            }
            #expect(tooSmall?.storageDetail("PartNumber") == "1")
            #expect(tooSmall?.storageDetail("MinSizeAllowed") == "1024")
            await expectStoreError("MalformedXML") {
                try await store.completeMultipartUpload(bucket: Support.bucket, key: "k", uploadId: id, parts: [])
            }
            // Nothing was stored by the refused completions, and the upload is still usable.
            await expectStoreError("NoSuchKey") { _ = try await store.headObject(bucket: Support.bucket, key: "k") }
            let object = try await store.completeMultipartUpload(bucket: Support.bucket, key: "k", uploadId: id, parts: [CompletedPart(partNumber: 2, etag: big.etag), CompletedPart(partNumber: 3, etag: last.etag)])
            #expect(object.size == 1034)
            #expect(object.etag.hasSuffix("-2\""))
            await expectStoreError("NoSuchUpload") {
                try await store.completeMultipartUpload(bucket: Support.bucket, key: "k", uploadId: id, parts: [CompletedPart(partNumber: 2, etag: big.etag)])
            }
        }
    }

    @Test(arguments: [0, -1, 10_001])
    func partNumbersOutsideTheRangeAreRefused(number: Int) async throws {
        try await Support.withStore { store, _ in
            let upload = try await store.createMultipartUpload(bucket: Support.bucket, key: "k")
            let error = await expectStoreError("InvalidArgument") {
                try await store.uploadPart(bucket: Support.bucket, key: "k", uploadId: upload.uploadId, partNumber: number, body: StorageBody("x"))
            }
            #expect(error?.message == "Part number must be an integer between 1 and 10000, inclusive")
        }
    }

    @Test func partNumberBoundsAreAccepted() async throws {
        try await Support.withStore { store, _ in
            let upload = try await store.createMultipartUpload(bucket: Support.bucket, key: "k")
            for number in [1, 10_000] {
                try await store.uploadPart(bucket: Support.bucket, key: "k", uploadId: upload.uploadId, partNumber: number, body: StorageBody("x"))
            }
            #expect(try await store.listParts(bucket: Support.bucket, key: "k", uploadId: upload.uploadId).parts.map(\.partNumber) == [1, 10_000])
        }
    }

    @Test func unknownUploads() async throws {
        try await Support.withStore { store, _ in
            let upload = try await store.createMultipartUpload(bucket: Support.bucket, key: "k")
            for id in ["nope", "../../keys", String(repeating: "0", count: 48), upload.uploadId.uppercased()] {
                let error = await expectStoreError("NoSuchUpload") {
                    try await store.uploadPart(bucket: Support.bucket, key: "k", uploadId: id, partNumber: 1, body: StorageBody("x"))
                }
                #expect(error?.storageDetail("UploadId") == id)
                #expect(error?.status == .notFound)
            }
            // An upload belongs to its bucket and key.
            await expectStoreError("NoSuchUpload") {
                try await store.uploadPart(bucket: Support.bucket, key: "other", uploadId: upload.uploadId, partNumber: 1, body: StorageBody("x"))
            }
            try await store.createBucket("second-bucket")
            await expectStoreError("NoSuchUpload") { _ = try await store.listParts(bucket: "second-bucket", key: "k", uploadId: upload.uploadId) }
            await expectStoreError("NoSuchBucket") { _ = try await store.listParts(bucket: "missing-bucket", key: "k", uploadId: upload.uploadId) }
            await expectStoreError("NoSuchBucket") { _ = try await store.createMultipartUpload(bucket: "missing-bucket", key: "k") }
            await expectStoreError("KeyTooLongError") { _ = try await store.createMultipartUpload(bucket: Support.bucket, key: String(repeating: "k", count: 1025)) }
        }
    }

    @Test func abort() async throws {
        try await Support.withStore { store, root in
            let upload = try await store.createMultipartUpload(bucket: Support.bucket, key: "k")
            try await store.uploadPart(bucket: Support.bucket, key: "k", uploadId: upload.uploadId, partNumber: 1, body: StorageBody(Support.bytes(5000)))
            try await store.abortMultipartUpload(bucket: Support.bucket, key: "k", uploadId: upload.uploadId)
            #expect(Support.files(under: root + "/uploads").isEmpty)
            #expect(Support.files(under: root + "/tmp").isEmpty)
            await expectStoreError("NoSuchUpload") { try await store.abortMultipartUpload(bucket: Support.bucket, key: "k", uploadId: upload.uploadId) }
            await expectStoreError("NoSuchUpload") {
                try await store.uploadPart(bucket: Support.bucket, key: "k", uploadId: upload.uploadId, partNumber: 2, body: StorageBody("x"))
            }
            await expectStoreError("NoSuchUpload") {
                try await store.completeMultipartUpload(bucket: Support.bucket, key: "k", uploadId: upload.uploadId, parts: [CompletedPart(partNumber: 1, etag: "\"x\"")])
            }
        }
    }

    @Test func aFailingPartStreamLeavesThePreviousPart() async throws {
        try await Support.withStore { store, root in
            let upload = try await store.createMultipartUpload(bucket: Support.bucket, key: "k")
            let part = try await store.uploadPart(bucket: Support.bucket, key: "k", uploadId: upload.uploadId, partNumber: 1, body: StorageBody("kept"))
            await expectStoreError("IncompleteBody") {
                try await store.uploadPart(bucket: Support.bucket, key: "k", uploadId: upload.uploadId, partNumber: 1, body: StorageBody(Support.bytes(9000), failure: StorageBody.Interrupted()))
            }
            await expectStoreError("BadDigest") {
                try await store.uploadPart(
                    bucket: Support.bucket, key: "k", uploadId: upload.uploadId, partNumber: 1, body: StorageBody("other"),
                    checks: PayloadChecks(contentMD5: Data(Insecure.MD5.hash(data: Array("kept".utf8))).base64EncodedString())
                )
            }
            #expect(try await store.listParts(bucket: Support.bucket, key: "k", uploadId: upload.uploadId).parts.map(\.etag) == [part.etag])
            #expect(Support.files(under: root + "/tmp").isEmpty)
        }
    }

    @Test func uploadsSurviveARestart() async throws {
        let root = Support.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let uploadId: String
        let first: PartInfo
        do {
            let store = try Support.openStore(root: root, configuration: Self.smallParts)
            let upload = try await store.createMultipartUpload(bucket: Support.bucket, key: "resumed", attributes: ObjectAttributes(contentType: "text/plain"))
            uploadId = upload.uploadId
            first = try await store.uploadPart(bucket: Support.bucket, key: "resumed", uploadId: uploadId, partNumber: 1, body: StorageBody(Support.bytes(2048)))
        }
        let store = try Support.openStore(root: root, configuration: Self.smallParts)
        #expect(try await store.listMultipartUploads(bucket: Support.bucket).map(\.key) == ["resumed"])
        let second = try await store.uploadPart(bucket: Support.bucket, key: "resumed", uploadId: uploadId, partNumber: 2, body: StorageBody("end"))
        let object = try await store.completeMultipartUpload(
            bucket: Support.bucket, key: "resumed", uploadId: uploadId,
            parts: [CompletedPart(partNumber: 1, etag: first.etag), CompletedPart(partNumber: 2, etag: second.etag)]
        )
        #expect(object.attributes.contentType == "text/plain")
        #expect(try await Support.read(store, "resumed") == Support.bytes(2048) + Array("end".utf8))
    }

    @Test func listPartsPages() async throws {
        try await Support.withStore { store, _ in
            let upload = try await store.createMultipartUpload(bucket: Support.bucket, key: "k")
            for number in 1...7 {
                try await store.uploadPart(bucket: Support.bucket, key: "k", uploadId: upload.uploadId, partNumber: number * 2, body: StorageBody("p\(number)"))
            }
            let first = try await store.listParts(bucket: Support.bucket, key: "k", uploadId: upload.uploadId, maxParts: 3)
            #expect(first.parts.map(\.partNumber) == [2, 4, 6])
            #expect(first.isTruncated && first.nextPartNumberMarker == 6)
            let second = try await store.listParts(bucket: Support.bucket, key: "k", uploadId: upload.uploadId, partNumberMarker: 6, maxParts: 3)
            #expect(second.parts.map(\.partNumber) == [8, 10, 12])
            let third = try await store.listParts(bucket: Support.bucket, key: "k", uploadId: upload.uploadId, partNumberMarker: 12, maxParts: 3)
            #expect(third.parts.map(\.partNumber) == [14])
            #expect(!third.isTruncated && third.nextPartNumberMarker == nil)
            await expectStoreError("InvalidArgument") { _ = try await store.listParts(bucket: Support.bucket, key: "k", uploadId: upload.uploadId, maxParts: -1) }
        }
    }

    @Test func deletingABucketDiscardsItsUploads() async throws {
        try await Support.withStore { store, root in
            try await store.createBucket("short-lived")
            let upload = try await store.createMultipartUpload(bucket: "short-lived", key: "k")
            try await store.uploadPart(bucket: "short-lived", key: "k", uploadId: upload.uploadId, partNumber: 1, body: StorageBody("x"))
            let kept = try await store.createMultipartUpload(bucket: Support.bucket, key: "k")
            try await store.deleteBucket("short-lived")
            #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/uploads") == [kept.uploadId])
        }
    }
}
