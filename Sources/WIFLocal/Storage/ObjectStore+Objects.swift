import Crypto
import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import WIFFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An object opened for reading: its description, the bytes selected and a stream of them.
struct ObjectContent: Sendable {
    /// The object's description.
    var info: ObjectInfo
    /// The bytes served, inclusive, when a range was asked for; `nil` for the whole object.
    var range: ClosedRange<Int64>?
    /// The bytes, streamed from the file opened when the object was read, so a later put does not change them.
    var body: ObjectBody

    /// The number of bytes served.
    var contentLength: Int64 { self.body.length }

    /// The `Content-Range` header for a ranged read: `bytes first-last/size`.
    var contentRange: String? {
        self.range.map { "bytes \($0.lowerBound)-\($0.upperBound)/\(self.info.size)" }
    }

    /// A response body streaming the bytes.
    var responseBody: ResponseBody {
        let body = self.body
        return ResponseBody(contentLength: Int(body.length)) { writer in
            for try await buffer in body {
                try await writer.write(buffer)
            }
            try await writer.finish(nil)
        }
    }
}

/// The bytes of a stored object, read in chunks of ``ObjectStore/Configuration/readChunkSize`` on NIO's
/// blocking thread pool.
struct ObjectBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let file: StoredFile
    /// Where the bytes start in the body.
    let offset: Int64
    /// How many bytes.
    let length: Int64
    let chunkSize: Int
    /// Decrypts the bytes of an object encrypted at rest.
    var cipher: ObjectCipher? = nil

    func makeAsyncIterator() -> Iterator {
        Iterator(file: self.file, next: self.offset, end: self.offset + self.length, chunkSize: self.chunkSize, cipher: self.cipher)
    }

    struct Iterator: AsyncIteratorProtocol {
        let file: StoredFile
        var next: Int64
        let end: Int64
        let chunkSize: Int
        let cipher: ObjectCipher?
        private let allocator = ByteBufferAllocator()

        init(file: StoredFile, next: Int64, end: Int64, chunkSize: Int, cipher: ObjectCipher?) {
            self.file = file
            self.next = next
            self.end = end
            self.chunkSize = chunkSize
            self.cipher = cipher
        }

        mutating func next() async throws -> ByteBuffer? {
            guard self.next < self.end else { return nil }
            let count = Int(Swift.min(Int64(self.chunkSize), self.end - self.next))
            let (file, offset, allocator, cipher) = (self.file, self.next, self.allocator, self.cipher)
            let buffer = try await NIOThreadPool.singleton.runIfActive { () throws(AWSErrorResponse) -> ByteBuffer in
                let read = try file.read(offset: offset, count: count, allocator: allocator)
                guard let cipher else { return read }
                return allocator.buffer(bytes: try cipher.apply(read.readableBytesView, at: offset))
            }
            self.next += Int64(count)
            return buffer
        }
    }

    /// Reads every byte into one buffer (for tests and small objects).
    func collect() async throws -> ByteBuffer {
        var result = ByteBuffer()
        result.reserveCapacity(Int(self.length))
        for try await var buffer in self { result.writeBuffer(&buffer) }
        return result
    }
}

extension ObjectStore {
    // MARK: Put

    /// Stores an object, streaming its body to a temporary file and renaming it into place once complete and
    /// checked. Until then any previous object under the key stays as it was.
    /// - Parameters:
    ///   - bucket: The bucket.
    ///   - key: The key (1–1024 UTF-8 bytes, no NUL).
    ///   - body: The body: any sequence of buffers, such as hummingbird's `RequestBody`.
    ///   - attributes: The headers to keep.
    ///   - checks: Digests and length to verify.
    /// - Returns: The stored object's description.
    /// - Throws: `NoSuchBucket`, `KeyTooLongError`, `InvalidArgument`, `InvalidDigest`, `BadDigest`,
    ///   `XAmzContentSHA256Mismatch`, `IncompleteBody` (short body, or the sequence threw: an
    ///   ``AWSErrorResponse`` thrown by the sequence is passed through), `EntityTooLarge`, `InternalError`.
    @discardableResult
    func putObject<Body: AsyncSequence>(
        bucket: String,
        key: String,
        body: Body,
        attributes: ObjectAttributes = ObjectAttributes(),
        checks: PayloadChecks = PayloadChecks(),
        encryption: EncryptionRequest? = nil
    ) async throws(AWSErrorResponse) -> ObjectInfo where Body.Element == ByteBuffer {
        let state = try self.bucket(bucket)
        let objectKey = try ObjectKey(key)
        try Self.checkMetadata(attributes)
        let iv = ObjectCipher.makeIV()
        let received = try await self.receive(
            body, checks: checks, maximum: self.configuration.maximumObjectSize,
            cipher: encryption.map { ObjectCipher(key: $0.key, iv: iv) })
        let file = received.file
        let now = self.timeSource.now()
        let record = StoredRecord(
            key: Data(objectKey.bytes).base64EncodedString(),
            size: file.written,
            etag: "\"\(received.md5.hexString)\"",
            lastModified: StoredRecord.milliseconds(now),
            attributes: attributes,
            sha256: received.sha256?.hexString,
            md5: received.md5.hexString,
            checksum: received.checksum.map { StoredChecksum(algorithm: $0.algorithm, value: $0.value, type: .fullObject) },
            encryption: encryption.map { Self.encryption($0, length: file.written, iv: iv) }
        )
        try await file.finish(record: record, synchronize: self.configuration.synchronizeWrites)
        try await self.commit(file, key: objectKey, record: record, in: state)
        return Self.info(key: key, record: record)
    }

