import Crypto
import Foundation
import WIFCredentials

/// CRC-32 (IEEE 802.3, the one of `x-amz-checksum-crc32`), computed by the SigV4 library's
/// ``SigV4Checksum``: the same code the local S3 verifies checksums with.
struct CRC32: Sendable {
    private var hasher = SigV4Checksum.Hasher(.crc32)

    /// Adds bytes.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        self.hasher.update(bytes)
    }

    /// The checksum of the bytes added so far.
    var value: UInt32 {
        self.hasher.digest().reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The checksum as S3 writes it: the four big-endian bytes in base64.
    var base64: String { self.hasher.finalize() }
}

/// Which digests of a body to compute in one pass.
struct DigestKinds: Sendable, Hashable {
    var sha256: Bool
    var crc32: Bool
    var md5: Bool = false

    var isEmpty: Bool { !self.sha256 && !self.crc32 && !self.md5 }
}

/// Digests of a body: what signs it and what S3 checks it against.
struct PayloadDigest: Sendable, Hashable {
    /// The SHA-256 as hex (the signed payload hash).
    var sha256Hex: String?
    /// The SHA-256 in base64 (`x-amz-checksum-sha256`).
    var sha256Base64: String?
    /// The CRC-32 in base64 (`x-amz-checksum-crc32`).
    var crc32Base64: String?
    /// The MD5 in base64 (`Content-MD5`).
    var md5Base64: String?

    /// Computes digests of bytes in memory.
    init(of bytes: UnsafeRawBufferPointer, kinds: DigestKinds) {
        var hasher = Hasher(kinds)
        hasher.update(bytes)
        self = hasher.finalize()
    }

    init(sha256Hex: String? = nil, sha256Base64: String? = nil, crc32Base64: String? = nil, md5Base64: String? = nil) {
        self.sha256Hex = sha256Hex
        self.sha256Base64 = sha256Base64
        self.crc32Base64 = crc32Base64
        self.md5Base64 = md5Base64
    }

    /// The payload to sign: the SHA-256 if known, else `UNSIGNED-PAYLOAD`.
    var signingPayload: SigV4Signer.Payload {
        self.sha256Hex.map { .hash($0) } ?? .unsigned
    }

    /// The checksum header S3 should verify, for an algorithm.
    func checksumHeader(_ algorithm: S3Client.ChecksumAlgorithm) -> (name: String, value: String)? {
        switch algorithm.base {
        case .sha256: return self.sha256Base64.map { ("x-amz-checksum-sha256", $0) }
        case .crc32: return self.crc32Base64.map { ("x-amz-checksum-crc32", $0) }
        case .none: return nil
        }
    }

    /// Computes several digests in one pass.
    struct Hasher {
        var sha256: SHA256?
        var crc32: CRC32?
        var md5: Insecure.MD5?

        init(_ kinds: DigestKinds) {
            self.sha256 = kinds.sha256 ? SHA256() : nil
            self.crc32 = kinds.crc32 ? CRC32() : nil
            self.md5 = kinds.md5 ? Insecure.MD5() : nil
        }

        mutating func update(_ bytes: UnsafeRawBufferPointer) {
            self.sha256?.update(bufferPointer: bytes)
            self.crc32?.update(bytes)
            self.md5?.update(bufferPointer: bytes)
        }

        func finalize() -> PayloadDigest {
            var digest = PayloadDigest()
            if let sha256 = self.sha256?.finalize() {
                digest.sha256Hex = sha256.hexString
                digest.sha256Base64 = Data(sha256).base64EncodedString()
            }
            digest.crc32Base64 = self.crc32?.base64
            if let md5 = self.md5?.finalize() {
                digest.md5Base64 = Data(md5).base64EncodedString()
            }
            return digest
        }
    }
}

extension Digest {
    /// Lowercase hex.
    var hexString: String { SigV4Bytes.hexString(self) }
}
