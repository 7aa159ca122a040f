import Foundation
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

/// What the store keeps about an object or a part, written after its body.
///
/// A stored file is `[body][record JSON][UInt32 big-endian JSON length][8-byte magic]`: the body is
/// written as it arrives, the record once its size and digests are known, and the whole file renamed into
/// place in one step, so a reader sees a complete old or new file, never a mix.
struct StoredRecord: Codable, Sendable, Equatable {
    /// The format version.
    var format: Int = 1
    /// The object key's UTF-8 bytes in base64; empty for a part.
    var key: String
    /// The body's length.
    var size: Int64
    /// The quoted entity tag.
    var etag: String
    /// Milliseconds since 1970.
    var lastModified: Int64
    /// The object's headers; `nil` for a part.
    var attributes: ObjectAttributes?
    /// The body's SHA-256, hexadecimal, when it was computed.
    var sha256: String?
    /// The body's MD5, hexadecimal.
    var md5: String?
    /// The number of parts of a multipart object.
    var partCount: Int?
    /// The multipart upload that made the object, so that completing it again answers the same result.
    var uploadId: String? = nil
    /// The additional checksum the upload carried (a part's own, or the object's).
    var checksum: StoredChecksum? = nil
    /// How the body is encrypted at rest; `nil` when it is stored as sent.
    var encryption: StoredEncryption? = nil
    /// For an object completed from a multipart upload: its parts, whose files in
    /// `parts/<uploadId>/` hold the body (see ``CompletedParts``); the stored file then has an empty body.
    var bodyParts: [StoredBodyPart]? = nil
    /// For an object completed from a multipart upload whose parts were joined into one file (so there are
    /// no ``bodyParts``): each part's length, in order, for reads of one part (`partNumber`).
    var partLengths: [Int64]? = nil

    static let magic: [UInt8] = Array("WIFOBJ1\n".utf8)
    static let trailerLength = 12

    var objectKey: ObjectKey? {
        guard let bytes = Data(base64Encoded: self.key), !bytes.isEmpty else { return nil }
        return ObjectKey(unchecked: Array(bytes))
    }

    var lastModifiedDate: Date { Date(timeIntervalSince1970: Double(self.lastModified) / 1000) }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    /// The record and its trailer, ready to append after the body.
    func encodedTrailer() throws(AWSErrorResponse) -> [UInt8] {
        var bytes = self.json()
        guard let length = UInt32(exactly: bytes.count) else { throw ObjectStoreError.internalError("an object record is too long") }
        bytes.append(contentsOf: [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)])
        bytes.append(contentsOf: Self.magic)
        return bytes
    }
}

/// An open stored file, closed when the last reference goes. Reads go through `pread`, so one handle can
/// serve concurrent ranges, and a reader keeps seeing the file it opened even when a newer version is
/// renamed over its path.
final class StoredFile: Sendable {
    private let file: OpenDescriptor
    /// The record read from the trailer.
    let record: StoredRecord
    /// The length of the object's body: at the start of the file, or across its parts' files.
    let bodyLength: Int64
    /// Reads the body of an object completed from a multipart upload.
    private let parts: PartReader?

    var descriptor: Int32 { self.file.value }

    private init(file: OpenDescriptor, record: StoredRecord, bodyLength: Int64, parts: PartReader?) {
        self.file = file
        self.record = record
        self.bodyLength = bodyLength
        self.parts = parts
    }

    /// The same file, reading its body through its parts' files.
    func reading(_ parts: PartReader) -> StoredFile {
        StoredFile(file: self.file, record: self.record, bodyLength: self.bodyLength, parts: parts)
    }

    /// Opens a stored file and reads its record.
    /// - Returns: `nil` when no file is at the path.
    /// - Throws: `InternalError` when the file cannot be read or is not a stored file.
    static func load(path: String) throws(AWSErrorResponse) -> StoredFile? {
        let descriptor = systemOpen(path, O_RDONLY | O_CLOEXEC, 0)
        guard descriptor >= 0 else {
            let error = errno
            if error == ENOENT || error == ENOTDIR { return nil }
            throw ObjectStoreError.systemCall("open", error)
        }
        let file = OpenDescriptor(descriptor)
        let (record, bodyLength) = try Self.readRecord(file)
        return StoredFile(file: file, record: record, bodyLength: bodyLength, parts: nil)
    }

    private static func readRecord(_ file: OpenDescriptor) throws(AWSErrorResponse) -> (StoredRecord, Int64) {
        var status = stat()
        guard fstat(file.value, &status) == 0 else { throw ObjectStoreError.systemCall("fstat", errno) }
        let fileSize = Int64(status.st_size)
        guard fileSize >= Int64(StoredRecord.trailerLength) else { throw ObjectStoreError.internalError("a stored file is truncated") }
        let trailer = try file.bytes(offset: fileSize - Int64(StoredRecord.trailerLength), count: StoredRecord.trailerLength)
        guard Array(trailer[4...]) == StoredRecord.magic else { throw ObjectStoreError.internalError("a stored file has no record") }
        let jsonLength = Int64(trailer[0]) << 24 | Int64(trailer[1]) << 16 | Int64(trailer[2]) << 8 | Int64(trailer[3])
        let bodyLength = fileSize - Int64(StoredRecord.trailerLength) - jsonLength
        guard bodyLength >= 0 else { throw ObjectStoreError.internalError("a stored file's record is longer than the file") }
        let json = try file.bytes(offset: bodyLength, count: Int(jsonLength))
        guard let record = StoredRecord(json: json) else {
            throw ObjectStoreError.internalError("a stored file's record cannot be decoded")
        }
        if let parts = record.bodyParts {
            guard bodyLength == 0, record.uploadId != nil, parts.allSatisfy({ $0.length >= 0 }),
                parts.reduce(0, { $0 + $1.length }) == record.size
            else { throw ObjectStoreError.internalError("a stored file's parts do not match its record") }
            return (record, record.size)
        }
        guard record.size == bodyLength else { throw ObjectStoreError.internalError("a stored file's size does not match its record") }
        return (record, bodyLength)
    }

