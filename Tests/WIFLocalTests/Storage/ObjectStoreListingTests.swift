import Foundation
import Testing

@testable import WIFLocal

struct ObjectStoreListingTests {
    typealias Support = StorageTestSupport

    static func store(_ store: ObjectStore, keys: [String]) async throws {
        for key in keys { try await store.putObject(bucket: Support.bucket, key: key, body: StorageBody(key)) }
    }

    /// Every page of a listing, following continuation tokens.
    static func pages(_ store: ObjectStore, _ request: ListObjectsRequest) async throws -> [ListObjectsResult] {
        var request = request
        var pages: [ListObjectsResult] = []
        while true {
            let page = try await store.listObjects(bucket: Support.bucket, request)
            pages.append(page)
            guard page.isTruncated, let token = page.nextContinuationToken, pages.count < 100 else { break }
            request.continuationToken = token
        }
        return pages
    }

    @Test func paginationAcross2500Keys() async throws {
        try await Support.withStore { store, _ in
            let keys = (0..<2500).map { String(format: "k%05d", ($0 * 7919) % 2500) }
            try await Self.store(store, keys: keys)
            let pages = try await Self.pages(store, ListObjectsRequest(maxKeys: 5000))
            #expect(pages.map(\.keyCount) == [1000, 1000, 500])
            #expect(pages.map(\.isTruncated) == [true, true, false])
            #expect(pages.last?.nextContinuationToken == nil)
            #expect(pages.flatMap(\.objects).map(\.key) == keys.sorted())
            #expect(pages[0].objects.first?.size == 6)

            let small = try await Self.pages(store, ListObjectsRequest(prefix: "k024", maxKeys: 7))
            #expect(small.flatMap(\.objects).map(\.key) == (2400..<2500).map { String(format: "k%05d", $0) })
            #expect(small.count == 15)
        }
    }

    @Test func delimiterRollsKeysIntoCommonPrefixes() async throws {
        try await Support.withStore { store, _ in
            try await Self.store(store, keys: ["a.txt", "photos/2024/a.jpg", "photos/2024/b.jpg", "photos/2025/c.jpg", "photos/index.html", "photos/", "videos/x.mp4", "z"])
            let top = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest(delimiter: "/"))
            #expect(top.objects.map(\.key) == ["a.txt", "z"])
            #expect(top.commonPrefixes == ["photos/", "videos/"])
            #expect(top.keyCount == 4)
            #expect(!top.isTruncated)

            let photos = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest(prefix: "photos/", delimiter: "/"))
            #expect(photos.objects.map(\.key) == ["photos/", "photos/index.html"])
            #expect(photos.commonPrefixes == ["photos/2024/", "photos/2025/"])