    /// A streamed body in a temporary file, with its digests.
    struct ReceivedBody {
        let file: TemporaryFile
        let md5: Insecure.MD5Digest
        let sha256: SHA256Digest?
        /// The additional checksum of the body, when one was asked for.
        let checksum: (algorithm: S3Checksum.Algorithm, value: String)?
    }

    /// Streams a body into a new temporary file, computing its MD5 (and its SHA-256 when it must be checked),
    /// and checks it; the file is deleted on any failure.
    func receive<Body: AsyncSequence>(
        _ body: Body, checks: PayloadChecks, maximum: Int64, cipher: ObjectCipher? = nil
    ) async throws(AWSErrorResponse) -> ReceivedBody
    where Body.Element == ByteBuffer {
        var expectedMD5: [UInt8]?
        if let contentMD5 = checks.contentMD5 {
            guard let decoded = Data(base64Encoded: contentMD5.trimming(.whitespaces)), decoded.count == 16 else {
                throw ObjectStoreError.invalidDigest(contentMD5)
            }
            expectedMD5 = Array(decoded)
        }
        if let expectedSHA256 = checks.expectedSHA256 {
            guard expectedSHA256.utf8.count == 64, expectedSHA256.lowercased().utf8.allSatisfy(\.isLowerHexDigit) else {
                throw ObjectStoreError.invalidArgument(
                    "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER, STREAMING-AWS4-HMAC-SHA256-PAYLOAD or a valid sha256 value.",
                    name: "x-amz-content-sha256",
                    value: expectedSHA256
                )
            }
        }
        if let length = checks.expectedLength {
            guard length >= 0 else { throw ObjectStoreError.invalidArgument("The Content-Length must not be negative.", name: "Content-Length", value: String(length)) }
            guard length <= maximum else { throw ObjectStoreError.entityTooLarge(proposed: length, maximum: maximum) }
        }
        let file = try TemporaryFile(in: self.data.temporary)
        var md5 = Insecure.MD5()
        var sha256: SHA256? = checks.expectedSHA256 == nil ? nil : SHA256()
        // A SHA-256 checksum is the signed payload hash in another encoding: one digest serves both.
        let checksumFromPayloadHash = checks.checksumAlgorithm == .sha256 && sha256 != nil
        var checksum = checksumFromPayloadHash ? nil : checks.checksumAlgorithm.map(S3Checksum.Hasher.init)
        do {
            for try await buffer in body {
                let size = Int64(buffer.readableBytes)
                guard file.written + size <= maximum else {
                    throw ObjectStoreError.entityTooLarge(proposed: max(checks.expectedLength ?? 0, file.written + size), maximum: maximum)
                }
                buffer.withUnsafeReadableBytes { bytes in
                    md5.update(bufferPointer: bytes)
                    sha256?.update(bufferPointer: bytes)
                    checksum?.update(bytes)
                }
                if let cipher {
                    try file.write(ByteBuffer(bytes: try cipher.apply(buffer.readableBytesView, at: file.written)))
                } else {
                    try file.write(buffer)
                }
            }
        } catch let error as AWSErrorResponse {
            throw error
        } catch {
            throw ObjectStoreError.interruptedBody(received: file.written)
        }
        if let expected = checks.expectedLength, expected != file.written {
            throw ObjectStoreError.incompleteBody(expected: expected, received: file.written)
        }
        let md5Digest = md5.finalize()
        let sha256Digest = sha256?.finalize()
        if let expectedSHA256 = checks.expectedSHA256, let sha256Digest, sha256Digest.hexString != expectedSHA256.lowercased() {
            throw ObjectStoreError.contentSHA256Mismatch(client: expectedSHA256, computed: sha256Digest.hexString)
        }
        if let expectedMD5, !Array(md5Digest).elementsEqual(expectedMD5) {
            throw ObjectStoreError.badDigest(expected: checks.contentMD5 ?? "", calculated: Data(md5Digest).base64EncodedString())
        }
        var checksumValue: (algorithm: S3Checksum.Algorithm, value: String)?
        if let algorithm = checks.checksumAlgorithm {
            let value = checksumFromPayloadHash ? Data(sha256Digest.map(Array.init) ?? []).base64EncodedString() : checksum?.finalize() ?? ""
            if let expected = checks.expectedChecksum, expected != value { throw S3Errors.badDigest(algorithm.headerName) }
            checksumValue = (algorithm, value)
        }
        return ReceivedBody(file: file, md5: md5Digest, sha256: sha256Digest, checksum: checksumValue)
    }

