import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A raw TCP connection to 127.0.0.1, for tests of what a server does with connections themselves:
/// ones that stay idle, or more than it serves at once.
public final class LoopbackConnection: @unchecked Sendable {
    private let descriptor: Int32

    /// Connects to 127.0.0.1:`port`.
    public init(port: Int) throws {
        #if canImport(Glibc)
        let type = Int32(SOCK_STREAM.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, type, 0)
        guard descriptor >= 0 else { throw MotoServerError(description: "socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw MotoServerError(description: "connect() to port \(port) failed: errno \(errno)")
        }
        self.descriptor = descriptor
    }

    deinit {
        close(self.descriptor)
    }

    /// Sends text.
    public func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        let sent = bytes.withUnsafeBytes { sendBytes(self.descriptor, $0.baseAddress, $0.count) }
        guard sent == bytes.count else { throw MotoServerError(description: "send() failed: errno \(errno)") }
    }

    /// Ends the connection from this side (both directions), as a client that goes away does; the
    /// descriptor itself is released when the connection is.
    public func shutDown() {
        _ = shutdown(self.descriptor, Int32(SHUT_RDWR))
    }

    /// What the peer does within `timeout`: the bytes it sent (up to 64 KiB, as soon as some arrive),
    /// `closed` when it closed the connection, `silent` when nothing happened.
    public enum Event: Equatable, Sendable {
        case received(String)
        case closed
        case silent
    }

    /// Waits up to `timeout` for the peer to send something or close the connection, on a thread of its
    /// own: a server in the same process answers on the concurrency pool, which a blocking wait there
    /// could starve.
    public func next(timeout: Duration) async -> Event {
        await Self.offPool { self.waitForEvent(timeout: timeout) }
    }

    /// Reads until the peer closes the connection or `timeout` passes, on a thread of its own.
    /// - Returns: Whether it closed, and everything received before.
    public func readUntilClosed(timeout: Duration) async -> (closed: Bool, received: String) {
        await Self.offPool { self.waitUntilClosed(timeout: timeout) }
    }

    private static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }

    private func waitForEvent(timeout: Duration) -> Event {
        var poller = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let ready = poll(&poller, 1, max(0, milliseconds))
        guard ready > 0 else { return .silent }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { recv(self.descriptor, $0.baseAddress, $0.count, 0) }
        if count <= 0 { return .closed }
        return .received(String(decoding: buffer[0..<count], as: UTF8.self))
    }

    private func waitUntilClosed(timeout: Duration) -> (closed: Bool, received: String) {
        let deadline = ContinuousClock.now + timeout
        var received = ""
        while ContinuousClock.now < deadline {
            switch self.waitForEvent(timeout: deadline - ContinuousClock.now) {
            case .received(let text): received += text
            case .closed: return (true, received)
            case .silent: return (false, received)
            }
        }
        return (false, received)
    }
}

#if canImport(Glibc)
private func sendBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    Glibc.send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
}
#else
private func sendBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    Darwin.send(descriptor, bytes, count, 0)
}
#endif
