import Crypto
import Foundation

/// A checksum S3 verifies on upload and keeps with the object (`x-amz-checksum-crc32`, `-crc32c`,
/// `-crc64nvme`, `-sha1`, `-sha256`), written as the base64 of the big-endian digest.
///
/// It is sent as a header, or in the trailer of an `aws-chunked` body when the body is signed chunk by
/// chunk (``SigV4Signer/signStreaming(_:decodedContentLength:chunkSize:trailer:date:)``). The one
/// computation of these digests in the package: the client that sends them and the local S3 that
/// verifies them both use ``Hasher``.
public struct SigV4Checksum: Sendable, Hashable, CustomStringConvertible {
    enum Kind: String, Sendable, Hashable, CaseIterable {
        case crc32 = "CRC32"
        case crc32c = "CRC32C"
        case crc64nvme = "CRC64NVME"
        case sha1 = "SHA1"
        case sha256 = "SHA256"
    }

    let kind: Kind

    /// CRC-32 (IEEE 802.3, as zlib computes it).
    public static let crc32 = SigV4Checksum(kind: .crc32)
    /// CRC-32C (Castagnoli).
    public static let crc32c = SigV4Checksum(kind: .crc32c)
    /// CRC-64/NVME.
    public static let crc64nvme = SigV4Checksum(kind: .crc64nvme)
    /// SHA-1.
    public static let sha1 = SigV4Checksum(kind: .sha1)
    /// SHA-256.
    public static let sha256 = SigV4Checksum(kind: .sha256)
    /// Every algorithm S3 accepts.
    public static let all: [SigV4Checksum] = Kind.allCases.map { SigV4Checksum(kind: $0) }

    /// The name S3 gives it in `x-amz-checksum-algorithm`: `CRC32`, `CRC32C`, `CRC64NVME`, `SHA1`, `SHA256`.
    public var name: String { self.kind.rawValue }

    /// The header (or trailer) carrying it: `x-amz-checksum-<algorithm>` in lowercase.
    public var headerName: String { "x-amz-checksum-\(self.kind.rawValue.lowercased())" }

    /// The digest's length in bytes.
    public var byteCount: Int {
        switch self.kind {
        case .crc32, .crc32c: 4
        case .crc64nvme: 8
        case .sha1: 20
        case .sha256: 32
        }
    }

    /// The base64 text's length: what a trailer line holds after the colon.
    public var encodedCount: Int { (self.byteCount + 2) / 3 * 4 }

    public var description: String { self.name }

    /// The algorithm a header or trailer name carries, in any case.
    /// - Parameter headerName: Such as `x-amz-checksum-crc32c`.
    public init?(headerName: String) {
        // Asked of every header of every S3 request, so compared over UTF-8 without building a string:
        // the prefix ignoring ASCII case, then the rest against each algorithm's name.
        let name = headerName.utf8
        let prefix = "x-amz-checksum-".utf8
        guard name.count > prefix.count,
            name.prefix(prefix.count).elementsEqual(prefix, by: { Self.asciiLowercased($0) == $1 })
        else { return nil }
        let suffix = name.dropFirst(prefix.count)
        guard let kind = Kind.allCases.first(where: { kind in
            kind.rawValue.utf8.elementsEqual(suffix, by: { $0 == Self.asciiUppercased($1) })
        }) else { return nil }
        self.kind = kind
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte }
    private static func asciiUppercased(_ byte: UInt8) -> UInt8 { byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte }

    /// The algorithm S3 names so in `x-amz-checksum-algorithm` (`CRC32`, `SHA256`, …), in any case.
    /// - Parameter name: Such as `CRC64NVME`.
    public init?(name: String) {
        guard let kind = Kind(rawValue: name.uppercased()) else { return nil }
        self.kind = kind
    }

    init(kind: Kind) {
        self.kind = kind
    }

