import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A `moto_server` process on a loopback port, for tests that need a real peer speaking the AWS wire
/// protocols (STS, IAM, S3): the one launcher of every test target.
///
/// Start it with ``withServer(environment:_:)``, which always stops the process, also when the body
/// throws. Tests that use it are enabled when ``isAvailable`` (the executable is on `PATH`), or when
/// `WIF_REQUIRE_PEERS=1` is set, in which case a missing executable fails the test instead of
/// skipping it.
public final class MotoServer: Sendable {
    /// The server's base URL, `http://127.0.0.1:<port>`.
    public let endpoint: URL
    /// The loopback port it listens on.
    public let port: Int

    private struct Running {
        var process: Process
        /// The write end of the supervisor's standard input: closing it, or this process dying,
        /// makes the supervisor kill moto.
        var lifeline: FileHandle
    }

    private let running: Mutex<Running?>
    private let logFile: URL

    /// Runs moto under a small Python supervisor that kills it when the supervisor's standard input
    /// reaches end of file: when ``stop()`` closes the lifeline, or when the test process dies without
    /// stopping it. The supervisor first clears the signal mask inherited from the test runner (which
    /// blocks SIGTERM, SIGINT and SIGCHLD), so moto and the supervisor itself see signals normally.
    private static let supervisorScript = """
        import signal, subprocess, sys, threading
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL)
        def watch():
            sys.stdin.buffer.read()
            child.kill()
        threading.Thread(target=watch, daemon=True).start()
        sys.exit(child.wait())
        """

    /// The Python that runs the supervisor.
    public static let python: URL? = MotoServer.onPath("python3")

    /// The name of the executable looked up on `PATH`.
    public static let executableName = "moto_server"

    /// Where `moto_server` is, if it is on `PATH`.
    public static let executable: URL? = MotoServer.onPath(executableName)

    /// Where an executable is on `PATH`, if it is.
    public static func onPath(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// Whether `WIF_REQUIRE_PEERS=1` asks for peer tests to fail rather than skip.
    public static let peersRequired = ProcessInfo.processInfo.environment["WIF_REQUIRE_PEERS"] == "1"

    /// Whether the peer tests run: moto is installed, or peers are required (and then fail if missing).
    public static let isAvailable = executable != nil || peersRequired

    /// Why peer tests were skipped, for `.enabled(if:_:)` (as a test target's `Comment`).
    public static let skipReasonText =
        "moto_server is not on PATH; install it with `pip install 'moto[server]'` (set WIF_REQUIRE_PEERS=1 to fail instead of skipping)"

    private init(process: Process, lifeline: FileHandle, port: Int, endpoint: URL, logFile: URL) {
        self.running = Mutex(Running(process: process, lifeline: lifeline))
        self.port = port
        self.endpoint = endpoint
        self.logFile = logFile
    }

    /// Runs `body` with a fresh server and stops the server afterwards.
    /// - Parameters:
    ///   - environment: Extra environment variables for moto (for example
    ///     `INITIAL_NO_AUTH_ACTION_COUNT`).
    ///   - body: The test.
    /// - Returns: What `body` returns.
    public static func withServer<T>(
        environment: [String: String] = [:],
        _ body: (MotoServer) async throws -> T
    ) async throws -> T {
        let server = try await Self.start(environment: environment)
        do {
            let result = try await body(server)
            server.stop()
            return result
        } catch {
            server.stop()
            throw error
        }
    }

    /// Starts a server on a free loopback port and waits until it accepts connections.
    public static func start(environment: [String: String] = [:]) async throws -> MotoServer {
        guard let executable = Self.executable else {
            throw MotoServerError(description: "WIF_REQUIRE_PEERS=1 but \(Self.executableName) is not on PATH; install it with `pip install 'moto[server]'`")
        }
        guard let python = Self.python else {
            throw MotoServerError(description: "python3 is not on PATH, though \(Self.executableName) is")
        }
        var lastError: (any Error)?
        // A port found free can be taken by someone else before moto binds it: try a few.
        for _ in 0..<3 {
            let port = try Loopback.freePort()
            guard let endpoint = URL(string: "http://127.0.0.1:\(port)") else {
                throw MotoServerError(description: "cannot build a URL for port \(port)")
            }
            let logFile = TemporaryFolder.url("moto-\(port)", suffix: ".log")
            FileManager.default.createFile(atPath: logFile.path, contents: nil)
            let process = Process()
            process.executableURL = python
            process.arguments = ["-c", Self.supervisorScript, executable.path, "-H", "127.0.0.1", "-p", String(port)]
            var processEnvironment = ProcessInfo.processInfo.environment
            processEnvironment.merge(environment) { $1 }
            process.environment = processEnvironment
            let log = try FileHandle(forWritingTo: logFile)
            let lifeline = Pipe()
            process.standardOutput = log
            process.standardError = log
            process.standardInput = lifeline
            try process.run()
            try? log.close()
            let server = MotoServer(process: process, lifeline: lifeline.fileHandleForWriting, port: port, endpoint: endpoint, logFile: logFile)
            do {
                try await server.waitUntilListening()
                return server
            } catch {
                server.stop()
                lastError = error
            }
        }
        throw lastError ?? MotoServerError(description: "moto_server did not start")
    }

    /// Stops moto and waits for its supervisor to exit. Safe to call more than once.
    public func stop() {
        guard let running = self.running.withLock({ $0.take() }) else { return }
        try? running.lifeline.close()
        running.process.waitUntilExit()
        try? FileManager.default.removeItem(at: self.logFile)
    }

    deinit {
        self.stop()
    }

    /// The tail of moto's log, for failure messages.
    public var logTail: String {
        guard let data = FileManager.default.contents(atPath: self.logFile.path) else { return "" }
        return String(decoding: data.suffix(2000), as: UTF8.self)
    }

    private func waitUntilListening() async throws {
        // moto (Python) takes a second or two to import; poll the port for up to 30 seconds.
        for _ in 0..<300 {
            let running = self.running.withLock { $0?.process.isRunning ?? false }
            guard running else {
                throw MotoServerError(description: "moto_server exited during start-up: \(self.logTail)")
            }
            if Loopback.acceptsConnections(port: self.port) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw MotoServerError(description: "moto_server did not listen on port \(self.port) within 30 seconds: \(self.logTail)")
    }
}

/// Loopback sockets for tests: a free port, and whether something listens on one (a plain connect
/// answers at once, where an HTTP client would retry a refused connection until its deadline).
public enum Loopback {
    /// A TCP port on 127.0.0.1 that was free a moment ago: the kernel's pick for port 0.
    public static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Self.streamSocketType, 0)
        guard descriptor >= 0 else { throw MotoServerError(description: "socket() failed: errno \(errno)") }
        defer { close(descriptor) }
        var address = Self.loopbackAddress(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw MotoServerError(description: "bind() failed: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw MotoServerError(description: "getsockname() failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    public static func acceptsConnections(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Self.streamSocketType, 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = Self.loopbackAddress(port: UInt16(port))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return connected == 0
    }

    private static var streamSocketType: Int32 {
        #if canImport(Glibc)
        Int32(SOCK_STREAM.rawValue)
        #else
        SOCK_STREAM
        #endif
    }

    private static func loopbackAddress(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}

/// A failure to start or reach a peer, with a message.
public struct MotoServerError: Error, CustomStringConvertible {
    public var description: String

    public init(description: String) {
        self.description = description
    }
}
