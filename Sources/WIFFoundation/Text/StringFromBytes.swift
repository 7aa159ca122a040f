extension String {
    /// The text of the UTF-8 bytes that `write` appends to an empty buffer with room for `capacity` bytes;
    /// for builders that write bytes and hand out a `String` once.
    package init(utf8Capacity capacity: Int, _ write: (inout [UInt8]) -> Void) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(capacity)
        write(&bytes)
        self = String(decoding: bytes, as: UTF8.self)
    }
}
