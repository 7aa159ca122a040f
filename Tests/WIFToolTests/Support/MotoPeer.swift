import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A `moto_server` on a free loopback port: a third-party STS and S3 for running `wif-tool --endpoint`
/// against. Moto accepts any token and does not enforce policies.
///
/// Tests are enabled when `moto_server` is on `PATH`, or when `WIF_REQUIRE_PEERS=1` (then a missing
/// executable fails the test instead of skipping it).
final class MotoPeer: @unchecked Sendable {
    let endpoint: String
    private let process: Process
    private let lifeline: FileHandle
    private let log: URL

    /// A supervisor that clears the signal mask inherited from the test runner and kills moto when its
    /// standard input closes, also when the test process dies.
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

    static func onPath(_ name: String) -> URL? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    static let executable = onPath("moto_server")
    static let isAvailable = executable != nil || ProcessInfo.processInfo.environment["WIF_REQUIRE_PEERS"] == "1"
    static let skipReason: Comment =
        "moto_server is not on PATH; install it with `pip install 'moto[server]'` (WIF_REQUIRE_PEERS=1 fails instead of skipping)"

    private init(endpoint: String, process: Process, lifeline: FileHandle, log: URL) {
        self.endpoint = endpoint
        self.process = process
        self.lifeline = lifeline
        self.log = log
    }

    /// Runs `body` with a fresh server in which `bucket` exists, and stops the server afterwards.
    static func withServer<T>(bucket: String, _ body: (MotoPeer) async throws -> T) async throws -> T {
        let server = try await Self.start()
        defer { server.stop() }
        try await server.createBucket(bucket)
        return try await body(server)
    }

    static func start() async throws -> MotoPeer {
        guard let executable, let python = onPath("python3") else {
            throw ToolError("WIF_REQUIRE_PEERS=1 but moto_server (or python3) is not on PATH")
        }
        var lastError: any Error = ToolError("moto_server did not start")
        for _ in 0..<3 {
            let port = try Self.freePort()
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("wif-tool-moto-\(port)-\(UUID().uuidString).log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let handle = try FileHandle(forWritingTo: log)
            let process = Process()
            process.executableURL = python
            process.arguments = ["-c", Self.supervisor, executable.path, "-H", "127.0.0.1", "-p", String(port)]
            let lifeline = Pipe()
            process.standardInput = lifeline
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            try? handle.close()
            let server = MotoPeer(
                endpoint: "http://127.0.0.1:\(port)", process: process, lifeline: lifeline.fileHandleForWriting, log: log)
            do {
                try await server.waitUntilListening(port: port)
                return server
            } catch {
                server.stop()
                lastError = error
            }
        }
        throw lastError
    }

    func stop() {
        try? self.lifeline.close()
        self.process.waitUntilExit()
        try? FileManager.default.removeItem(at: self.log)
    }

    /// Creates a bucket with an unsigned request (moto does not check signatures by default).
    func createBucket(_ name: String) async throws {
        guard let url = URL(string: "\(self.endpoint)/\(name)") else { throw ToolError("bad bucket URL") }
        var request = URLRequest(url: url)
        request.httpMethod = "PUT"
        let status: Int = try await withCheckedThrowingContinuation { continuation in
            URLSession.shared.dataTask(with: request) { _, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: (response as? HTTPURLResponse)?.statusCode ?? 0)
                }
            }.resume()
        }
        guard status == 200 else { throw ToolError("creating bucket \(name) on moto answered HTTP \(status)") }
    }

    private func waitUntilListening(port: Int) async throws {
        for _ in 0..<300 {
            guard self.process.isRunning else {
                let log = (try? String(contentsOf: self.log, encoding: .utf8)) ?? ""
                throw ToolError("moto_server exited during start-up: \(log.suffix(1000))")
            }
            if Self.accepts(port: port) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ToolError("moto_server did not listen on port \(port) within 30 seconds")
    }

    private static var streamType: Int32 {
        #if canImport(Glibc)
        Int32(SOCK_STREAM.rawValue)
        #else
        SOCK_STREAM
        #endif
    }

    private static func loopback(_ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Self.streamType, 0)
        guard descriptor >= 0 else { throw ToolError("socket() failed") }
        defer { close(descriptor) }
        var address = Self.loopback(0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw ToolError("bind() failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw ToolError("getsockname() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Self.streamType, 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = Self.loopback(UInt16(port))
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
