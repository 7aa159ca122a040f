import Foundation
import Testing

@testable import S3Partition
import WIFTestSupport

@Suite("Partitioned buckets against moto", .enabled(if: MotoS3.isEnabled, MotoS3.skipReason), .serialized)
struct MotoPartitionTests {
    @Test("two users share a bucket: each puts, lists and gets by name and sees only their own files")
    func twoUsers() async throws {
        try await MotoS3.withServer { moto in
            let client = try moto.client(
                transfer: S3Client.Transfer(
                    multipartThreshold: 6 * 1024 * 1024, partSize: S3Client.Transfer.minimumPartSize, concurrency: 2,
                    downloadPartSize: S3Client.Transfer.minimumPartSize, downloadConcurrency: 2))
            try await moto.createBucket("wif-personal", with: client)
            let alice = try PartitionedBucket(client: client, bucket: "wif-personal", userId: "1001", template: "facebook/{id}/")
            let bob = try PartitionedBucket(client: client, bucket: "wif-personal", userId: "10012", template: "facebook/{id}/")
            let folder = try TemporaryFolder()
            let digest = try folder.writePatternFile("video.bin", size: 11 * 1024 * 1024 + 3, seed: 21)

            let large = try await alice.put("videos/holiday.bin", fromFile: folder.file("video.bin"))
            #expect(large.partCount == 3)
            try await alice.put("notes/today.txt", bytes: Array("alice".utf8), options: PutObjectOptions(contentType: "text/plain"))
            try await alice.put("top level.txt", bytes: [1])
            try await bob.put("notes/today.txt", bytes: Array("bob".utf8))

            var folders: [String] = []
            var names: [String] = []
            for try await page in try alice.list(delimiter: "/") {
                folders += page.folders
                names += page.objects.map(\.name)
            }
            #expect(folders == ["notes/", "videos/"])
            #expect(names == ["top level.txt"])
            let all = try await alice.list().objects.reduce(into: [String]()) { $0.append($1.name) }
            #expect(all == ["notes/today.txt", "top level.txt", "videos/holiday.bin"])
            let bobs = try await bob.list().objects.reduce(into: [String]()) { $0.append($1.name) }
            #expect(bobs == ["notes/today.txt"], "10012's partition does not show 1001's files, and the reverse")

            #expect(try await alice.get("notes/today.txt").bytes == Array("alice".utf8))
            #expect(try await bob.get("notes/today.txt").bytes == Array("bob".utf8))
            #expect(try await alice.head("notes/today.txt").contentType == "text/plain")
            try await alice.get("videos/holiday.bin", toFile: folder.file("copy.bin"))
            #expect(try fileSHA256(folder.file("copy.bin")) == digest)

            let missing = await #expect(throws: S3Error.self) { try await alice.head("notes/absent.txt") }
            #expect(missing?.code == .noSuchKey)
            #expect(missing?.key == "facebook/1001/notes/absent.txt")

            let removed = try await alice.delete(["notes/today.txt", "top level.txt", "videos/holiday.bin"])
            #expect(removed.deleted == ["notes/today.txt", "top level.txt", "videos/holiday.bin"])
            #expect(try await alice.list().objects.reduce(0) { count, _ in count + 1 } == 0)
            #expect(try await bob.get("notes/today.txt").bytes == Array("bob".utf8))
        }
    }
}
