import Crypto
import Foundation
import NIOCore
import NIOHTTP1

/// Checks a whole object's body as it streams in: its length always, and — when verification is on
/// — its MD5 against a single-part ETag and its full-object checksum when S3 returned one.
struct BodyVerifier {
    let expectedLength: Int64
    private var received: Int64 = 0
    private var md5: Insecure.MD5?
    private var expectedMD5: String?
    private var sha256: SHA256?
    private var expectedSHA256: String?
    private var crc32: CRC32?
    private var expectedCRC32: String?

    /// Prepares the checks for an answer carrying a whole object.
    /// - Parameters:
    ///   - headers: The answer's headers.
    ///   - expectedLength: The `Content-Length`.
    ///   - verifies: Whether to check ETag and checksum (length is always checked).
    init(headers: HTTPHeaders, expectedLength: Int64, verifies: Bool) {
        self.expectedLength = expectedLength
        guard verifies else { return }
        if let eTag = headers.first(name: "etag").map(ObjectMetadata.unquoted), Self.eTagIsMD5(eTag, headers: headers) {
            self.md5 = Insecure.MD5()
            self.expectedMD5 = eTag.lowercased()
        }
        let checksumType = headers.first(name: "x-amz-checksum-type")?.uppercased()
        let isComposite = checksumType == "COMPOSITE"
        if let value = headers.first(name: "x-amz-checksum-sha256"), !value.contains("-"), !isComposite {
            self.sha256 = SHA256()
            self.expectedSHA256 = value
        } else if let value = headers.first(name: "x-amz-checksum-crc32"), !value.contains("-"), !isComposite {
            self.crc32 = CRC32()
            self.expectedCRC32 = value
        }
    }

    /// Whether an ETag is the MD5 of the content: 32 hex digits, and no KMS or customer-key encryption
    /// (whose ETags are not MD5s).
    static func eTagIsMD5(_ eTag: String, headers: HTTPHeaders) -> Bool {
        guard eTag.utf8.count == 32, eTag.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70) })
        else { return false }
        if headers.first(name: "x-amz-server-side-encryption-customer-algorithm") != nil { return false }
        if let encryption = headers.first(name: "x-amz-server-side-encryption"), encryption.lowercased().hasPrefix("aws:kms") {
            return false
        }
        return true
    }

    /// Whether any digest is being computed.
    var hashes: Bool { self.md5 != nil || self.sha256 != nil || self.crc32 != nil }

    /// Adds received bytes.
    mutating func update(_ buffer: ByteBuffer) {
        self.received += Int64(buffer.readableBytes)
        guard self.hashes else { return }
        buffer.withUnsafeReadableBytes { bytes in
            self.md5?.update(bufferPointer: bytes)
            self.sha256?.update(bufferPointer: bytes)
            self.crc32?.update(bytes)
        }
    }

    /// Checks everything received.
    /// - Throws: ``S3Error`` with code ``S3Error/Code/integrityCheckFailed`` naming the check that failed.
    func verify(bucket: String?, key: String?) throws(S3Error) {
        if self.received != self.expectedLength {
            throw .integrity(
                "received \(self.received) bytes where S3 announced \(self.expectedLength)", bucket: bucket, key: key)
        }
        if let md5 = self.md5, let expected = self.expectedMD5 {
            let actual = md5.finalize().hexString
            if actual != expected {
                throw .integrity("the body's MD5 \(actual) differs from the object's ETag \(expected)", bucket: bucket, key: key)
            }
        }
        if let sha256 = self.sha256, let expected = self.expectedSHA256 {
            let actual = Data(sha256.finalize()).base64EncodedString()
            if actual != expected {
                throw .integrity("the body's SHA-256 \(actual) differs from the stored checksum \(expected)", bucket: bucket, key: key)
            }
        }
        if let crc32 = self.crc32, let expected = self.expectedCRC32 {
            let actual = crc32.base64
            if actual != expected {
                throw .integrity("the body's CRC-32 \(actual) differs from the stored checksum \(expected)", bucket: bucket, key: key)
            }
        }
    }
}
