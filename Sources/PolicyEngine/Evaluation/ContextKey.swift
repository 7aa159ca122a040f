/// A context key name, lowercased, with its hash computed once so that lookups during evaluation hash one
/// integer instead of the whole name.
struct ContextKey: Sendable, Hashable {
    let name: String
    let hashValueCache: Int

    /// - Parameter name: The key as written; it is lowercased (key names are case-insensitive).
    init(_ name: String) {
        let isLowercaseASCII = withUTF8Bytes(name) { bytes in
            !bytes.contains { $0 >= 0x80 || ($0 >= 0x41 && $0 <= 0x5A) }
        }
        if isLowercaseASCII {
            // Already in canonical form: keep the string as it is, without copying.
            self.name = name
        } else {
            let lowered = lowercasedASCIIString(name)
            self.name = lowered.utf8.contains(where: { $0 >= 0x80 }) ? lowered.lowercased() : lowered
        }
        let hash = withUTF8Bytes(self.name) { bytes in
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in bytes {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            }
            return hash
        }
        self.hashValueCache = Int(truncatingIfNeeded: hash)
    }

    /// Keys S3 adds to a `ListBucket` request's context, prepared once.
    static let s3Prefix = ContextKey("s3:prefix")
    static let s3Delimiter = ContextKey("s3:delimiter")
    static let s3MaxKeys = ContextKey("s3:max-keys")

    static func == (lhs: ContextKey, rhs: ContextKey) -> Bool {
        lhs.hashValueCache == rhs.hashValueCache && lhs.name == rhs.name
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(self.hashValueCache)
    }
}
