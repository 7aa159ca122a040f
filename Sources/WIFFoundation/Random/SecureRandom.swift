#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes from the operating system's cryptographically secure generator, a whole buffer per call.
///
/// `SystemRandomNumberGenerator` and the key types built on it ask the kernel for eight bytes at a
/// time; a server that makes an access key id, a secret key, a nonce and a request id for every
/// call made a dozen system calls for them. This asks once per buffer.
package enum SecureRandom {
    #if !canImport(Darwin)
    /// `/dev/urandom`, opened once: the kernel's generator, which never blocks once seeded at boot.
    private static let device: Int32? = {
        let descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        return descriptor >= 0 ? descriptor : nil
    }()
    #endif

    /// Fills a buffer with random bytes.
    package static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        #if canImport(Darwin)
        arc4random_buf(base, buffer.count)
        #else
        var filled = 0
        while filled < buffer.count, let device = Self.device {
            let result = read(device, base + filled, buffer.count - filled)
            if result > 0 {
                filled += result
            } else if result < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        // Without the device: the standard library's generator, eight bytes at a time.
        var generator = SystemRandomNumberGenerator()
        while filled < buffer.count {
            withUnsafeBytes(of: generator.next() as UInt64) { word in
                let count = min(word.count, buffer.count - filled)
                (base + filled).copyMemory(from: word.baseAddress!, byteCount: count)
                filled += count
            }
        }
        #endif
    }

    /// `count` random bytes.
    package static func bytes(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            Self.fill(UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }
}
