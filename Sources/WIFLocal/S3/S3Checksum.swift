import Crypto
import Foundation

/// The additional checksums S3 verifies on upload (`x-amz-checksum-crc32`, `-crc32c`, `-crc64nvme`,
/// `-sha1`, `-sha256`), each the base64 of the big-endian digest.
struct S3Checksum: Sendable, Hashable {
    /// The algorithm.
    enum Algorithm: String, Codable, Sendable, Hashable, CaseIterable {
        case crc32 = "CRC32"
        case crc32c = "CRC32C"
        case crc64nvme = "CRC64NVME"
        case sha1 = "SHA1"
        case sha256 = "SHA256"

        /// `x-amz-checksum-<algorithm>`.
        var headerName: String { "x-amz-checksum-\(self.rawValue.lowercased())" }

        /// The digest length in bytes.
        var byteCount: Int {
            switch self {
            case .crc32, .crc32c: 4
            case .crc64nvme: 8
            case .sha1: 20
            case .sha256: 32
            }
        }

        init?(headerName: String) {
            let lowered = headerName.lowercased()
            guard let algorithm = Self.allCases.first(where: { $0.headerName == lowered }) else { return nil }
            self = algorithm
        }
    }

    /// The algorithm.
    var algorithm: Algorithm
    /// The expected value as sent (base64).
    var expected: String

    /// A running computation of one algorithm.
    struct Hasher: Sendable {
        private enum State: Sendable {
            case crc32(UInt32)
            case crc32c(UInt32)
            case crc64(UInt64)
            case sha1(Insecure.SHA1)
            case sha256(SHA256)
        }

        private var state: State
        let algorithm: Algorithm

        init(_ algorithm: Algorithm) {
            self.algorithm = algorithm
            switch algorithm {
            case .crc32: self.state = .crc32(0xFFFF_FFFF)
            case .crc32c: self.state = .crc32c(0xFFFF_FFFF)
            case .crc64nvme: self.state = .crc64(~0)
            case .sha1: self.state = .sha1(Insecure.SHA1())
            case .sha256: self.state = .sha256(SHA256())
            }
        }

        mutating func update(_ bytes: UnsafeRawBufferPointer) {
            switch self.state {
            case .crc32(let crc): self.state = .crc32(CRCTables.update32(crc, bytes, CRCTables.crc32))
            case .crc32c(let crc): self.state = .crc32c(CRCTables.update32(crc, bytes, CRCTables.crc32c))
            case .crc64(let crc): self.state = .crc64(CRCTables.update64(crc, bytes))
            case .sha1(var hash):
                hash.update(bufferPointer: bytes)
                self.state = .sha1(hash)
            case .sha256(var hash):
                hash.update(bufferPointer: bytes)
                self.state = .sha256(hash)
            }
        }

        /// The digest's base64, as S3 writes checksums.
        func finalize() -> String {
            var bytes: [UInt8]
            switch self.state {
            case .crc32(let crc), .crc32c(let crc):
                let value = ~crc
                bytes = [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
            case .crc64(let crc):
                let value = ~crc
                bytes = (0..<8).map { UInt8((value >> (56 - 8 * UInt64($0))) & 0xFF) }
            case .sha1(let hash): bytes = Array(hash.finalize())
            case .sha256(let hash): bytes = Array(hash.finalize())
            }
            return Data(bytes).base64EncodedString()
        }
    }

    /// The checksum of a whole buffer, for tests and small bodies.
    static func compute(_ algorithm: Algorithm, of bytes: [UInt8]) -> String {
        var hasher = Hasher(algorithm)
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize()
    }

    /// Whether a value is well-formed for its algorithm: base64 of exactly the digest's length.
    static func isWellFormed(_ value: String, for algorithm: Algorithm) -> Bool {
        guard let data = Data(base64Encoded: value) else { return false }
        return data.count == algorithm.byteCount
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