    /// The checksum of bytes in memory, in base64.
    /// - Parameter bytes: The bytes.
    /// - Returns: The base64 of the big-endian digest.
    public func compute(_ bytes: some DataProtocol) -> String {
        var hasher = Hasher(self)
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// Whether a value is well formed for this algorithm: base64 of exactly the digest's length.
    /// - Parameter value: The value as sent.
    /// - Returns: `true` when it could be a checksum of this algorithm.
    public func isWellFormed(_ value: String) -> Bool {
        guard let data = Data(base64Encoded: value) else { return false }
        return data.count == self.byteCount
    }

    /// A running computation of one algorithm.
    public struct Hasher: Sendable {
        private enum State: Sendable {
            case crc32(UInt32, [UInt32])
            case crc64(UInt64)
            case sha1(Insecure.SHA1)
            case sha256(SHA256)
        }

        private var state: State
        /// The algorithm.
        public let algorithm: SigV4Checksum

        /// Starts a computation.
        /// - Parameter algorithm: The algorithm.
        public init(_ algorithm: SigV4Checksum) {
            self.algorithm = algorithm
            switch algorithm.kind {
            case .crc32: self.state = .crc32(0xFFFF_FFFF, CRCTables.crc32)
            case .crc32c: self.state = .crc32(0xFFFF_FFFF, CRCTables.crc32c)
            case .crc64nvme: self.state = .crc64(~0)
            case .sha1: self.state = .sha1(Insecure.SHA1())
            case .sha256: self.state = .sha256(SHA256())
            }
        }

        /// Adds bytes.
        public mutating func update(_ bytes: UnsafeRawBufferPointer) {
            switch self.state {
            case .crc32(let crc, let tables): self.state = .crc32(CRCTables.update32(crc, bytes, tables), tables)
            case .crc64(let crc): self.state = .crc64(CRCTables.update64(crc, bytes))
            case .sha1(var hash):
                hash.update(bufferPointer: bytes)
                self.state = .sha1(hash)
            case .sha256(var hash):
                hash.update(bufferPointer: bytes)
                self.state = .sha256(hash)
            }
        }

        /// Adds bytes.
        public mutating func update(_ bytes: some DataProtocol) {
            for region in bytes.regions {
                region.withUnsafeBytes { self.update($0) }
            }
        }

        /// The digest of the bytes added so far, big-endian.
        public func digest() -> [UInt8] {
            switch self.state {
            case .crc32(let crc, _):
                let value = ~crc
                return [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
            case .crc64(let crc):
                let value = ~crc
                return (0..<8).map { UInt8((value >> (56 - 8 * UInt64($0))) & 0xFF) }
            case .sha1(let hash): return Array(hash.finalize())
            case .sha256(let hash): return Array(hash.finalize())
            }
        }

        /// The digest's base64, as S3 writes checksums.
        public func finalize() -> String {
            Data(self.digest()).base64EncodedString()
        }
    }
}

/// Lookup tables of the reflected CRCs.
private enum CRCTables {
    static let crc32: [UInt32] = table32(polynomial: 0xEDB8_8320)
    static let crc32c: [UInt32] = table32(polynomial: 0x82F6_3B78)
    static let crc64nvme: [UInt64] = {
        let polynomial: UInt64 = 0x9A6C_9329_AC4B_C9B5
        return (0..<256).map { index -> UInt64 in
            var crc = UInt64(index)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ polynomial : crc >> 1 }
            return crc
        }
    }()

    /// Eight tables of 256 entries, one after the other, for slicing-by-8: eight bytes per step.
    static func table32(polynomial: UInt32) -> [UInt32] {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var crc = UInt32(index)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ polynomial : crc >> 1 }
            tables[index] = crc
        }
        for slice in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(slice - 1) * 256 + index]
                tables[slice * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }

    static func update32(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer, _ tables: [UInt32]) -> UInt32 {
        var crc = crc
        tables.withUnsafeBufferPointer { t in
            var offset = 0
            let count = bytes.count
            while count - offset >= 8 {
                let one = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) ^ crc
                let two = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
                crc = t[7 * 256 + Int(one & 0xFF)] ^ t[6 * 256 + Int((one >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((one >> 16) & 0xFF)] ^ t[4 * 256 + Int(one >> 24)]
                    ^ t[3 * 256 + Int(two & 0xFF)] ^ t[2 * 256 + Int((two >> 8) & 0xFF)]
                    ^ t[256 + Int((two >> 16) & 0xFF)] ^ t[Int(two >> 24)]
                offset += 8
            }
            while offset < count {
                crc = t[Int((crc ^ UInt32(bytes[offset])) & 0xFF)] ^ (crc >> 8)
                offset += 1
            }
        }
        return crc
    }

    static func update64(_ crc: UInt64, _ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var crc = crc
        Self.crc64nvme.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt64(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return crc
    }
}
