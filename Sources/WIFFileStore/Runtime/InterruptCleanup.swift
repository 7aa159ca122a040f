import Dispatch
import Foundation
import Synchronization
import WIFFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Removes the temporary files and folders of downloads in progress when the process is interrupted
/// (Control-C, `SIGTERM`, `SIGHUP`), then lets the signal end the process as it would have; and, for
/// work run through ``cancellingOnInterrupt(_:)``, first cancels that work so that its own clean-up
/// runs (an upload aborts its multipart upload instead of leaving its parts on the server).
///
/// Without it an interrupted download left its hidden temporary file or folder beside the destination
/// whenever the tool's staging folder was on another file system; the destination itself was never
/// touched. Paths are registered while they exist and unregistered when they are removed or renamed
/// into place. Nothing is done on a signal until ``install()`` has been called.
public final class InterruptCleanup: Sendable {
    /// The process's registry.
    public static let shared = InterruptCleanup()

    /// The signals handled.
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    private struct State {
        var paths: [UInt64: String] = [:]
        var next: UInt64 = 0
        var installed = false
        /// The signal that arrived; from then on what is registered is removed at once.
        var signal: Int32?
        /// The work of ``InterruptCleanup/cancellingOnInterrupt(_:)`` while it runs: how to cancel it,
        /// and what it signals when it ends.
        var running: (cancel: @Sendable () -> Void, finished: DispatchSemaphore)?
    }

    /// How long cancelled work may take to clean up before the process ends anyway.
    static let cancellationGrace: DispatchTimeInterval = .seconds(5)

    private let state = Mutex(State())

    /// The reader of the signal pipe, kept alive for the life of the process once installed.
    nonisolated(unsafe) private static var reader: (any DispatchSourceRead)?
    /// The pipe the signal handler writes the signal's number to, both ends non-blocking: a constant,
    /// made by ``install()`` before any handler is installed, so the handler only loads it.
    private static let wakePipe: (read: Int32, write: Int32) = {
        var descriptors: [Int32] = [-1, -1]
        guard ChildProcess.makePipe(&descriptors) else { return (-1, -1) }
        for descriptor in descriptors { ChildProcess.setNonBlocking(descriptor) }
        return (descriptors[0], descriptors[1])
    }()

    init() {}

    /// A path to remove if the process is interrupted before ``unregister(_:)``.
    public struct Registration: Sendable, Hashable {
        fileprivate let id: UInt64
    }

    /// Registers a file or folder to remove on interruption.
    /// - Parameter path: The path.
    /// - Returns: Its registration, for ``unregister(_:)``.
    public func register(_ path: String) -> Registration {
        let (registration, interrupted) = self.state.withLock { state in
            state.next += 1
            if state.signal == nil { state.paths[state.next] = path }
            return (Registration(id: state.next), state.signal != nil)
        }
        // Made while the process is being interrupted: removed now, as the others were.
        if interrupted { try? FileManager.default.removeItem(atPath: path) }
        return registration
    }

    /// Forgets a path: it has been removed, or renamed into place.
    public func unregister(_ registration: Registration) {
        _ = self.state.withLock { $0.paths.removeValue(forKey: registration.id) }
    }

    /// Starts handling the signals; later calls do nothing. Call it once the command no longer changes
    /// signal handling itself (after a passphrase prompt, which restores the default on its own). A
    /// signal the process was started ignoring (`nohup`, a background job of a script) stays ignored.
    public func install() {
        let first = self.state.withLock { state in
            defer { state.installed = true }
            return !state.installed
        }
        guard first else { return }
        // The handler takes effect when it is installed and only writes the signal's number to a pipe,
        // whose reader does the work. (A dispatch signal source needs the default action turned off
        // first and starts watching later, on its own thread: a signal in between was lost, and the
        // command finished as if never interrupted.)
        let readEnd = Self.wakePipe.read
        guard readEnd >= 0 else { return }
        let reader = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: .global())
        reader.setEventHandler {
            var number: UInt8 = 0
            while read(readEnd, &number, 1) == 1 { self.interrupted(by: Int32(number)) }
        }
        reader.resume()
        Self.reader = reader
        for number in Self.signals {
            var current = sigaction()
            guard sigaction(number, nil, &current) == 0, !Self.isIgnored(current) else { continue }
            // Async-signal-safe: a write to a descriptor read from a constant, errno kept.
            signal(number) { received in
                let saved = errno
                var byte = UInt8(truncatingIfNeeded: received)
                _ = write(InterruptCleanup.wakePipe.write, &byte, 1)
                errno = saved
            }
        }
    }

    /// Runs `operation` in a task of its own that an interrupting signal cancels: its own cancellation
    /// paths run, then the process ends by the signal (after at most ``cancellationGrace``, ended as
    /// without this). Only `operation` is cancelled, not the task that calls this, which may also be
    /// running the embedded stack that an upload's abort is sent to. Installs the handling
    /// (``install()``).
    /// - Parameter operation: The command's work.
    /// - Returns: What `operation` returns, when no signal came.
    public func cancellingOnInterrupt<T: Sendable>(_ operation: sending @escaping () async throws -> T) async throws -> T {
        self.install()
        let finished = DispatchSemaphore(value: 0)
        let task = Task {
            defer { finished.signal() }
            return try await operation()
        }
        self.state.withLock { $0.running = (cancel: { task.cancel() }, finished: finished) }
        let result = await withTaskCancellationHandler {
            await task.result
        } onCancel: {
            task.cancel()
        }
        let signal = self.state.withLock { state in
            state.running = nil
            return state.signal
        }
        // Interrupted: the work has cleaned up after itself; end as the signal would have.
        if let signal { self.end(by: signal) }
        return try result.get()
    }

    /// Cancels the running work, if any, and gives it time to clean up; then removes every registered
    /// path and ends the process by the signal's default action.
    private func interrupted(by number: Int32) {
        let finished: DispatchSemaphore? = self.state.withLock { state in
            guard state.signal == nil else { return nil }
            state.signal = number
            state.running?.cancel()
            return state.running?.finished
        }
        if let finished { _ = finished.wait(timeout: .now() + Self.cancellationGrace) }
        self.end(by: number)
    }

    /// Removes every registered path, then ends the process by the signal's default action.
    private func end(by number: Int32) -> Never {
        let paths = self.state.withLock { Array($0.paths.values) }
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
        // Delivered to this thread, which may be one of those that block the signal.
        signal(number, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, number)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(number)
        exit(128 + number)
    }

    /// Whether an action is `SIG_IGN`.
    private static func isIgnored(_ action: sigaction) -> Bool {
        #if canImport(Darwin)
        let handler = action.__sigaction_u.__sa_handler
        #else
        let handler = action.__sigaction_handler.sa_handler
        #endif
        // `SIG_DFL` is the null handler; C function pointers compare by address.
        guard let handler else { return false }
        return unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}
