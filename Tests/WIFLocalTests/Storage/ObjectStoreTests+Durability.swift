import Crypto
import Foundation
import NIOCore
import Testing
import WIFCredentials

@testable import WIFLocal

extension ObjectStoreTests {
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
