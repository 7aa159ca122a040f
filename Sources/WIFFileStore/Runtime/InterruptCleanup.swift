import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Removes the temporary files and folders of downloads in progress when the process is interrupted
/// (Control-C, `SIGTERM`, `SIGHUP`), then lets the signal end the process as it would have.
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
    }

    private let state = Mutex(State())

    /// The dispatch sources, kept alive for the life of the process once installed.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    init() {}

    /// A path to remove if the process is interrupted before ``unregister(_:)``.
    public struct Registration: Sendable, Hashable {
        fileprivate let id: UInt64
    }

    /// Registers a file or folder to remove on interruption.
    /// - Parameter path: The path.
    /// - Returns: Its registration, for ``unregister(_:)``.
    public func register(_ path: String) -> Registration {
        self.state.withLock { state in
            state.next += 1
            state.paths[state.next] = path
            return Registration(id: state.next)
        }
    }

    /// Forgets a path: it has been removed, or renamed into place.
    public func unregister(_ registration: Registration) {
        _ = self.state.withLock { $0.paths.removeValue(forKey: registration.id) }
    }

    /// The registered paths.
    var paths: [String] {
        self.state.withLock { Array($0.paths.values) }
    }

    /// Starts handling the signals; later calls do nothing. Call it once the command no longer changes
    /// signal handling itself (after a passphrase prompt, which restores the default on its own).
    public func install() {
        let first = self.state.withLock { state in
            defer { state.installed = true }
            return !state.installed
        }
        guard first else { return }
        for number in Self.signals {
            // A dispatch source sees a signal only when its default action is off.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { self.interrupted(by: number) }
            source.resume()
            Self.sources.append(source)
        }
    }

    /// Removes every registered path, then ends the process by the signal's default action.
    private func interrupted(by number: Int32) {
        for path in self.paths { try? FileManager.default.removeItem(atPath: path) }
        signal(number, SIG_DFL)
        kill(getpid(), number)
        // The default action of these signals ends the process; this is not reached.
        exit(128 + number)
    }
}
