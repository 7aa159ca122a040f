import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import Testing
import WIFCredentials

@testable import S3Partition

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A `moto_server` process on a free loopback port, for tests that talk S3 to a third-party server.
///
/// Tests using it are enabled when `moto_server` is on `PATH` or `WIF_REQUIRE_PEERS=1` is set; with
/// the latter a missing executable fails the test instead of skipping it. ``withServer(_:)`` always
/// stops the process. A small Python supervisor kills moto when its standard input closes, which
/// happens on ``stop()`` and also when the test process dies.
final class MotoS3: Sendable {
    /// `http://127.0.0.1:<port>`.
    let endpoint: String
    let port: Int

    private struct Running {
        var process: Process
        var lifeline: FileHandle
    }

    private let running: Mutex<Running?>
    private let logPath: String

    private static let supervisor = """
        import signal, subprocess, sys, threading
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL)
        def watch():
            sys.stdin.buffer.read()
            child.kill()
        threading.Thread(target=watch, daemon=True).start()
        sys.exit(child.wait())
        """

    static let executable = MotoS3.which("moto_server")
    static let python = MotoS3.which("python3")
    static let peersRequired = ProcessInfo.processInfo.environment["WIF_REQUIRE_PEERS"] == "1"
    /// Whether moto tests run (and fail when moto is missing but required).
    static let isEnabled = executable != nil || peersRequired
    static let skipReason: Comment =
        "moto_server is not on PATH; install it with `pip install 'moto[server]'` (WIF_REQUIRE_PEERS=1 fails instead of skipping)"

    private static func which(_ name: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    private init(process: Process, lifeline: FileHandle, port: Int, logPath: String) {
        self.running = Mutex(Running(process: process, lifeline: lifeline))
        self.port = port
        self.endpoint = "http://127.0.0.1:\(port)"
        self.logPath = logPath
    }

    deinit { self.stop() }

    /// Runs `body` with a fresh server, stopping it afterwards.
    static func withServer<T>(_ body: (MotoS3) async throws -> T) async throws -> T {
        let server = try await Self.start()
        defer { server.stop() }
        return try await body(server)
    }

    static func start() async throws -> MotoS3 {
        guard let executable else {
            throw TestFailure("WIF_REQUIRE_PEERS=1 but moto_server is not on PATH; install it with `pip install 'moto[server]'`")
        }
        guard let python else { throw TestFailure("python3 is not on PATH, though moto_server is") }
        var lastError: (any Error)?
        for _ in 0..<3 {
            let port = try freeLoopbackPort()
            let logPath = FileManager.default.temporaryDirectory.appendingPathComponent("moto-s3-\(port)-\(UUID().uuidString).log").path
            FileManager.default.createFile(atPath: logPath, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = ["-c", Self.supervisor, executable, "-H", "127.0.0.1", "-p", String(port)]
            let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
            let lifeline = Pipe()
            process.standardOutput = log
            process.standardError = log
            process.standardInput = lifeline
            try process.run()
            try? log.close()
            let server = MotoS3(process: process, lifeline: lifeline.fileHandleForWriting, port: port, logPath: logPath)
            do {
                try await server.waitUntilListening()
                return server
            } catch {
                server.stop()
                lastError = error
            }
        }
        throw lastError ?? TestFailure("moto_server did not start")
    }

    func stop() {
        guard let running = self.running.withLock({ $0.take() }) else { return }
        try? running.lifeline.close()
        running.process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: self.logPath)
    }

    var logTail: String {
        guard let data = FileManager.default.contents(atPath: self.logPath) else { return "" }
        return String(decoding: data.suffix(2000), as: UTF8.self)
    }

    private func waitUntilListening() async throws {
        for _ in 0..<300 {
            guard self.running.withLock({ $0?.process.isRunning ?? false }) else {
                throw TestFailure("moto_server exited during start-up: \(self.logTail)")
            }
            if acceptsConnections(port: self.port) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestFailure("moto_server did not listen on port \(self.port) within 30 seconds: \(self.logTail)")
    }

    /// A client for this server: path-style, static test credentials, no real sleeping.
    func client(
        transfer: S3Client.Transfer = S3Client.Transfer(partSize: S3Client.Transfer.minimumPartSize, concurrency: 4),
        checksum: S3Client.ChecksumAlgorithm = .sha256
    ) throws -> S3Client {
        try S3Client(
            configuration: .init(region: "us-east-1", endpoint: self.endpoint, checksumAlgorithm: checksum, transfer: transfer),
            credentialProvider: .static(accessKeyId: "AKIDMOTOTEST", secretAccessKey: "moto-secret"),
            environment: [:], timeSource: TestClock().timeSource)
    }

    /// Creates a bucket through the client's own signed request path.
    func createBucket(_ name: String, with client: S3Client) async throws {
        let request = S3Request(operation: "CreateBucket", method: .PUT, bucket: name)
        _ = try await client.performCollecting(request, logger: .init(label: "test"))
    }
}

/// A failure in test set-up, with a message.
struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A TCP port on 127.0.0.1 that was free a moment ago.
func freeLoopbackPort() throws -> Int {
    let descriptor = socket(AF_INET, streamSocketType, 0)
    guard descriptor >= 0 else { throw TestFailure("socket() failed: errno \(errno)") }
    defer { close(descriptor) }
    var address = loopbackAddress(port: 0)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw TestFailure("bind() failed: errno \(errno)") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard named == 0 else { throw TestFailure("getsockname() failed: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}

func acceptsConnections(port: Int) -> Bool {
    let descriptor = socket(AF_INET, streamSocketType, 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = loopbackAddress(port: UInt16(port))
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    return connected == 0
}

private var streamSocketType: Int32 {
    #if canImport(Glibc)
    Int32(SOCK_STREAM.rawValue)
    #else
    SOCK_STREAM
    #endif
}

private func loopbackAddress(port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    return address
}
