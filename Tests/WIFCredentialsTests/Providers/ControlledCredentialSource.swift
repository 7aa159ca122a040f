import Foundation
import Logging
import Synchronization
import Testing
@testable import WIFCredentials
import WIFTestSupport

/// A credential source whose calls can be held at a gate, made to fail, and counted.
///
/// Call `n` returns `ASIASOURCE<n>` credentials living ``lifetime`` seconds from the clock's now.
final class ControlledCredentialSource: CredentialProvider {
    private struct State {
        var calls = 0
        var gateOpen = true
        var gateWaiters: [CheckedContinuation<Void, Never>] = []
        var callWatchers: [(Int, CheckedContinuation<Void, Never>)] = []
        var failures: [any Error] = []
        var invalidated: [String] = []
        var lifetime: TimeInterval = 3_600
    }

    private let clock: ManualTimeSource
    private let state = Mutex(State())

    init(clock: ManualTimeSource) {
        self.clock = clock
    }

    var calls: Int { self.state.withLock { $0.calls } }
    var invalidated: [String] { self.state.withLock { $0.invalidated } }

    /// Lifetime of the credentials returned from now on.
    var lifetime: TimeInterval {
        get { self.state.withLock { $0.lifetime } }
        set { self.state.withLock { $0.lifetime = newValue } }
    }

    /// Makes the next call throw `error` (after passing the gate).
    func failNext(with error: any Error) {
        self.state.withLock { $0.failures.append(error) }
    }

    /// Holds every call from now on until ``openGate()``.
    func closeGate() {
        self.state.withLock { $0.gateOpen = false }
    }

    /// Lets held and future calls through.
    func openGate() {
        let waiters = self.state.withLock { state in
            state.gateOpen = true
            defer { state.gateWaiters.removeAll() }
            return state.gateWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Suspends until the source has been called at least `times` times (held calls count).
    func waitUntilCalled(times: Int) async throws {
        await withCheckedContinuation { continuation in
            let ready = self.state.withLock { state -> Bool in
                if state.calls >= times { return true }
                state.callWatchers.append((times, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    func getCredentials(logger: Logger) async throws -> AWSCredentials {
        let watchers = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.calls += 1
            let due = state.callWatchers.filter { $0.0 <= state.calls }
            state.callWatchers.removeAll { $0.0 <= state.calls }
            return due.map(\.1)
        }
        for watcher in watchers { watcher.resume() }

        await withCheckedContinuation { continuation in
            let open = self.state.withLock { state -> Bool in
                if state.gateOpen { return true }
                state.gateWaiters.append(continuation)
                return false
            }
            if open { continuation.resume() }
        }

        let now = self.clock.now
        return try self.state.withLock { state in
            if !state.failures.isEmpty { throw state.failures.removeFirst() }
            return AWSCredentials(
                accessKeyId: "ASIASOURCE\(state.calls)",
                secretAccessKey: "source-secret-\(state.calls)",
                sessionToken: "source-token-value-\(state.calls)",
                expiration: now.addingTimeInterval(state.lifetime)
            )
        }
    }

    func invalidate(accessKeyId: String) async {
        self.state.withLock { $0.invalidated.append(accessKeyId) }
    }
}
