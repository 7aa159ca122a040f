import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A named pipe (FIFO) that hands given bytes to the first reader, as a shell's `<(command)` does: the
/// file a program is given is a pipe, with no size, that can be read only once.
public final class NamedPipe: Sendable {
    /// The pipe's path.
    public let path: String

    /// Makes the pipe and starts writing `bytes` to it; the writer waits for a reader.
    /// - Parameters:
    ///   - path: Where to make it; nothing may be there.
    ///   - bytes: What the reader gets, then the end of the file.
    public init(at path: String, feeding bytes: [UInt8]) throws {
        guard mkfifo(path, 0o600) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, NSUnderlyingErrorKey: POSIXError(.init(rawValue: errno) ?? .EIO)])
        }
        self.path = path
        Thread.detachNewThread {
            let descriptor = open(path, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return }
            bytes.withUnsafeBytes { raw in
                var done = 0
                while done < raw.count {
                    let count = write(descriptor, raw.baseAddress! + done, raw.count - done)
                    if count <= 0 { break }
                    done += count
                }
            }
            close(descriptor)
        }
    }

    deinit {
        // A writer still waiting for a reader (the program under test never opened the pipe) is let go.
        let descriptor = open(self.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if descriptor >= 0 { close(descriptor) }
        unlink(self.path)
    }
}
