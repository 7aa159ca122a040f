import Crypto
import Foundation
import WIFFoundation

/// An object key as S3 sees it: a sequence of 1 to 1024 UTF-8 bytes, ordered and compared byte by byte.
///
/// Swift's `String` equality follows Unicode canonical equivalence, so `"é"` and `"e\u{301}"` compare equal;
/// S3 keeps them apart. The store therefore compares and hashes keys by their bytes. On disk a key never
/// becomes a path: an object lives at `<bucket>/<2 hex digits>/<SHA-256 of the key in hex>`, so `..`, `/`,
/// `\` or a leading slash in a key mean nothing to the file system, and `a/b` and `a/b/c` coexist.
struct ObjectKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The longest key S3 accepts, in UTF-8 bytes.
    static let maximumByteCount = 1024

    /// The key's UTF-8 bytes.
    let bytes: [UInt8]

    /// Checks a key and keeps its bytes.
    /// - Throws: `KeyTooLongError` over 1024 bytes; `InvalidArgument` when empty or containing NUL.
    init(_ key: String) throws(AWSErrorResponse) {
        let bytes = Array(key.utf8)
        try self.init(bytes: bytes)
    }

    /// Checks a key given as raw bytes.
    /// - Throws: `KeyTooLongError` over 1024 bytes; `InvalidArgument` when empty, containing NUL or not UTF-8.
    init(bytes: [UInt8]) throws(AWSErrorResponse) {
        guard !bytes.isEmpty else {
            throw ObjectStoreError.invalidArgument("The object key must not be empty.", name: "key", value: "")
        }
        guard bytes.count <= Self.maximumByteCount else {
            throw ObjectStoreError.keyTooLong(byteCount: bytes.count)
        }
        guard !bytes.contains(0) else {
            throw ObjectStoreError.invalidArgument("The object key must not contain a NUL character.", name: "key")
        }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw ObjectStoreError.invalidArgument("The object key is not valid UTF-8.", name: "key")
        }
        self.bytes = bytes
    }

    /// Bytes already checked (read back from the store).
    init(unchecked bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The key as text.
    var string: String { String(decoding: self.bytes, as: UTF8.self) }

    var description: String { self.string }

    static func < (lhs: ObjectKey, rhs: ObjectKey) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    /// Whether the key starts with the given bytes.
    func hasPrefix(_ prefix: [UInt8]) -> Bool {
        guard prefix.count <= self.bytes.count else { return false }
        return self.bytes.starts(with: prefix)
    }

    /// The file name the object is stored under: the hexadecimal SHA-256 of the key, and its first two digits
    /// as the fan-out folder.
    var storageName: (folder: String, file: String) {
        let hex = SHA256.hash(data: self.bytes).hexString
        return (String(hex.prefix(2)), hex)
    }
}

extension Sequence where Element == UInt8 {
    /// Lower-case hexadecimal digits.
    var hexString: String { TokenEncoding.hex(Array(self)) }
}
