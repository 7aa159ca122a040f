import Foundation
import Synchronization
import WIFCredentials

/// The key rings of the issuers a verifier trusts, each loaded once on first use and then shared.
///
/// Concurrent first uses wait for one load. A failed load is remembered for ``retryInterval`` so that a
/// stream of tokens from an unreachable issuer does not become a stream of fetches, then tried again: a
/// failure is never permanent.
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

    private enum Slot {
        case loading(Task<JWKSKeyRing, any Error>)
        case ready(JWKSKeyRing)
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
            case .ready(let ring): return .ring(ring)
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
                self.slots.withLock { $0[source] = .ready(ring) }
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
}
