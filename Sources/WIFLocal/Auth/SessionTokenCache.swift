import WIFFoundation

/// Session tokens opened recently, so that a client signing many requests with one session does not pay
/// for decrypting and decoding its token on each of them.
///
/// A token is authenticated encryption of its whole session, so the token alone decides the session and
/// caching by token is exact. Only tokens that opened are kept. Bounded: when full, the entry kept longest
/// is replaced. Expiry is not cached; callers compare ``LocalSession/expiresAt`` with their clock.
final class SessionTokenCache: Sendable {
    /// The most sessions kept.
    var capacity: Int { self.sessions.capacity }
    private let codec: SessionCodec
    private let sessions: BoundedCache<ExactText, LocalSession>

    /// Creates an empty cache.
    /// - Parameters:
    ///   - codec: Opens tokens that are not cached.
    ///   - capacity: The most sessions kept (at least 1).
    init(codec: SessionCodec, capacity: Int = 4096) {
        self.codec = codec
        self.sessions = BoundedCache(capacity: capacity)
    }

    /// The session sealed in a token.
    /// - Parameter token: A session token as received.
    /// - Returns: The session, or `nil` when the token is not one of this stack's.
    func session(for token: String) -> LocalSession? {
        self.sessions.value(for: ExactText(token: token[...])) { self.codec.open(token) }
    }

    /// How many sessions are cached.
    var count: Int { self.sessions.count }
}