    /// Renames a finished temporary file over the object's path and records it in the index, under the
    /// bucket's lock so the index and the disk agree on which of two racing puts won.
    func commit(_ file: TemporaryFile, key: ObjectKey, record: StoredRecord, in state: BucketState) async throws(AWSErrorResponse) {
        let location = state.location(of: key)
        let replaced = try state.index.withLock { index throws(AWSErrorResponse) -> String? in
            guard !index.removed else { throw ObjectStoreError.noSuchBucket(state.name) }
            if rename(file.path, location.file) != 0 {
                guard errno == ENOENT else { throw ObjectStoreError.systemCall("rename", errno) }
                guard mkdir(location.folder, 0o700) == 0 || errno == EEXIST else { throw ObjectStoreError.systemCall("mkdir", errno) }
                guard rename(file.path, location.file) == 0 else { throw ObjectStoreError.systemCall("rename", errno) }
            }
            file.release()
            let previous = index.entry(key)?.partsUploadId
            index.insert(IndexEntry(key: key, record: record))
            return previous
        }
        if let replaced { await self.retireParts(replaced, replacedIn: location.folder) }
    }

    static func checkMetadata(_ attributes: ObjectAttributes) throws(AWSErrorResponse) {
        let size = attributes.userMetadata.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        guard size <= ObjectAttributes.maximumUserMetadataSize else {
            throw AWSErrorResponse(
                "MetadataTooLarge",
                "Your metadata headers exceed the maximum allowed metadata size",
                details: [("Size", String(size)), ("MaxSizeAllowed", String(ObjectAttributes.maximumUserMetadataSize))]
            )
        }
    }

    static func info(key: String, record: StoredRecord) -> ObjectInfo {
        ObjectInfo(
            key: key,
            size: record.size,
            etag: record.etag,
            lastModified: record.lastModifiedDate,
            attributes: record.attributes ?? ObjectAttributes(),
            sha256: record.sha256,
            partCount: record.partCount,
            partLengths: record.bodyParts?.map(\.length) ?? record.partLengths,
            checksum: record.checksum,
            encryption: record.encryption
        )
    }

    // MARK: Get, head, delete

    /// Opens an object for reading.
    /// - Parameters:
    ///   - bucket: The bucket.
    ///   - key: The key.
    ///   - range: The bytes wanted; `nil` for all. Parse the header with ``ByteRange/init(header:)`` and
    ///     pass `nil` when it does not parse, as S3 then ignores it.
    ///   - part: One part of the object (`partNumber`, 1…10,000) instead of a range: a part of an object
    ///     completed from a multipart upload, or the whole of any other object as its part 1.
    /// - Returns: The description and the bytes; the file stays open until the body is dropped.
    /// - Throws: `NoSuchBucket`, `NoSuchKey`, `InvalidRange` and `InvalidPartNumber` (416),
    ///   `KeyTooLongError`, `InvalidArgument`.
    func getObject(
        bucket: String, key: String, range: ByteRange? = nil, part: Int? = nil, customerKey: EncryptionRequest? = nil
    ) async throws(AWSErrorResponse) -> ObjectContent {
        let (file, info) = try self.open(bucket: bucket, key: key)
        let cipher = try self.cipher(for: info.encryption, customerKey: customerKey)
        var selected: ClosedRange<Int64>?
        var offset: Int64 = 0
        var length = info.size
        if let part {
            (offset, length) = try info.bytes(ofPart: part)
            // A part that is the whole object (a single put's part 1) is sent as a range all the same.
            if length > 0 { selected = offset...(offset + length - 1) }
        } else if let range {
            let resolved = try range.resolve(size: info.size)
            selected = resolved
            offset = resolved.lowerBound
            length = resolved.upperBound - resolved.lowerBound + 1
        }
        let body = ObjectBody(
            file: file, offset: offset, length: length, chunkSize: max(4096, self.configuration.readChunkSize), cipher: cipher)
        return ObjectContent(info: info, range: selected, body: body)
    }

