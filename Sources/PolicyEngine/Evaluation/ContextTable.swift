/// A read-only hash table from ``ContextKey`` to ``ContextValue`` that probes with the key's precomputed
/// hash, so a lookup during evaluation costs one multiply-free index and a short comparison.
struct ContextTable: Sendable {
    private var keys: [ContextKey] = []
    private var values: [ContextValue] = []
    /// Indices into `keys`/`values`, or -1 for an empty slot; the count is a power of two.
    private var slots: [Int32] = [-1]

    init() {}

    init(_ entries: [ContextKey: ContextValue]) {
        var capacity = 2
        while capacity < entries.count * 2 { capacity *= 2 }
        var slots = [Int32](repeating: -1, count: capacity)
        let mask = capacity - 1
        for (key, value) in entries {
            var slot = key.hashValueCache & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(self.keys.count)
            self.keys.append(key)
            self.values.append(value)
        }
        self.slots = slots
    }

    @inline(__always)
    func value(for key: ContextKey) -> ContextValue? {
        let mask = self.slots.count - 1
        var slot = key.hashValueCache & mask
        while true {
            let index = Int(self.slots[slot])
            if index < 0 { return nil }
            let candidate = self.keys[index]
            if candidate.hashValueCache == key.hashValueCache, candidate.name == key.name { return self.values[index] }
            slot = (slot + 1) & mask
        }
    }
}
