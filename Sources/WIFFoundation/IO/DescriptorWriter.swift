#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes whole buffers to a file descriptor: a file, a pipe, a terminal, a non-blocking output.
package enum DescriptorWriter {
    /// Writes every byte, retrying short writes and interruptions and waiting while a non-blocking
    /// output is full.
    /// - Parameters:
    ///   - bytes: What to write.
    ///   - descriptor: Where.
    /// - Returns: The `errno` of a failure (`EIO` for a write that took nothing), or `nil`.
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
        guard let base = bytes.baseAddress else { return nil }
        var done = 0
        while done < bytes.count {
            let result = systemWrite(descriptor, base + done, bytes.count - done)
            if result > 0 {
                done += result
                continue
            }
            if result < 0 && errno == EINTR { continue }
            if result < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                var waiting = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&waiting, 1, -1)
                continue
            }
            return result < 0 ? errno : EIO
        }
        return nil
    }
}

/// `write(2)`, under a name that ``DescriptorWriter`` does not hide.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
