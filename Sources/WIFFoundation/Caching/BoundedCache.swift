import Synchronization

/// A thread-safe map that keeps at most ``capacity`` entries: what a server remembers of work it
/// need not repeat (an opened session token, a verified ID token) without growing with its callers.
///
/// When full, storing a new key replaces the entry stored longest ago, so a burst of new keys cannot
/// evict everything at once and a steady set of keys stays cached. Values are what the caller makes
/// of them: anything that can lapse (an expiry, a clock) is checked by the caller on each use.
package final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var values: [Key: Value] = [:]
        /// Keys in the order they were stored, used as a ring once full.
        var order: [Key] = []
        var next = 0
    }

    /// The most entries kept.
    package let capacity: Int
    private let state = Mutex(State())

    /// Creates an empty cache.
    /// - Parameter capacity: The most entries kept (at least 1).
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The value stored for a key, if it is still kept.
    package subscript(key: Key) -> Value? {
        self.state.withLock { $0.values[key] }
    }

    /// Stores a value, replacing the one stored for the same key; when the cache is full and the key
    /// is new, the entry stored longest ago goes.
    package func store(_ value: Value, for key: Key) {
        self.state.withLock { state in
            if state.values.updateValue(value, forKey: key) != nil { return }
            if state.order.count < self.capacity {
                state.order.append(key)
            } else {
                state.values[state.order[state.next]] = nil
                state.order[state.next] = key
                state.next = (state.next + 1) % self.capacity
            }
        }
    }

    /// The value for a key, made and stored by `make` when the key is not kept; a `nil` from `make`
    /// stores nothing.
    package func value(for key: Key, orMake make: () throws -> Value?) rethrows -> Value? {
        if let cached = self[key] { return cached }
        guard let made = try make() else { return nil }
        self.store(made, for: key)
        return made
    }

    /// How many entries are kept.
    package var count: Int { self.state.withLock { $0.values.count } }
}
