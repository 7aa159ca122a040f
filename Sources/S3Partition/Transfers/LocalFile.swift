import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The error text of `errno`.
func systemErrorText(_ code: Int32) -> String {
    String(cString: strerror(code))
}

/// A file opened for reading at offsets, shared by the parts of an upload. Reads run on NIO's
/// blocking-I/O thread pool, so they never block Swift's cooperative threads; the descriptor is
/// closed when the last reference goes.
final class ReadableFile: Sendable {
    let descriptor: Int32
    let path: String
    /// The size when the file was opened.
    let size: Int64

    private init(descriptor: Int32, path: String, size: Int64) {
        self.descriptor = descriptor
        self.path = path
        self.size = size
    }

    deinit {
        _ = close(self.descriptor)
    }

    /// Opens a regular file.
    /// - Throws: ``S3Error`` with code ``S3Error/Code/fileError`` naming the path and the reason.
    static func open(_ path: String) throws(S3Error) -> ReadableFile {
        let descriptor = path.withCString { openFile($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            throw .fileError("cannot open '\(path)' for reading: \(systemErrorText(errno))")
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            _ = close(descriptor)
            throw .fileError("cannot read the size of '\(path)': \(systemErrorText(code))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            _ = close(descriptor)
            throw .fileError("'\(path)' is not a regular file")
        }
        return ReadableFile(descriptor: descriptor, path: path, size: Int64(info.st_size))
    }

    /// Reads exactly `count` bytes at `offset`.
    /// - Throws: ``S3Error`` with code ``S3Error/Code/fileError`` when the read fails or the file is
    ///   shorter than expected (it changed while being uploaded).
    func read(at offset: Int64, count: Int, allocator: ByteBufferAllocator) async throws -> ByteBuffer {
        let descriptor = self.descriptor
        let path = self.path
        return try await NIOThreadPool.singleton.runIfActive { () throws -> ByteBuffer in
            var buffer = allocator.buffer(capacity: count)
            try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { pointer throws -> Int in
                try Self.readFully(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: pointer[0..<count]), at: offset, path: path)
                return count
            }
            return buffer
        }
    }

    /// Computes digests of `length` bytes at `offset` in one pass on the thread pool.
    func digest(at offset: Int64, length: Int64, kinds: DigestKinds) async throws -> PayloadDigest {
        let descriptor = self.descriptor
        let path = self.path
        return try await NIOThreadPool.singleton.runIfActive { () throws -> PayloadDigest in
            var hasher = PayloadDigest.Hasher(kinds)
            let chunk = Int(min(length, Int64(S3Client.fileChunkSize)))
            let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: max(chunk, 1), alignment: 16)
            defer { scratch.deallocate() }
            var done: Int64 = 0
            while done < length {
                let count = Int(min(Int64(chunk), length - done))
                let slice = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<count])
                try Self.readFully(descriptor, into: slice, at: offset + done, path: path)
                hasher.update(UnsafeRawBufferPointer(slice))
                done += Int64(count)
            }
            return hasher.finalize()
        }
    }

    private static func readFully(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64, path: String) throws(S3Error) {
        guard let base = buffer.baseAddress else { return }
        var done = 0
        while done < buffer.count {
            let result = pread(descriptor, base + done, buffer.count - done, off_t(offset + Int64(done)))
            if result < 0 {
                if errno == EINTR { continue }
                throw .fileError("cannot read '\(path)': \(systemErrorText(errno))")
            }
            if result == 0 {
                throw .fileError("'\(path)' became shorter while it was being read; it must not change during an upload")
            }
            done += result
        }
    }
}

/// A new file being written at offsets by the parts of a download.
final class WritableFile: Sendable {
    let descriptor: Int32
    let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        _ = close(self.descriptor)
    }

    /// Creates a file that must not exist yet, readable and writable as the umask allows.
    /// - Throws: ``S3Error`` with code ``S3Error/Code/fileError``.
    static func createNew(_ path: String) throws(S3Error) -> WritableFile {
        let descriptor = path.withCString { openFile($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666) }
        guard descriptor >= 0 else {
            throw .fileError("cannot create '\(path)': \(systemErrorText(errno))")
        }
        return WritableFile(descriptor: descriptor, path: path)
    }

    /// Vectors per `pwritev(2)` call: `IOV_MAX` on Linux and Darwin.
    static let maximumVectors = 1024

    /// Writes `buffers`, one after another, at `offset`, on the calling thread, with as few
    /// `pwritev(2)` calls as the system allows: the received buffers go to the file as they are, with no
    /// copy into one buffer.
    func write(_ buffers: [ByteBuffer], at offset: Int64) throws(S3Error) {
        let descriptor = self.descriptor
        let path = self.path
        // Each buffer's storage is retained until the writes are done, so its bytes stay where
        // the vectors point; nothing writes to them meanwhile.
        var vectors: [iovec] = []
        var storages: [Unmanaged<AnyObject>] = []
        vectors.reserveCapacity(buffers.count)
        storages.reserveCapacity(buffers.count)
        defer { storages.forEach { $0.release() } }
        for buffer in buffers where buffer.readableBytes > 0 {
            buffer.withUnsafeReadableBytesWithStorageManagement { bytes, storage in
                storages.append(storage.retain())
                vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress), iov_len: bytes.count))
            }
        }
        var first = 0
        var position = offset
        while first < vectors.count {
            let count = min(vectors.count - first, Self.maximumVectors)
            let result = vectors.withUnsafeBufferPointer { all in
                pwritev(descriptor, all.baseAddress.map { $0 + first }, Int32(count), off_t(position))
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw .fileError("cannot write '\(path)': \(systemErrorText(errno))")
            }
            // Skip what was written; a partly written vector keeps its remainder.
            position += Int64(result)
            var written = result
            while written > 0 {
                let length = vectors[first].iov_len
                if written >= length {
                    written -= length
                    first += 1
                } else {
                    vectors[first].iov_base += written
                    vectors[first].iov_len -= written
                    written = 0
                }
            }
        }
    }

    /// Sets the file's length.
    func truncate(to length: Int64) throws(S3Error) {
        guard ftruncate(self.descriptor, off_t(length)) == 0 else {
            throw .fileError("cannot size '\(self.path)' to \(length) bytes: \(systemErrorText(errno))")
        }
    }

    /// The file's current length.
    func currentSize() throws(S3Error) -> Int64 {
        var info = stat()
        guard fstat(self.descriptor, &info) == 0 else {
            throw .fileError("cannot read the size of '\(self.path)': \(systemErrorText(errno))")
        }
        return Int64(info.st_size)
    }

    /// Flushes the file to disk.
    func sync() async throws {
        let descriptor = self.descriptor
        let path = self.path
        try await NIOThreadPool.singleton.runIfActive { () throws in
            guard fsync(descriptor) == 0 else {
                throw S3Error.fileError("cannot flush '\(path)' to disk: \(systemErrorText(errno))")
            }
        }
    }
}

/// `open(2)`, which Swift imports as a variadic function on some platforms.
private func openFile(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    var result: Int32
    repeat {
        result = open(path, flags, mode)
    } while result < 0 && errno == EINTR
    return result
}
