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
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        if let standardError { posix_spawn_file_actions_adddup2(&actions, standardError, 2) }
        Self.closeAllFrom(3, in: &actions)

        var attributes = posix_spawnattr_t()
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
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard result == 0 else { return .failure(Failure(message: String(cString: strerror(result)))) }
        return .success(pid)
    }

    /// Makes a pipe whose ends are closed on exec, so that no other program started meanwhile keeps one.
    package static func makePipe(_ descriptors: inout [Int32]) -> Bool {
        guard pipe(&descriptors) == 0 else { return false }
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        return true
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

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), looked up once: the C
    /// library's headers as Swift imports them do not declare it.
    private static let closeFrom: CloseFrom? = {
        guard let program = dlopen(nil, RTLD_NOW) else { return nil }
        defer { dlclose(program) }
        guard let symbol = dlsym(program, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: CloseFrom.self)
    }()

    /// Closes every descriptor from `first` up in the child: with glibc's `closefrom` action where the
    /// C library has it, else one close action for each descriptor open now.
    private static func closeAllFrom(_ first: Int32, in actions: inout posix_spawn_file_actions_t) {
        if let closeFrom = Self.closeFrom, closeFrom(&actions, first) == 0 { return }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? (try? FileManager.default.contentsOfDirectory(atPath: "/dev/fd")) ?? []
        for descriptor in open.compactMap(Int32.init) where descriptor >= first {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }
}
