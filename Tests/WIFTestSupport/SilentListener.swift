import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback socket that listens and never accepts: the kernel completes each client's handshake,
/// and the request then waits for an answer that never comes, like a server that has hung.
public final class SilentListener: Sendable {
    private let descriptor: Int32
    /// The port it listens on.
    public let port: Int

    /// Starts listening on a free loopback port.
    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SilentListenerError(description: "socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            close(descriptor)
            throw SilentListenerError(description: "cannot listen on loopback: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(self.descriptor)
    }

    /// `http://127.0.0.1:<port>`.
    public var url: String { "http://127.0.0.1:\(self.port)" }
}

/// Why a ``SilentListener`` could not start.
public struct SilentListenerError: Error, CustomStringConvertible {
    public var description: String
}
