import Foundation
import Logging
import NIOCore
import Testing
import WIFCredentials

@testable import WIFLocal
import WIFTestSupport

/// A request body for store tests: fixed chunks, optionally followed by a failure, as when a client
/// disconnects mid-upload.
struct StorageBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    struct Interrupted: Error {}

    var chunks: [[UInt8]]
    var failure: (any Error & Sendable)?

    init(_ bytes: [UInt8], chunkSize: Int = 7_000, failure: (any Error & Sendable)? = nil) {
        self.chunks = stride(from: 0, to: bytes.count, by: Swift.max(1, chunkSize)).map { Array(bytes[$0..<Swift.min($0 + chunkSize, bytes.count)]) }
        self.failure = failure
    }

    init(_ text: String) {
        self.init(Array(text.utf8))
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(chunks: self.chunks, failure: self.failure)
    }

    struct Iterator: AsyncIteratorProtocol {
        var chunks: [[UInt8]]
        var failure: (any Error & Sendable)?
        var position = 0

        mutating func next() async throws -> ByteBuffer? {
            if self.position < self.chunks.count {
                defer { self.position += 1 }
                return ByteBuffer(bytes: self.chunks[self.position])
            }
            if let failure = self.failure {
                self.failure = nil
                throw failure
            }
            return nil
        }
    }
}

enum StorageTestSupport {
    static let bucket = "test-bucket"
    static let now = Date(timeIntervalSince1970: 1_700_000_000.25)

    static let clock = TimeSource(now: { StorageTestSupport.now }, sleep: { _ in })

    /// Deterministic pseudo-random bytes.
    static func bytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }

    static func makeRoot() -> String {
        TemporaryFolder.url("wif-storage").path
    }

    static func openStore(root: String, configuration: ObjectStore.Configuration = ObjectStore.Configuration()) throws -> ObjectStore {
        let data = try DataDirectory(root: root)
        var configuration = configuration
        configuration.synchronizeWrites = false
        return try ObjectStore(data: data, buckets: [Self.bucket], configuration: configuration, timeSource: Self.clock)
    }

    /// Runs a test against a store over a fresh data directory, removed afterwards.
    static func withStore<T>(
        configuration: ObjectStore.Configuration = ObjectStore.Configuration(),
        _ body: (ObjectStore, String) async throws -> T
    ) async throws -> T {
        let root = Self.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try Self.openStore(root: root, configuration: configuration)
        return try await body(store, root)
    }

    static func read(_ store: ObjectStore, _ key: String, range: ByteRange? = nil, bucket: String = StorageTestSupport.bucket) async throws -> [UInt8] {
        let content = try await store.getObject(bucket: bucket, key: key, range: range)
        let buffer = try await content.body.collect()
        return Array(buffer.readableBytesView)
    }

    /// Every regular file under a folder, relative to it.
    static func files(under root: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
        var files: [String] = []
        while let path = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(path)
            }
        }
        return files.sorted()
    }
}

/// Runs `body` and checks that it fails with the S3 error `code`; returns the error for further checks.
@discardableResult
func expectStoreError(
    _ code: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async -> AWSErrorResponse? {
    do {
        try await body()
        Issue.record("expected \(code), but the call succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as AWSErrorResponse {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

extension AWSErrorResponse {
    /// The value of a detail element such as `Key`.
    func storageDetail(_ name: String) -> String? {
        self.details.first { $0.0 == name }?.1
    }
}
