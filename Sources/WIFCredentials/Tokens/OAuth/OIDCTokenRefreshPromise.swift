import Synchronization

/// The outcome of one token refresh, awaited by every caller that needs it.
///
/// Each waiter can leave on cancellation (getting `CancellationError` at once) without touching the
/// refresh or the other waiters. Completing twice keeps the first outcome.
final class OIDCTokenRefreshPromise: Sendable {
    private typealias Waiter = CheckedContinuation<OAuth2Tokens, any Error>

    private enum State {
        case pending(waiters: [UInt64: Waiter], nextID: UInt64)
        case completed(Result<OAuth2Tokens, any Error>)
    }

    private enum Admission {
        case waiter(UInt64)
        case completed(Result<OAuth2Tokens, any Error>)
    }

    private let state = Mutex(State.pending(waiters: [:], nextID: 0))

    init() {}

    /// How many callers are waiting right now.
    var waiterCount: Int {
        self.state.withLock { state in
            if case .pending(let waiters, _) = state { return waiters.count }
            return 0
        }
    }

    /// Waits for the outcome.
    /// - Throws: The refresh's error, or `CancellationError` as soon as the calling task is cancelled.
    func value() async throws -> OAuth2Tokens {
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
                let ready = self.state.withLock { state -> Result<OAuth2Tokens, any Error>? in
                    switch state {
                    case .completed(let result):
                        return result
                    case .pending(var waiters, let nextID):
                        // Checked under the lock, so a cancellation is either seen here or finds the waiter.
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

    /// Delivers the outcome to every waiter and to anyone who asks later.
    func complete(with result: Result<OAuth2Tokens, any Error>) {
        let waiters = self.state.withLock { state -> [Waiter] in
            guard case .pending(let waiters, _) = state else { return [] }
            state = .completed(result)
            return Array(waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }
}
