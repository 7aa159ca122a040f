import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A program started with only the descriptors it is given: its standard input and output, and this
/// process's standard error. Foundation's `Process` hands a child every descriptor the parent has open
/// that is not close-on-exec, accepted connections among them, so a child (or anything it leaves
/// running) kept a server's connections open after the server closed them. The child leads a process
/// group of its own, so that what it starts can be ended with it, and starts with no signal blocked
/// and the default actions for the ones this package handles.
package enum ChildProcess {
    package struct Failure: Error {
        package var message: String
    }

    /// How a child ended.
    package enum Ending: Equatable, Sendable {
        case exited(Int32)
        case signaled(Int32)
    }

    /// A program's path: as given when it names a folder, else the first executable match on `PATH`.
    /// - Parameters:
    ///   - program: A path, or a name to look up.
    ///   - path: The `PATH` to search.
    /// - Returns: The path, or `nil` when there is no such program.
    package static func executable(_ program: String, path: String = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") -> String? {
        if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) ? program : nil }
        return path.split(separator: ":").map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts `executable` with `arguments` (the first is the program's name as given), this process's
    /// environment, and the descriptors given as its standard input, output and (when given) error.
    package static func spawn(
        _ executable: String, arguments: [String], standardInput: Int32, standardOutput: Int32, standardError: Int32? = nil
    ) -> Result<pid_t, Failure> {
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        var attributes: posix_spawnattr_t? = nil
        // Every descriptor but the three given is closed in the child.
        let closing = Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        let closing: Int32 = 0
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        if let standardError { posix_spawn_file_actions_adddup2(&actions, standardError, 2) }
        #if !canImport(Darwin)
        Self.closeAllFrom(3, in: &actions)
        #endif

        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGPIPE, SIGINT, SIGTERM, SIGHUP] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(Int32(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) | closing))

        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid = pid_t()
        #if canImport(Darwin)
        let environment = _NSGetEnviron().pointee
        #else
        let environment = environ
        #endif
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, environment)
        guard result == 0 else { return .failure(Failure(message: String(cString: strerror(result)))) }
        return .success(pid)
    }

    /// How a run of ``run(_:arguments:input:outputLimit:timeout:)`` went.
    package enum Run: Sendable {
        /// The program ended; `output` is all it wrote.
        case finished(output: [UInt8], ending: Ending)
        /// The program (and what it started) was killed at the time limit.
        case timedOut
        /// The program (and what it started) was killed for writing more than the limit.
        case outputTooLarge
        /// The input did not fit in the pipe, or the program could not be started.
        case failed(String)
    }

    /// Runs a program with `input` on its standard input, reads its standard output to its end, and
    /// waits for it, blocking the calling thread. The whole input goes into the pipe before the program
    /// starts, without blocking, so a program that exits without reading cannot break the write and an
    /// input larger than a pipe is a clear failure. A program past `timeout` or `outputLimit` is killed
    /// with its process group, and so is one that closed its output but runs on past `timeout`; when it
    /// ends, whatever it started in its group is killed too, so nothing it started holds the pipe or
    /// runs on.
    /// - Parameters:
    ///   - executable: The program's path.
    ///   - arguments: Its arguments, the first being its name as given.
    ///   - input: Its standard input.
    ///   - outputLimit: The most bytes of output taken.
    ///   - timeout: How long it may take.
    /// - Returns: How the run went.
    package static func run(_ executable: String, arguments: [String], input: [UInt8], outputLimit: Int, timeout: Duration) -> Run {
        var inputPipe: [Int32] = [-1, -1]
        var outputPipe: [Int32] = [-1, -1]
        guard Self.makePipe(&inputPipe) else { return .failed("no pipe: \(String(cString: strerror(errno)))") }
        defer { for descriptor in inputPipe where descriptor >= 0 { close(descriptor) } }
        guard Self.makePipe(&outputPipe) else { return .failed("no pipe: \(String(cString: strerror(errno)))") }
        defer { for descriptor in outputPipe where descriptor >= 0 { close(descriptor) } }
        #if os(Linux)
        _ = fcntl(inputPipe[1], 1031 /* F_SETPIPE_SZ */, Int32(clamping: max(input.count, 4096)))
        #endif
        Self.setNonBlocking(inputPipe[1])
        let written = input.withUnsafeBytes { write(inputPipe[1], $0.baseAddress, $0.count) }
        close(inputPipe[1])
        inputPipe[1] = -1
        guard written == input.count else { return .failed("the input (\(input.count) bytes) does not fit in a pipe") }
        let pid: pid_t
        switch Self.spawn(executable, arguments: arguments, standardInput: inputPipe[0], standardOutput: outputPipe[1]) {
        case .success(let started): pid = started
        case .failure(let failure): return .failed("it could not be started: \(failure.message)")
        }
        close(outputPipe[1])
        outputPipe[1] = -1
        let deadline = ContinuousClock.now + timeout
        let read = Self.readAll(outputPipe[0], limit: outputLimit, until: deadline)
        let tooLarge = read.bytes.count > outputLimit
        // The output ended, but the program may run on without it: it is given what is left of its time.
        let timedOut = read.timedOut || (!tooLarge && !Self.waitForEnd(of: pid, until: deadline))
        // The group is killed before the program is reaped: until then its number is not given to
        // another process, so the signal reaches only what the program started.
        kill(-pid, SIGKILL)
        let ending = Self.wait(pid)
        if timedOut { return .timedOut }
        if tooLarge { return .outputTooLarge }
        return .finished(output: read.bytes, ending: ending)
    }

    /// Reads a descriptor to its end, to one byte past `limit` or to `deadline`, whichever comes first.
    private static func readAll(_ descriptor: Int32, limit: Int, until deadline: ContinuousClock.Instant) -> (bytes: [UInt8], timedOut: Bool) {
        Self.setNonBlocking(descriptor)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= limit {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return (bytes, true) }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            let polled = poll(&ready, 1, milliseconds)
            if polled < 0 {
                if errno == EINTR { continue }
                return (bytes, false)
            }
            if polled == 0 { continue }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes.append(contentsOf: chunk[0..<count])
            } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                return (bytes, false)
            }
        }
        return (bytes, false)
    }

    /// Makes reads and writes of a descriptor return at once instead of waiting. The flag belongs to the
    /// open file, so it is set only on the ends this process keeps, never on a child's.
    package static func setNonBlocking(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    /// Makes a pipe whose ends are closed on exec, so that no other program started meanwhile keeps one
    /// (made so at once where the system can, else just after).
    package static func makePipe(_ descriptors: inout [Int32]) -> Bool {
        #if !canImport(Darwin)
        if let pipe2 = Self.pipe2 { return pipe2(&descriptors, O_CLOEXEC) == 0 }
        #endif
        guard pipe(&descriptors) == 0 else { return false }
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        return true
    }

    /// Waits until a child has ended or `deadline` has passed, without reaping it.
    /// - Returns: Whether it ended.
    static func waitForEnd(of pid: pid_t, until deadline: ContinuousClock.Instant) -> Bool {
        var pause = Duration.milliseconds(1)
        while true {
            var info = siginfo_t()
            let result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
            if result == 0, info.si_signo == SIGCHLD { return true }
            // Not a child of this process (or already reaped): there is nothing to wait for.
            if result < 0, errno != EINTR { return true }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return false }
            let nap = min(pause, left)
            let (seconds, attoseconds) = nap.components
            var time = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            _ = nanosleep(&time, nil)
            pause = min(pause * 2, .milliseconds(20))
        }
    }

    /// Waits for a child to end and reaps it.
    package static func wait(_ pid: pid_t) -> Ending {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return .exited(-1) }
        }
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
    }

    #if !canImport(Darwin)
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), looked up once.
    private static let closeFrom = Self.libraryFunction("posix_spawn_file_actions_addclosefrom_np", as: CloseFrom.self)

    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32

    /// `pipe2`, which makes both ends close-on-exec at once, looked up once.
    private static let pipe2 = Self.libraryFunction("pipe2", as: Pipe2.self)

    /// A function of the C library that Swift's view of its headers leaves out, found by name.
    private static func libraryFunction<Function>(_ name: String, as type: Function.Type) -> Function? {
        guard let program = dlopen(nil, RTLD_NOW) else { return nil }
        defer { dlclose(program) }
        guard let symbol = dlsym(program, name) else { return nil }
        return unsafeBitCast(symbol, to: Function.self)
    }

    /// Closes every descriptor from `first` up in the child: with glibc's `closefrom` action where the
    /// C library has it, else one close action for each descriptor open now.
    private static func closeAllFrom(_ first: Int32, in actions: inout posix_spawn_file_actions_t) {
        if let closeFrom = Self.closeFrom, closeFrom(&actions, first) == 0 { return }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? (try? FileManager.default.contentsOfDirectory(atPath: "/dev/fd")) ?? []
        for descriptor in open.compactMap(Int32.init) where descriptor >= first {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }
    #endif
}
