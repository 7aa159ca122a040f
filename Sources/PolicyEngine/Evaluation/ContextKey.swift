/// A context key name, lowercased, with its hash computed once so that lookups during evaluation hash one
/// integer instead of the whole name.
struct ContextKey: Sendable, Hashable {
    let name: String
    let hashValueCache: Int

    /// - Parameter name: The key as written; it is lowercased (key names are case-insensitive).
    init(_ name: String) {
        var isLowercaseASCII = true
        for byte in name.utf8 where byte >= 0x80 || (byte >= 0x41 && byte <= 0x5A) {
            isLowercaseASCII = false
            break
        }
        if isLowercaseASCII {
            // Already in canonical form: keep the string as it is, without copying.
            self.name = name
        } else {
            let lowered = lowercasedASCIIString(name)
            self.name = lowered.utf8.contains(where: { $0 >= 0x80 }) ? lowered.lowercased() : lowered
        }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in self.name.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        self.hashValueCache = Int(truncatingIfNeeded: hash)
    }

    static func == (lhs: ContextKey, rhs: ContextKey) -> Bool {
        lhs.hashValueCache == rhs.hashValueCache && lhs.name == rhs.name
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(self.hashValueCache)
    }
}
