import Crypto
import Foundation
import Testing

@testable import WIFLocal

/// Completing a multipart upload keeps its parts' files as the object's body instead of copying them.
struct ObjectStoreCompletedPartsTests {
    typealias Support = StorageTestSupport

    /// Small parts, read in chunks smaller than a part so that reads cross part boundaries.
    static var smallParts: ObjectStore.Configuration {
        var configuration = ObjectStoreMultipartTests.smallParts
        configuration.readChunkSize = 4096
        return configuration
    }

    /// Uploads parts of the given sizes (each from its own seed) and completes the upload with the
    /// numbers in `named`, or all of them.
    static func complete(
        _ store: ObjectStore, key: String, sizes: [Int], named: [Int]? = nil, encryption: EncryptionRequest? = nil
    ) async throws -> (object: ObjectInfo, uploadId: String, bytes: [UInt8]) {
        let upload = try await store.createMultipartUpload(bucket: Support.bucket, key: key, encryption: encryption)
        var etags: [Int: String] = [:]
        for (index, size) in sizes.enumerated() {
            let number = index + 1
            etags[number] = try await store.uploadPart(
                bucket: Support.bucket, key: key, uploadId: upload.uploadId, partNumber: number,
                body: StorageBody(Support.bytes(size, seed: UInt64(number))), customerKey: encryption?.mode == .customer ? encryption : nil
            ).etag
        }
        let numbers = named ?? Array(1...sizes.count)
        let object = try await store.completeMultipartUpload(
            bucket: Support.bucket, key: key, uploadId: upload.uploadId,
            parts: try numbers.map { CompletedPart(partNumber: $0, etag: try #require(etags[$0])) })
        return (object, upload.uploadId, numbers.flatMap { Support.bytes(sizes[$0 - 1], seed: UInt64($0)) })
    }

    static func folderExists(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// A folder in `parts/` that no object lists, holding one part: what a stop leaves between replacing
    /// an object and removing its parts.
    static func unlistedParts(in root: String, id: String, content: String) throws -> String {
        let folder = root + "/parts/" + String(repeating: id, count: 24)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try Data(content.utf8).write(to: URL(fileURLWithPath: folder + "/00001"))
        return folder
    }

    /// The bytes of every file under a folder.
    static func storedBytes(under root: String) throws -> Int {
        try Support.files(under: root).reduce(0) { total, file in
            total + (try FileManager.default.attributesOfItem(atPath: root + "/" + file)[.size] as? Int ?? 0)
        }
    }

    @Test func theObjectIsReadAcrossItsPartsWhichStayWhereTheyWereUploaded() async throws {
        try await Support.withStore(configuration: Self.smallParts) { store, root in
            // Part 3 is uploaded but left out of the object.
            let (object, uploadId, bytes) = try await Self.complete(store, key: "k", sizes: [5000, 1024, 777, 3000], named: [1, 2, 4])
            #expect(object.size == 9024)
            #expect(try await Support.read(store, "k") == bytes)
            // Ranges inside one part, across one boundary, and across a whole part.
            for (first, last) in [(0, 0), (100, 4999), (4990, 5010), (4999, 6024), (6023, 6024), (4000, 9023), (9023, 9023)] {
                let range = try await Support.read(store, "k", range: .from(Int64(first), through: Int64(last)))
                #expect(range == Array(bytes[first...last]), "bytes \(first)-\(last)")
            }
            #expect(try Support.files(under: root + "/parts/" + uploadId) == ["00001", "00002", "00004"])
            #expect(Support.files(under: root + "/uploads").isEmpty)
            #expect(Support.files(under: root + "/tmp").isEmpty)
            // The body is stored once: the object's own file holds only its record.
            #expect(try Self.storedBytes(under: root + "/buckets") < 2048)
            #expect(try await store.headObject(bucket: Support.bucket, key: "k") == object)
            let listing = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest())
            #expect(listing.objects.map(\.size) == [9024])
        }
    }

    @Test func anObjectEncryptedAtRestIsDecryptedAcrossItsParts() async throws {
        try await Support.withStore(configuration: Self.smallParts) { store, root in
            let encryption = EncryptionRequest(mode: .s3, key: store.encryptionKey)
            let (object, uploadId, bytes) = try await Self.complete(store, key: "secret", sizes: [2000, 1500, 10], encryption: encryption)
            #expect(object.encryption?.mode == .s3)
            #expect(try await Support.read(store, "secret") == bytes)
            #expect(try await Support.read(store, "secret", range: .from(1990, through: 3509)) == Array(bytes[1990...3509]))
            // The parts hold ciphertext.
            let first = try Data(contentsOf: URL(fileURLWithPath: root + "/parts/" + uploadId + "/00001"))
            #expect(Array(first.prefix(2000)) != Array(bytes.prefix(2000)))
        }
    }

    @Test func replacingOrDeletingTheObjectRemovesItsParts() async throws {
        try await Support.withStore(configuration: Self.smallParts) { store, root in
            let replaced = try await Self.complete(store, key: "k", sizes: [1024, 10])
            try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody("new"))
            #expect(!Self.folderExists(root + "/parts/" + replaced.uploadId))
            #expect(try await Support.read(store, "k") == Array("new".utf8))

            let deleted = try await Self.complete(store, key: "k", sizes: [1024, 20])
            #expect(Self.folderExists(root + "/parts/" + deleted.uploadId))
            #expect(try await store.deleteObject(bucket: Support.bucket, key: "k"))
            #expect(!Self.folderExists(root + "/parts/" + deleted.uploadId))

            // An object completed over another completed one replaces its parts too.
            let older = try await Self.complete(store, key: "k", sizes: [1024, 30])
            let newer = try await Self.complete(store, key: "k", sizes: [2048, 40])
            #expect(!Self.folderExists(root + "/parts/" + older.uploadId))
            #expect(try await Support.read(store, "k") == newer.bytes)
            #expect(try Support.files(under: root + "/parts") == ["\(newer.uploadId)/00001", "\(newer.uploadId)/00002"])
        }
    }

    @Test func aReaderKeepsReadingTheObjectItOpenedAfterItIsReplaced() async throws {
        try await Support.withStore(configuration: Self.smallParts) { store, root in
            let (_, uploadId, bytes) = try await Self.complete(store, key: "k", sizes: [3000, 2500])
            let folder = root + "/parts/" + uploadId
            do {
                let content = try await store.getObject(bucket: Support.bucket, key: "k")
                let ranged = try await store.getObject(bucket: Support.bucket, key: "k", range: .from(2990, through: 3009))
                try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody("replacement"))
                #expect(try await store.deleteObject(bucket: Support.bucket, key: "k"))
                #expect(Self.folderExists(folder), "the parts stay while a reader holds them")
                #expect(Array(try await content.body.collect().readableBytesView) == bytes)
                #expect(Array(try await ranged.body.collect().readableBytesView) == Array(bytes[2990...3009]))
            }
            #expect(!Self.folderExists(folder), "the last reader out removes them")
            await expectStoreError("NoSuchKey") { _ = try await store.getObject(bucket: Support.bucket, key: "k") }
        }
    }

    @Test func aRestartReadsCompletedObjectsAndRemovesPartsNoObjectLists() async throws {
        let root = Support.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let completed: (object: ObjectInfo, uploadId: String, bytes: [UInt8])
        do {
            let store = try Support.openStore(root: root, configuration: Self.smallParts)
            completed = try await Self.complete(store, key: "kept", sizes: [1500, 1])
        }
        let orphan = try Self.unlistedParts(in: root, id: "ab", content: "left over")

        let store = try Support.openStore(root: root, configuration: Self.smallParts)
        #expect(!Self.folderExists(orphan))
        #expect(try await Support.read(store, "kept") == completed.bytes)
        #expect(try await store.headObject(bucket: Support.bucket, key: "kept") == completed.object)
        let listing = try await store.listObjects(bucket: Support.bucket, ListObjectsRequest())
        #expect(listing.objects.map(\.size) == [1501])
    }

    @Test func aPartUploadedAgainAfterTheCheckKeepsTheUploadWhereItWas() async throws {
        try await Support.withStore(configuration: Self.smallParts) { store, root in
            let upload = try await store.createMultipartUpload(bucket: Support.bucket, key: "k")
            try await store.uploadPart(bucket: Support.bucket, key: "k", uploadId: upload.uploadId, partNumber: 1, body: StorageBody("checked"))
            let checked = try #require(try StoredFile.load(path: store.uploadPath(upload.uploadId) + "/00001"))
            try await store.uploadPart(bucket: Support.bucket, key: "k", uploadId: upload.uploadId, partNumber: 1, body: StorageBody("again"))

            #expect(try await store.moveParts(of: upload.uploadId, checked: [(1, checked)]) == false)
            #expect(Self.folderExists(store.uploadPath(upload.uploadId)))
            #expect(!Self.folderExists(root + "/parts/" + upload.uploadId))
            #expect(try await store.listParts(bucket: Support.bucket, key: "k", uploadId: upload.uploadId).parts.map(\.size) == [5])
        }
    }

    @Test func aStopBeforeTheCompletionWasCommittedLeavesTheUploadOpen() async throws {
        let root = Support.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let uploadId: String
        var etags: [String] = []
        do {
            let store = try Support.openStore(root: root, configuration: Self.smallParts)
            uploadId = try await store.createMultipartUpload(bucket: Support.bucket, key: "k").uploadId
            for number in 1...2 {
                etags.append(try await store.uploadPart(
                    bucket: Support.bucket, key: "k", uploadId: uploadId, partNumber: number,
                    body: StorageBody(Support.bytes(1024, seed: UInt64(number)))).etag)
            }
            // Where a completion stands after moving the parts, before its object is committed.
            #expect(try await store.moveParts(of: uploadId, checked: []))
        }
        let store = try Support.openStore(root: root, configuration: Self.smallParts)
        #expect(!Self.folderExists(root + "/parts/" + uploadId))
        #expect(try await store.listMultipartUploads(bucket: Support.bucket).map(\.uploadId) == [uploadId])
        let object = try await store.completeMultipartUpload(
            bucket: Support.bucket, key: "k", uploadId: uploadId,
            parts: etags.enumerated().map { CompletedPart(partNumber: $0.offset + 1, etag: $0.element) })
        #expect(object.size == 2048)
        #expect(try await Support.read(store, "k") == Support.bytes(1024, seed: 1) + Support.bytes(1024, seed: 2))
    }

    @Test func aStopJustAfterTheCommitIsTidiedAtTheNextStart() async throws {
        let root = Support.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let completed: (object: ObjectInfo, uploadId: String, bytes: [UInt8])
        do {
            let store = try Support.openStore(root: root, configuration: Self.smallParts)
            completed = try await Self.complete(store, key: "k", sizes: [1024, 5], named: [1, 2])
        }
        // What the folder held before the upload's record and its unused parts were removed.
        let folder = root + "/parts/" + completed.uploadId
        try Data("{}".utf8).write(to: URL(fileURLWithPath: folder + "/upload.json"))
        try Data("unused".utf8).write(to: URL(fileURLWithPath: folder + "/00007"))

        let store = try Support.openStore(root: root, configuration: Self.smallParts)
        #expect(try Support.files(under: folder) == ["00001", "00002"])
        #expect(try await store.listMultipartUploads(bucket: Support.bucket).isEmpty)
        #expect(try await Support.read(store, "k") == completed.bytes)
    }

    @Test func partsNoObjectListsAreKeptWhileAStoredObjectCannotBeRead() async throws {
        let root = Support.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        do {
            let store = try Support.openStore(root: root, configuration: Self.smallParts)
            _ = try await Self.complete(store, key: "k", sizes: [1024, 5])
        }
        let orphan = try Self.unlistedParts(in: root, id: "cd", content: "maybe the body of the damaged object")
        let damagedFolder = root + "/buckets/" + Support.bucket + "/00"
        try FileManager.default.createDirectory(atPath: damagedFolder, withIntermediateDirectories: true)
        try Data("not a stored object".utf8).write(to: URL(fileURLWithPath: damagedFolder + "/" + String(repeating: "0", count: 64)))

        _ = try Support.openStore(root: root, configuration: Self.smallParts)
        #expect(Self.folderExists(orphan))
        try FileManager.default.removeItem(atPath: damagedFolder + "/" + String(repeating: "0", count: 64))
        _ = try Support.openStore(root: root, configuration: Self.smallParts)
        #expect(!Self.folderExists(orphan))
    }

    @Test func callsOnAnUploadBeingCompletedAreToldOneIsInProgress() async throws {
        try await Support.withStore(configuration: Self.smallParts) { store, _ in
            let upload = try await store.createMultipartUpload(bucket: Support.bucket, key: "k")
            let part = try await store.uploadPart(bucket: Support.bucket, key: "k", uploadId: upload.uploadId, partNumber: 1, body: StorageBody("x"))
            // A completion between moving the parts and committing the object.
            store.uploadsInFlight.withLock { _ = $0.insert(upload.uploadId) }
            #expect(try await store.moveParts(of: upload.uploadId, checked: []))
            await expectStoreError("OperationAborted") {
                _ = try await store.completeMultipartUpload(
                    bucket: Support.bucket, key: "k", uploadId: upload.uploadId, parts: [CompletedPart(partNumber: 1, etag: part.etag)])
            }
            await expectStoreError("OperationAborted") { try await store.abortMultipartUpload(bucket: Support.bucket, key: "k", uploadId: upload.uploadId) }
        }
    }

    @Test func withWritesSyncedToDiskPartsMoveAndGoAsWithout() async throws {
        let root = Support.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        var configuration = Self.smallParts
        configuration.synchronizeWrites = true
        let store = try ObjectStore(data: try DataDirectory(root: root), buckets: [Support.bucket], configuration: configuration, timeSource: Support.clock)
        let first = try await Self.complete(store, key: "k", sizes: [1024, 3])
        #expect(try await Support.read(store, "k") == first.bytes)
        try await store.putObject(bucket: Support.bucket, key: "k", body: StorageBody("small"))
        #expect(!Self.folderExists(root + "/parts/" + first.uploadId))
        let second = try await Self.complete(store, key: "k", sizes: [1024, 4])
        #expect(try await store.deleteObject(bucket: Support.bucket, key: "k"))
        #expect(!Self.folderExists(root + "/parts/" + second.uploadId))
    }
}
