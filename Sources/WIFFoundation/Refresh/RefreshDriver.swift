/// The refresh in flight of an actor that keeps a value fresh (credentials, an ID token): its
/// promise, which callers wait on, and the unstructured task that produces the value.
///
/// The task is unstructured on purpose: a refresh outlives any one caller, and a caller's
/// cancellation must not reach it. ``cancel()`` is the one way to stop it, for an owner that shuts
/// down; the refresh then fails with `CancellationError` through its ordinary completion, so the
/// owner's state and every waiter see the same outcome.
///
/// Owned by an actor and used only from it.
package struct RefreshDriver<Value: Sendable>: Sendable {
    /// Whether a refresh is running.
    package enum State: Sendable {
        /// Nothing is being refreshed.
        case idle
        /// A refresh is running; its waiters park on the promise.
        case refreshing(RefreshPromise<Value>, Task<Void, Never>)
    }

    /// The current state.
    package private(set) var state: State = .idle

    package init() {}

    /// The promise of the refresh in flight.
    package var promise: RefreshPromise<Value>? {
        if case .refreshing(let promise, _) = self.state { return promise }
        return nil
    }

    /// Whether a refresh is running.
    package var isRefreshing: Bool { self.promise != nil }

    /// Records a refresh whose result `promise` will carry.
    /// - Parameters:
    ///   - promise: The promise callers wait on; the task completes it through
    ///     ``complete(_:with:)``.
    ///   - task: The refresh, an unstructured task the owner creates, so that it runs on the
    ///     owner's actor like the owner's other work.
    package mutating func start(_ promise: RefreshPromise<Value>, running task: Task<Void, Never>) {
        self.state = .refreshing(promise, task)
    }

    /// Ends the refresh of `promise` and delivers its result to every waiter.
    package mutating func complete(_ promise: RefreshPromise<Value>, with result: Result<Value, any Error>) {
        if case .refreshing(let current, _) = self.state, current === promise {
            self.state = .idle
        }
        promise.complete(with: result)
    }

    /// Waits until the refresh in flight, if any, has finished.
    package func wait() async {
        if case .refreshing(_, let task) = self.state {
            await task.value
        }
    }

    /// Cancels the refresh in flight, if any; it ends through its ordinary completion, with the
    /// `CancellationError` its operation sees.
    package func cancel() {
        if case .refreshing(_, let task) = self.state {
            task.cancel()
        }
    }
}