            let partial = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest(prefix: "photos/20", delimiter: "/"))
            #expect(partial.objects.isEmpty)
            #expect(partial.commonPrefixes == ["photos/2024/", "photos/2025/"])

            let multiCharacter = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest(delimiter: "/20"))
            #expect(multiCharacter.commonPrefixes == ["photos/20"])
            #expect(multiCharacter.objects.map(\.key) == ["a.txt", "photos/", "photos/index.html", "videos/x.mp4", "z"])

            let emptyDelimiter = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest(delimiter: ""))
            #expect(emptyDelimiter.commonPrefixes.isEmpty)
            #expect(emptyDelimiter.keyCount == 8)

            let none = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest(prefix: "nothing/"))
            #expect(none.keyCount == 0 && !none.isTruncated && none.nextContinuationToken == nil)
        }
    }

    @Test func commonPrefixesArePagedOnceEach() async throws {
        try await Support.withStore { store, _ in
            var keys: [String] = []
            for folder in 0..<5 {
                for file in 0..<30 { keys.append("dir\(folder)/file\(file)") }
                keys.append("top\(folder)")
            }
            try await Self.store(store, keys: keys)
            let pages = try await Self.pages(store, ListObjectsRequest(delimiter: "/", maxKeys: 2))
            #expect(pages.map(\.keyCount) == [2, 2, 2, 2, 2])
            #expect(pages.flatMap(\.commonPrefixes) == (0..<5).map { "dir\($0)/" })
            #expect(pages.flatMap(\.objects).map(\.key) == (0..<5).map { "top\($0)" })
            #expect(pages.last?.isTruncated == false)

            // A page ending on the last common prefix is not truncated when nothing else follows.
            let onlyFolders = try await Self.pages(store, ListObjectsRequest(prefix: "dir", delimiter: "/", maxKeys: 1))
            #expect(onlyFolders.map(\.commonPrefixes) == (0..<5).map { ["dir\($0)/"] })
            #expect(onlyFolders.map(\.isTruncated) == [true, true, true, true, false])
        }
    }

    @Test func startAfter() async throws {
        try await Support.withStore { store, _ in
            try await Self.store(store, keys: ["a", "b", "c/1", "c/2", "d"])
            let afterB = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest(startAfter: "b"))
            #expect(afterB.objects.map(\.key) == ["c/1", "c/2", "d"])
            let afterMissing = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest(startAfter: "bb"))
            #expect(afterMissing.objects.map(\.key) == ["c/1", "c/2", "d"])
            let withinPrefix = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest(prefix: "c/", startAfter: "c/1"))
            #expect(withinPrefix.objects.map(\.key) == ["c/2"])
            let beforePrefix = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest(prefix: "c/", startAfter: "a"))
            #expect(beforePrefix.objects.map(\.key) == ["c/1", "c/2"])
            let pastEnd = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest(startAfter: "z"))
            #expect(pastEnd.keyCount == 0 && !pastEnd.isTruncated)
            // A continuation token takes precedence over start-after.
            let first = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest(maxKeys: 2))
            let token = try #require(first.nextContinuationToken)
            let next = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest(startAfter: "c/2", continuationToken: token))
            #expect(next.objects.map(\.key) == ["c/1", "c/2", "d"])
        }
    }

    @Test func keysAreOrderedByUTF8Bytes() async throws {
        try await Support.withStore { store, _ in
            let keys = ["\u{1F600}", "\u{E9}", "e", "E", "~", "a b", "a", "a/", "a-", "\u{FFFD}", "\u{7F}", "\u{80}", "Z", "0"]
            try await Self.store(store, keys: keys)
            let listed = try await Self.pages(store, ListObjectsRequest(maxKeys: 3)).flatMap(\.objects).map(\.key)
            #expect(listed.map { Array($0.utf8) } == keys.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) })
            #expect(listed.first == "0")
            #expect(listed.last == "\u{1F600}")
            let accented = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest(prefix: "\u{E9}"))
            #expect(accented.objects.map(\.key) == ["\u{E9}"])
        }
    }

    @Test func maxKeysBounds() async throws {
        try await Support.withStore { store, _ in
            try await Self.store(store, keys: ["a", "b"])
            let zero = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest(maxKeys: 0))
            #expect(zero.keyCount == 0 && !zero.isTruncated && zero.nextContinuationToken == nil)
            let one = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest(maxKeys: 1))
            #expect(one.objects.map(\.key) == ["a"] && one.isTruncated)
            let exact = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest(maxKeys: 2))
            #expect(exact.keyCount == 2 && !exact.isTruncated)
            let error = await expectStoreError("InvalidArgument") { _ = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest(maxKeys: -1)) }
            #expect(error?.storageDetail("ArgumentName") == "max-keys")
        }
    }

    @Test(arguments: ["", "not base64!", "AAAA", Data([2, 0x61]).base64EncodedString(), Data([1]).base64EncodedString(), Data([1, 0xFF]).base64EncodedString()])
    func foreignContinuationTokensAreRefused(token: String) async throws {
        try await Support.withStore { store, _ in
            let error = await expectStoreError("InvalidArgument") {
                _ = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest(continuationToken: token))
            }
            #expect(error?.message == "The continuation token provided is incorrect")
        }
    }

    @Test func listingsFollowWritesAndDeletes() async throws {
        try await Support.withStore { store, _ in
            try await Self.store(store, keys: ["b", "d"])
            let first = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest(maxKeys: 1))
            try await Self.store(store, keys: ["a", "c"])
            try await store.deleteObject(bucket: Support.bucket, key: "d")
            let rest = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest(continuationToken: first.nextContinuationToken))
            #expect(rest.objects.map(\.key) == ["c"])
        }
    }
}
