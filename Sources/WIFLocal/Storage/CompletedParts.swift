import Foundation
import Logging
import NIOCore
import Synchronization
import WIFFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One part of an object completed from a multipart upload, as its record lists it.
struct StoredBodyPart: Codable, Sendable, Equatable {
    /// The part number, which names the part's file.
    var number: Int
    /// The part's length.
    var length: Int64
}

/// The folders `parts/<upload id>/` that hold the bodies of objects completed from multipart uploads.
///
/// Completing an upload moves its folder here instead of copying its parts into one file, so a 1 GiB
/// upload completes without writing its gigabyte a second time. The object's file then holds only its
/// record, which lists the parts (``StoredRecord/bodyParts``).
///
/// A folder is removed when its object is replaced or deleted, but not while a reader that opened the
/// object before still reads it: readers pin the folder, and the last one out removes a retired folder.
final class CompletedParts: Sendable {
    /// The `parts/` folder.
    let root: String
    private let pins: Mutex<[String: Pin]>

    private struct Pin {
        var readers = 0
        var retired = false
    }

    init(root: String) {
        self.root = root
        self.pins = Mutex([:])
    }

    /// The folder of an upload's parts.
    func folder(_ uploadId: String) -> String {
        self.root + "/" + uploadId
    }

    /// A reader of an object's parts, which keeps them until it is gone. Call it only while the object
    /// that lists them is still current (under its bucket's lock), so they cannot have been retired yet.
    func reader(uploadId: String, parts: [StoredBodyPart]) -> PartReader {
        self.pins.withLock { $0[uploadId, default: Pin()].readers += 1 }
        return PartReader(owner: self, uploadId: uploadId, parts: parts)
    }

    fileprivate func unpin(_ uploadId: String) {
        let remove = self.pins.withLock { pins -> Bool in
            guard var pin = pins[uploadId] else { return false }
            pin.readers -= 1
            if pin.readers > 0 {
                pins[uploadId] = pin
                return false
            }
            pins[uploadId] = nil
            return pin.retired
        }
        if remove { self.remove(uploadId) }
    }

    /// Removes the parts of an object that was replaced or deleted, at once or when its last reader ends.
    func retire(_ uploadId: String) {
        let remove = self.pins.withLock { pins -> Bool in
            guard pins[uploadId] != nil else { return true }
            pins[uploadId]?.retired = true
            return false
        }
        if remove { self.remove(uploadId) }
    }

    /// What the store's start found of the objects whose bodies are in `parts/`.
    struct Scan {
        /// The part numbers of each upload an object lists, by upload id.
        var referenced: [String: [Int]] = [:]
        /// Whether every stored object could be read, so that a folder no object lists is truly unused.
        var complete = true
    }

    /// Puts `parts/` in order after a stop, given what the store's start found:
    /// - a folder an object lists loses the upload's record and the parts the object does not use,
    ///   left by a stop just after the object was committed;
    /// - a folder no object lists that still holds the upload's record goes back to `uploads/`: the
    ///   stop came before its completion was committed, so the upload is still open;
    /// - any other folder no object lists is removed (its object was replaced or deleted), unless some
    ///   stored object could not be read, whose parts it may hold.
    func recover(_ scan: Scan, uploads: String, logger: Logger) {
        var kept = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: self.root)) ?? [] {
            let folder = self.folder(name)
            if let numbers = scan.referenced[name] {
                self.trim(name, keeping: numbers)
            } else if access(folder + "/upload.json", F_OK) == 0 {
                if rename(folder, uploads + "/" + name) != 0 {
                    logger.error("cannot move an uncompleted upload back", metadata: ["wif.s3.upload": "\(name)", "wif.s3.errno": "\(errno)"])
                }
            } else if scan.complete {
                ObjectStore.removeTree(folder)
            } else {
                kept += 1
            }
        }
        if kept > 0 {
            logger.warning(
                "keeping parts that no object lists, because some stored objects could not be read",
                metadata: ["wif.s3.folders": "\(kept)"])
        }
    }

    /// Removes from a completed upload's folder its record and the parts its object does not use.
    func trim(_ uploadId: String, keeping numbers: [Int]) {
        let folder = self.folder(uploadId)
        let kept = Set(numbers.map(ObjectStore.partName))
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where !kept.contains(name) {
            unlink(folder + "/" + name)
        }
    }

    private func remove(_ uploadId: String) {
        ObjectStore.removeTree(self.folder(uploadId))
    }
}

/// Reads the body of an object completed from a multipart upload across its parts' files, opening each
/// part as the reads reach it. Holds the parts' folder until released.
final class PartReader: Sendable {
    private let owner: CompletedParts
    private let uploadId: String
    private let parts: [StoredBodyPart]
    /// Where each part starts in the body.
    private let starts: [Int64]
    /// The part file opened last, kept for the sequential reads that follow.
    private let current: Mutex<(index: Int, file: OpenDescriptor)?>

    fileprivate init(owner: CompletedParts, uploadId: String, parts: [StoredBodyPart]) {
        self.owner = owner
        self.uploadId = uploadId
        self.parts = parts
        var starts: [Int64] = []
        starts.reserveCapacity(parts.count)
        var offset: Int64 = 0
        for part in parts {
            starts.append(offset)
            offset += part.length
        }
        self.starts = starts
        self.current = Mutex(nil)
    }

    deinit {
        self.owner.unpin(self.uploadId)
    }

