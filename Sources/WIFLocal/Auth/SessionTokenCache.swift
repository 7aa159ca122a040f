import Synchronization

/// Session tokens opened recently, so that a client signing many requests with one session does not pay
/// for decrypting and decoding its token on each of them.
///
/// A token is authenticated encryption of its whole session, so the token alone decides the session and
/// caching by token is exact. Only tokens that opened are kept. Bounded: when full, the entry kept longest
/// is replaced. Expiry is not cached; callers compare ``LocalSession/expiresAt`` with their clock.
final class SessionTokenCache: Sendable {
    private struct State {
        var sessions: [String: LocalSession] = [:]
        /// Tokens in insertion order, used as a ring once full.
        var order: [String] = []
        var next = 0
    }

    /// The most sessions kept.
    let capacity: Int
    private let codec: SessionCodec
    private let state = Mutex(State())

    /// Creates an empty cache.
    /// - Parameters:
    ///   - codec: Opens tokens that are not cached.
    ///   - capacity: The most sessions kept (at least 1).
    init(codec: SessionCodec, capacity: Int = 4096) {
        self.codec = codec
        self.capacity = max(1, capacity)
    }

    /// The session sealed in a token.
    /// - Parameter token: A session token as received.
    /// - Returns: The session, or `nil` when the token is not one of this stack's.
    func session(for token: String) -> LocalSession? {
        if let cached = self.state.withLock({ $0.sessions[token] }) { return cached }
        guard let session = self.codec.open(token) else { return nil }
        self.state.withLock { state in
            guard state.sessions[token] == nil else { return }
            if state.order.count < self.capacity {
                state.order.append(token)
            } else {
                state.sessions[state.order[state.next]] = nil
                state.order[state.next] = token
                state.next = (state.next + 1) % self.capacity
            }
            state.sessions[token] = session
        }
        return session
    }

    /// How many sessions are cached.
    var count: Int { self.state.withLock { $0.sessions.count } }
}