    /// Reads up to `count` body bytes at `offset` into a new buffer (blocking).
    func read(offset: Int64, count: Int, allocator: ByteBufferAllocator) throws(AWSErrorResponse) -> ByteBuffer {
        if let parts = self.parts { return try parts.read(offset: offset, count: count, allocator: allocator) }
        guard self.record.bodyParts == nil else { throw ObjectStoreError.internalError("a stored object was opened without its parts") }
        var buffer = allocator.buffer(capacity: count)
        try self.file.read(into: &buffer, offset: offset, count: count, what: "a stored file")
        return buffer
    }
}

/// An open file descriptor, closed when the last reference goes.
final class OpenDescriptor: Sendable {
    let value: Int32

    init(_ value: Int32) {
        self.value = value
    }

    deinit {
        close(self.value)
    }

    /// Appends exactly `count` bytes read at `offset` to `buffer` (blocking).
    /// - Parameter what: Names the file in the error when it ends early.
    func read(into buffer: inout ByteBuffer, offset: Int64, count: Int, what: String) throws(AWSErrorResponse) {
        var done = 0
        while done < count {
            var failure: Int32 = 0
            let read = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count - done) { pointer in
                let result = pread(self.value, pointer.baseAddress!, count - done, off_t(offset) + off_t(done))
                if result < 0 {
                    failure = errno
                    return 0
                }
                return result
            }
            if failure == EINTR { continue }
            if failure != 0 { throw ObjectStoreError.systemCall("pread", failure) }
            guard read > 0 else { throw ObjectStoreError.internalError("\(what) ended early") }
            done += read
        }
    }

    /// Exactly `count` bytes read at `offset` (blocking).
    func bytes(offset: Int64, count: Int) throws(AWSErrorResponse) -> [UInt8] {
        var buffer = ByteBuffer()
        try self.read(into: &buffer, offset: offset, count: count, what: "a stored file")
        return Array(buffer.readableBytesView)
    }
}

/// A file being written in the data directory's `tmp/` folder: created exclusively, written as the body
/// arrives, then either committed (record appended, synced, closed, renamed by the caller) or removed.
final class TemporaryFile {
    let path: String
    private(set) var descriptor: Int32
    /// Body bytes written so far.
    private(set) var written: Int64 = 0
    /// Whether the file was renamed away, so it must not be deleted.
    private var released = false

    init(in folder: String) throws(AWSErrorResponse) {
        self.path = folder + "/" + UUID().uuidString.lowercased()
        self.descriptor = systemOpen(self.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard self.descriptor >= 0 else { throw ObjectStoreError.systemCall("open", errno) }
    }

    /// Appends body bytes.
    func write(_ buffer: ByteBuffer) throws(AWSErrorResponse) {
        if let failure = buffer.withUnsafeReadableBytes({ DescriptorWriter.writeAll($0, to: self.descriptor) }) {
            throw ObjectStoreError.systemCall("write", failure)
        }
        self.written += Int64(buffer.readableBytes)
    }

    /// Appends body bytes.
    func write(bytes: UnsafeRawBufferPointer) throws(AWSErrorResponse) {
        if let failure = DescriptorWriter.writeAll(bytes, to: self.descriptor) { throw ObjectStoreError.systemCall("write", failure) }
        self.written += Int64(bytes.count)
    }

    /// Counts bytes appended to the file directly through its descriptor.
    func skip(_ count: Int64) throws(AWSErrorResponse) {
        self.written += count
    }

    /// Appends the record, syncs the file to disk when asked and closes it; the file is then ready to rename.
    func finish(record: StoredRecord, synchronize: Bool) async throws(AWSErrorResponse) {
        let trailer = try record.encodedTrailer()
        if let failure = trailer.withUnsafeBytes({ DescriptorWriter.writeAll($0, to: self.descriptor) }) {
            throw ObjectStoreError.systemCall("write", failure)
        }
        let descriptor = self.descriptor
        if synchronize {
            let result = await blockingFileWork { fsync(descriptor) == 0 ? 0 : errno }
            if result != 0 { throw ObjectStoreError.systemCall("fsync", result) }
        }
        guard close(descriptor) == 0 else {
            self.descriptor = -1
            throw ObjectStoreError.systemCall("close", errno)
        }
        self.descriptor = -1
    }

    /// Forgets the file after it was renamed away, so that it is not deleted.
    func release() {
        self.released = true
    }

    /// Deletes the file unless it was renamed away.
    deinit {
        if self.descriptor >= 0 { close(self.descriptor) }
        if !self.released { unlink(self.path) }
    }

}

/// Runs blocking file work on NIO's thread pool, or on the caller's thread when the pool is not running.
func blockingFileWork<T: Sendable, Failure: Error>(
    _ work: @escaping @Sendable () throws(Failure) -> T
) async throws(Failure) -> T {
    // The work's own outcome comes back as a value, so whatever the pool throws is the pool's: it is
    // not running (or the task was cancelled), and the work runs here instead.
    let outcome: Result<T, Failure>
    do {
        outcome = try await NIOThreadPool.singleton.runIfActive { Result { () throws(Failure) -> T in try work() } }
    } catch {
        outcome = Result { () throws(Failure) -> T in try work() }
    }
    return try outcome.get()
}

/// `open(2)`, for types whose own `open` methods hide it.
func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}
