import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes read in order, to their end, from a descriptor whose length is not known in advance: standard
/// input, a pipe, a terminal. Reads run on NIO's blocking-I/O thread pool, so they never block Swift's
/// cooperative threads.
///
/// The descriptor is not closed: it belongs to whoever opened it.
public struct SequentialInput: Sendable, CustomStringConvertible {
    /// The descriptor read from.
    public let descriptor: Int32
    /// What it is, for error messages: `standard input`, a path.
    public let name: String

    /// The process's standard input.
    public static let standardInput = SequentialInput(descriptor: 0, name: "standard input")

    /// Reads from an open descriptor.
    /// - Parameters:
    ///   - descriptor: The descriptor, open for reading.
    ///   - name: What it is, for error messages.
    public init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
    }

    public var description: String { self.name }

    /// Reads `count` bytes, or fewer when the input ends first; an empty buffer means it had ended.
    /// - Throws: ``S3Error`` with code ``S3Error/Code/fileError`` when a read fails.
    func read(upTo count: Int, allocator: ByteBufferAllocator) async throws -> ByteBuffer {
        let descriptor = self.descriptor
        let name = self.name
        return try await NIOThreadPool.singleton.runIfActive { () throws -> ByteBuffer in
            var buffer = allocator.buffer(capacity: count)
            try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { pointer throws -> Int in
                guard let base = pointer.baseAddress else { return 0 }
                var filled = 0
                while filled < count {
                    let result = systemRead(descriptor, base + filled, count - filled)
                    if result == 0 { break }
                    if result < 0 {
                        if errno == EINTR { continue }
                        throw S3Error.fileError("cannot read \(name): \(systemErrorText(errno))")
                    }
                    filled += result
                }
                return filled
            }
            return buffer
        }
    }
}

/// `read(2)`, whose name the method `SequentialInput.read` hides inside the type.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
