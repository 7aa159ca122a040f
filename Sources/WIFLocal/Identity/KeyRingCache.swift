import Foundation
import Synchronization
import WIFCredentials

/// The key rings of the issuers a verifier trusts, each loaded once on first use and then shared.
///
/// Concurrent first uses wait for one load. A failed load is remembered for ``retryInterval`` so that a
/// stream of tokens from an unreachable issuer does not become a stream of fetches, then tried again: a
/// failure is never permanent.
///
/// A token naming a key the ring lacks may mean the issuer rotated its keys, so the ring can be loaded
/// again (``reloadForUnknownKey(for:now:load:)``), as STS does; at most once per
/// ``minimumReloadInterval`` per issuer, so tokens with made-up key ids cannot make the stack hammer it.
final class KeyRingCache: Sendable {
    /// Where an issuer's keys come from.
    enum Source: Hashable, Sendable {
        /// The development issuer's own key.
        case stack
        /// The JWKS of the external issuer at this index of the configuration.
        case external(Int)
    }

    /// How long a failed load is reported without trying again.
    static let retryInterval: TimeInterval = 10

    /// How long after a load (or an attempt at one) a token with an unknown key id may cause another.
    static let minimumReloadInterval: TimeInterval = 60

    private enum Slot {
        case loading(Task<JWKSKeyRing, any Error>)
        case ready(JWKSKeyRing, loadedAt: Date)
        /// A ring in use while a newer one is loaded for an unknown key id.
        case reloading(JWKSKeyRing, Task<JWKSKeyRing, any Error>)
        case failed(LocalStackError, until: Date)
    }

    private let slots = Mutex<[Source: Slot]>([:])

    init() {}

    /// The ring of a source, loading it with `load` when it is not loaded yet.
    /// - Parameters:
    ///   - source: The source.
    ///   - now: The current time, for remembering failures.
    ///   - load: Loads the ring.
    /// - Throws: ``LocalStackError`` when the load failed, now or less than ``retryInterval`` ago.
    func ring(
        for source: Source, now: Date, load: @escaping @Sendable () async throws(LocalStackError) -> JWKSKeyRing
    ) async throws(LocalStackError) -> JWKSKeyRing {
        enum Found {
            case ring(JWKSKeyRing)
            case wait(Task<JWKSKeyRing, any Error>)
            case failure(LocalStackError)
        }
        let found: Found = self.slots.withLock { slots in
            switch slots[source] {
            case .ready(let ring, _), .reloading(let ring, _): return .ring(ring)
            case .loading(let task): return .wait(task)
            case .failed(let error, let until) where now < until: return .failure(error)
            case .failed, .none:
                let task = Task<JWKSKeyRing, any Error> { try await load() }
                slots[source] = .loading(task)
                return .wait(task)
            }
        }
        switch found {
        case .ring(let ring):
            return ring
        case .failure(let error):
            throw error
        case .wait(let task):
            do {
                let ring = try await task.value
                self.slots.withLock { slots in
                    if case .loading(let current) = slots[source], current == task { slots[source] = .ready(ring, loadedAt: now) }
                }
                return ring
            } catch {
                let failure = error as? LocalStackError ?? LocalStackError("\(error)")
                self.slots.withLock { slots in
                    if case .loading(let current) = slots[source], current == task {
                        slots[source] = .failed(failure, until: now.addingTimeInterval(Self.retryInterval))
                    }
                }
                throw failure
            }
        }
    }

    /// Loads a source's ring again because a token named a key the ring lacks, unless it was loaded
    /// less than ``minimumReloadInterval`` ago. Concurrent callers share one load.
    /// - Parameters:
    ///   - source: The source.
    ///   - now: The current time.
    ///   - load: Loads the ring.
    /// - Returns: The ring to check the token against again, or `nil` when no newer ring was loaded.
    /// - Throws: ``LocalStackError`` when the load failed; the current ring stays in use, and the next
    ///   attempt waits ``minimumReloadInterval`` like any other.
    func reloadForUnknownKey(
        for source: Source, now: Date, load: @escaping @Sendable () async throws(LocalStackError) -> JWKSKeyRing
    ) async throws(LocalStackError) -> JWKSKeyRing? {
        let task: Task<JWKSKeyRing, any Error>? = self.slots.withLock { slots in
            switch slots[source] {
            case .reloading(_, let task):
                return task
            case .ready(let ring, let loadedAt) where now.timeIntervalSince(loadedAt) >= Self.minimumReloadInterval:
                let task = Task<JWKSKeyRing, any Error> { try await load() }
                slots[source] = .reloading(ring, task)
                return task
            case .ready, .loading, .failed, .none:
                return nil
            }
        }
        guard let task else { return nil }
        do {
            let ring = try await task.value
            self.slots.withLock { slots in
                if case .reloading(_, let running) = slots[source], running == task { slots[source] = .ready(ring, loadedAt: now) }
            }
            return ring
        } catch {
            self.slots.withLock { slots in
                if case .reloading(let kept, let running) = slots[source], running == task { slots[source] = .ready(kept, loadedAt: now) }
            }
            throw error as? LocalStackError ?? LocalStackError("\(error)")
        }
    }
}