    /// Reads up to `count` body bytes at `offset` into a new buffer (blocking).
    func read(offset: Int64, count: Int, allocator: ByteBufferAllocator) throws(AWSErrorResponse) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: count)
        var position = offset
        var index = self.partIndex(containing: offset)
        while buffer.readableBytes < count, index < self.parts.count {
            let within = position - self.starts[index]
            let wanted = Int(min(Int64(count - buffer.readableBytes), self.parts[index].length - within))
            try self.descriptor(of: index).read(into: &buffer, offset: within, count: wanted, what: "a part of a stored object")
            position += Int64(wanted)
            index += 1
        }
        guard buffer.readableBytes == count else { throw ObjectStoreError.internalError("a stored object ended early") }
        return buffer
    }

    private func partIndex(containing offset: Int64) -> Int {
        var low = 0
        var high = self.starts.count
        while high - low > 1 {
            let middle = (low + high) / 2
            if self.starts[middle] <= offset { low = middle } else { high = middle }
        }
        return low
    }

    private func descriptor(of index: Int) throws(AWSErrorResponse) -> OpenDescriptor {
        if let current = self.current.withLock({ $0 }), current.index == index { return current.file }
        let path = self.owner.folder(self.uploadId) + "/" + ObjectStore.partName(self.parts[index].number)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = errno
            if error == ENOENT { throw ObjectStoreError.internalError("a part of a stored object is missing") }
            throw ObjectStoreError.systemCall("open", error)
        }
        let file = OpenDescriptor(descriptor)
        self.current.withLock { $0 = (index, file) }
        return file
    }
}

extension ObjectStore {
    // MARK: Completing an upload into its parts

    /// Flushes a folder's entries to disk when writes are synced, so that a rename in it survives a power
    /// loss before what depends on it: an object's record naming parts that were just moved, or the
    /// removal of parts an object no longer names.
    /// - Returns: 0, or the `errno` of the failure.
    func synchronizeFolder(_ path: String) async -> Int32 {
        guard self.configuration.synchronizeWrites else { return 0 }
        return await blockingFileWork {
            let descriptor = systemOpen(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
            guard descriptor >= 0 else { return errno }
            defer { close(descriptor) }
            return fsync(descriptor) == 0 ? 0 : errno
        }
    }

    /// Removes the parts of an object that was replaced or deleted once the change is on disk; when it
    /// cannot be flushed, the parts stay, since the object may come back after a power loss.
    func retireParts(_ uploadId: String, replacedIn folder: String) async {
        let failure = await self.synchronizeFolder(folder)
        guard failure == 0 else {
            self.logger.error("keeping the parts of a replaced object: its folder cannot be synced", metadata: ["wif.s3.upload": "\(uploadId)", "wif.s3.errno": "\(failure)"])
            return
        }
        self.completedParts.retire(uploadId)
    }

    /// Moves an upload's folder to `parts/`, checking that each named part is still the file that was
    /// checked; when one is not, moves the folder back.
    /// - Returns: Whether the parts moved.
    func moveParts(of uploadId: String, checked parts: [(number: Int, file: StoredFile)]) async throws(AWSErrorResponse) -> Bool {
        let folder = self.completedParts.folder(uploadId)
        guard rename(self.uploadPath(uploadId), folder) == 0 else {
            let error = errno
            if error == ENOENT { throw ObjectStoreError.noSuchUpload(uploadId) }
            throw ObjectStoreError.systemCall("rename", error)
        }
        for (number, file) in parts {
            var moved = stat()
            var checked = stat()
            guard stat(folder + "/" + Self.partName(number), &moved) == 0, fstat(file.descriptor, &checked) == 0,
                moved.st_dev == checked.st_dev, moved.st_ino == checked.st_ino
            else {
                self.restoreParts(of: uploadId)
                return false
            }
        }
        let failure = await self.synchronizeFolder(self.data.parts)
        if failure != 0 {
            self.restoreParts(of: uploadId)
            throw ObjectStoreError.systemCall("fsync", failure)
        }
        return true
    }

    /// Moves a folder of parts back to the upload it came from, when its object could not be committed.
    func restoreParts(of uploadId: String) {
        if rename(self.completedParts.folder(uploadId), self.uploadPath(uploadId)) != 0 {
            self.logger.error("cannot move the parts of a multipart upload back", metadata: ["wif.s3.upload": "\(uploadId)", "wif.s3.errno": "\(errno)"])
        }
    }

    /// Copies the bodies of parts one after the other into a file.
    func concatenate(_ files: [StoredFile], into output: TemporaryFile) async throws(AWSErrorResponse) {
        let descriptor = output.descriptor
        let copied = await blockingFileWork { Self.concatenate(files, into: descriptor) }
        if copied != 0 { throw ObjectStoreError.systemCall("write", copied) }
        try output.skip(files.reduce(0) { $0 + $1.bodyLength })
    }

    /// Appends the bodies of the parts to a file; returns 0 or an `errno`.
    fileprivate static func concatenate(_ parts: [StoredFile], into descriptor: Int32) -> Int32 {
        let chunk = 1024 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        for part in parts {
            var offset: Int64 = 0
            while offset < part.bodyLength {
                let want = Int(min(Int64(chunk), part.bodyLength - offset))
                let read = pread(part.descriptor, buffer.baseAddress!, want, off_t(offset))
                if read < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if read == 0 { return EIO }
                if let failure = DescriptorWriter.writeAll(UnsafeRawBufferPointer(rebasing: buffer[0..<read]), to: descriptor) { return failure }
                offset += Int64(read)
            }
        }
        return 0
    }
}
