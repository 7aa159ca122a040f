import Foundation

/// A cache of at most `capacity` values that forgets the least recently used one first, and forgets a
/// value once its expiry has passed. A plain value: the caller supplies the time.
struct BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Slot: Sendable {
        var value: Value
        var expiry: Date?
        var lastUse: UInt64
    }

    /// The most values kept.
    let capacity: Int
    private var slots: [Key: Slot] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many values are kept.
    var count: Int { self.slots.count }

    /// The value for `key` when it has not expired at `now`, marking it as just used; an expired value
    /// is removed.
    mutating func value(for key: Key, now: Date) -> Value? {
        guard var slot = self.slots[key] else { return nil }
        if let expiry = slot.expiry, expiry <= now {
            self.slots[key] = nil
            return nil
        }
        slot.lastUse = self.tick()
        self.slots[key] = slot
        return slot.value
    }

    /// Stores a value, forgetting the least recently used one when the cache is full.
    /// - Parameters:
    ///   - value: The value.
    ///   - key: Its key.
    ///   - expiry: When it stops being returned; `nil` for never.
    mutating func insert(_ value: Value, for key: Key, expiry: Date?) {
        if self.slots[key] == nil, self.slots.count >= self.capacity,
            let oldest = self.slots.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
        {
            self.slots[oldest] = nil
        }
        self.slots[key] = Slot(value: value, expiry: expiry, lastUse: self.tick())
    }

    /// Forgets the value for `key`.
    @discardableResult
    mutating func remove(_ key: Key) -> Value? {
        self.slots.removeValue(forKey: key)?.value
    }

    private mutating func tick() -> UInt64 {
        self.clock &+= 1
        return self.clock
    }
}
