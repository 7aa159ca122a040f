import Crypto
import Foundation
import Logging

/// The users federated so far, by token: a request with a token seen before reuses its session (and
/// its cached, self-renewing credentials) instead of calling STS.
///
/// Requests arriving together with the same new token share one federation. A failed federation is
/// not remembered, so the next request tries again. Sessions are forgotten when the token's `exp`
/// passes, after the configured maximum age, or when the least recently used of a full cache.
actor UserSessions {
    private enum Entry: Sendable {
        case federating(id: UInt64, Task<UserSession, any Error>)
        case ready(UserSession)
    }

    private let federation: Federation
    /// Keyed by a digest of the provider id and token, so the cache's keys are not tokens.
    private var entries: BoundedCache<SHA256Digest, Entry>
    private var lastId: UInt64 = 0

    init(federation: Federation, capacity: Int) {
        self.federation = federation
        self.entries = BoundedCache(capacity: capacity)
    }

    /// How many tokens are remembered, federated or being federated.
    var count: Int { self.entries.count }

    /// The session of a credential, federating it first when it is new or its session has expired.
    /// - Throws: ``FileServerError`` from ``Federation/federate(_:logger:)``.
    func session(for credential: BearerCredential, logger: Logger) async throws -> UserSession {
        let key = SHA256.hash(data: Array("\(credential.providerId ?? "")\n\(credential.token)".utf8))
        switch self.entries.value(for: key, now: self.federation.timeSource.now()) {
        case .ready(let session):
            return session
        case .federating(_, let task):
            return try await task.value
        case nil:
            break
        }

        self.lastId += 1
        let id = self.lastId
        let federation = self.federation
        // An unstructured task: a caller that goes away does not cancel the federation others wait for.
        let task = Task { try await federation.federate(credential, logger: logger) }
        self.entries.insert(.federating(id: id, task), for: key, expiry: nil)
        let outcome = await task.result
        // The entry may have been evicted meanwhile; only this federation's own entry is replaced.
        if case .federating(let current, _) = self.entries.value(for: key, now: federation.timeSource.now()), current == id {
            switch outcome {
            case .success(let session): self.entries.insert(.ready(session), for: key, expiry: session.expiry)
            case .failure: self.entries.remove(key)
            }
        }
        return try outcome.get()
    }
}