    /// Describes an object.
    /// - Throws: `NoSuchBucket`, `NoSuchKey`, `KeyTooLongError`, `InvalidArgument`.
    func headObject(bucket: String, key: String) async throws(AWSErrorResponse) -> ObjectInfo {
        try self.open(bucket: bucket, key: key).1
    }

    /// Opens a key's stored file and describes it.
    /// - Throws: `NoSuchBucket`, `NoSuchKey` and the key's own errors.
    func open(bucket: String, key: String) throws(AWSErrorResponse) -> (StoredFile, ObjectInfo) {
        let state = try self.bucket(bucket)
        let objectKey = try ObjectKey(key)
        // An object whose body is in its parts' files is read only once it is known to be still the key's
        // current object, under the bucket's lock, so that its parts cannot be removed while it is read.
        // One replaced in between is opened again.
        for _ in 0..<8 {
            guard let file = try StoredFile.load(path: state.location(of: objectKey).file), file.record.objectKey == objectKey else {
                throw ObjectStoreError.noSuchKey(key)
            }
            guard let parts = file.record.bodyParts, let uploadId = file.record.uploadId else {
                return (file, Self.info(key: key, record: file.record))
            }
            let reader = state.index.withLock { index -> PartReader? in
                guard index.entry(objectKey)?.partsUploadId == uploadId else { return nil }
                return self.completedParts.reader(uploadId: uploadId, parts: parts)
            }
            if let reader { return (file.reading(reader), Self.info(key: key, record: file.record)) }
        }
        throw ObjectStoreError.internalError("the object was replaced again and again while it was being opened")
    }

    /// Deletes an object; deleting a missing key succeeds, as in S3.
    /// With `ifMatch` (an `If-Match` value: entity tags or `*`), the object is deleted only when it exists
    /// and its entity tag matches, checked under the bucket's lock so no write slips in between.
    /// - Returns: Whether an object was deleted.
    /// - Throws: `NoSuchBucket`, `KeyTooLongError`, `InvalidArgument`, `InternalError`; with `ifMatch`,
    ///   `NoSuchKey` for a missing object and `PreconditionFailed` for another entity tag.
    @discardableResult
    func deleteObject(bucket: String, key: String, ifMatch: String? = nil) async throws(AWSErrorResponse) -> Bool {
        let state = try self.bucket(bucket)
        let objectKey = try ObjectKey(key)
        let location = state.location(of: objectKey)
        let outcome = try state.index.withLock { index throws(AWSErrorResponse) -> (deleted: Bool, parts: String?) in
            guard !index.removed else { throw ObjectStoreError.noSuchBucket(bucket) }
            if let ifMatch {
                guard let entry = index.entry(objectKey) else { throw ObjectStoreError.noSuchKey(key) }
                guard S3Conditions.etagList(ifMatch, matches: entry.etag) else { throw S3Errors.preconditionFailed("If-Match") }
            }
            if unlink(location.file) != 0 {
                guard errno == ENOENT || errno == ENOTDIR else { throw ObjectStoreError.systemCall("unlink", errno) }
            }
            let removed = index.entry(objectKey)
            return (index.remove(objectKey), removed?.partsUploadId)
        }
        if let parts = outcome.parts { await self.retireParts(parts, replacedIn: location.folder) }
        return outcome.deleted
    }

    /// The outcome of one key of `DeleteObjects`.
    enum DeleteOutcome: Sendable {
        /// Deleted, or already missing.
        case deleted(key: String)
        /// Refused, with the error for this key.
        case failed(key: String, error: AWSErrorResponse)
    }

    /// Deletes several objects, each independently, in the given order; a key with an entity tag is
    /// deleted only when it matches (`DeleteObjects`' `ETag` member).
    /// - Throws: `NoSuchBucket` for the whole request.
    func deleteObjects(bucket: String, keys: [(key: String, etag: String?)]) async throws(AWSErrorResponse) -> [DeleteOutcome] {
        _ = try self.bucket(bucket)
        var outcomes: [DeleteOutcome] = []
        outcomes.reserveCapacity(keys.count)
        for (key, etag) in keys {
            do {
                try await self.deleteObject(bucket: bucket, key: key, ifMatch: etag)
                outcomes.append(.deleted(key: key))
            } catch {
                if error.code == "NoSuchBucket" { throw error }
                outcomes.append(.failed(key: key, error: error))
            }
        }
        return outcomes
    }
}
