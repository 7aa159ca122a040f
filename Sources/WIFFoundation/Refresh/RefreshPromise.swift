import Synchronization

/// The result of one refresh (of credentials, of an ID token, of anything that expires), awaited by
/// every caller that needs it.
///
/// Awaiting a `Task`'s value cannot be abandoned early, so waiters park here instead: each can leave
/// on cancellation (getting `CancellationError` at once) without touching the refresh itself or the
/// other waiters. Completing twice keeps the first result.
package final class RefreshPromise<Value: Sendable>: Sendable {
    private typealias Waiter = CheckedContinuation<Value, any Error>

    private enum State {
        case pending(waiters: [UInt64: Waiter], nextID: UInt64)
        case completed(Result<Value, any Error>)
    }

    private enum Admission {
        case waiter(UInt64)
        case completed(Result<Value, any Error>)
    }

    private let state = Mutex(State.pending(waiters: [:], nextID: 0))

    package init() {}

    /// How many callers are waiting right now.
    package var waiterCount: Int {
        self.state.withLock { state in
            if case .pending(let waiters, _) = state { return waiters.count }
            return 0
        }
    }

    /// Whether the result has been delivered.
    package var isCompleted: Bool {
        self.state.withLock { state in
            if case .completed = state { return true }
            return false
        }
    }

    /// Waits for the result.
    /// - Returns: The refreshed value.
    /// - Throws: The refresh's error, or `CancellationError` as soon as the calling task is cancelled.
    package func value() async throws -> Value {
        let admission = self.state.withLock { state -> Admission in
            switch state {
            case .completed(let result):
                return .completed(result)
            case .pending(let waiters, let nextID):
                state = .pending(waiters: waiters, nextID: nextID + 1)
                return .waiter(nextID)
            }
        }
        let id: UInt64
        switch admission {
        case .waiter(let waiterID):
            id = waiterID
        case .completed(let result):
            try Task.checkCancellation()
            return try result.get()
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Waiter) in
                let ready = self.state.withLock { state -> Result<Value, any Error>? in
                    switch state {
                    case .completed(let result):
                        return result
                    case .pending(var waiters, let nextID):
                        // Checked under the lock: a cancellation either happened before this point and
                        // is seen here, or its handler runs after the waiter is registered and finds it.
                        if Task.isCancelled { return .failure(CancellationError()) }
                        waiters[id] = continuation
                        state = .pending(waiters: waiters, nextID: nextID)
                        return nil
                    }
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = self.state.withLock { state -> Waiter? in
                guard case .pending(var waiters, let nextID) = state else { return nil }
                let waiter = waiters.removeValue(forKey: id)
                state = .pending(waiters: waiters, nextID: nextID)
                return waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Delivers the result to every waiter and to anyone who asks later.
    package func complete(with result: Result<Value, any Error>) {
        let waiters = self.state.withLock { state -> [Waiter] in
            guard case .pending(let waiters, _) = state else { return [] }
            state = .completed(result)
            return Array(waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }
}
