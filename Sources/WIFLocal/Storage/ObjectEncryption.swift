import Crypto
import Foundation
import _CryptoExtras
import WIFFoundation

/// How an object (or a part) is encrypted at rest: AES-256 in counter mode, with the data directory's
/// key (SSE-S3) or the customer's (SSE-C), over a body made of segments, each with its own initial
/// counter block. A single put is one segment; a completed multipart upload keeps its parts' segments,
/// so completing it copies bytes without decrypting them and needs no customer key.
struct StoredEncryption: Codable, Sendable, Hashable {
    enum Mode: String, Codable, Sendable, Hashable {
        /// `x-amz-server-side-encryption: AES256`: the data directory's key.
        case s3 = "AES256"
        /// `x-amz-server-side-encryption-customer-*`: the key the client sends with every request.
        case customer = "SSE-C"
    }

    struct Segment: Codable, Sendable, Hashable {
        /// The segment's length in bytes.
        var length: Int64
        /// The initial counter block, 16 bytes in base64.
        var iv: String
    }

    var mode: Mode
    /// For SSE-C, the base64 MD5 of the customer's key, which later requests must match; never the key.
    var keyMD5: String?
    var segments: [Segment]
}

/// The encryption a write asks for, with the key to use.
struct EncryptionRequest: Sendable {
    var mode: StoredEncryption.Mode
    var key: SymmetricKey
    /// For SSE-C, the base64 MD5 of the key.
    var keyMD5: String?
}

/// AES-256-CTR positioned anywhere in a body of segments; encrypting and decrypting are the same.
struct ObjectCipher: Sendable {
    private struct Span: Sendable {
        var start: Int64
        var end: Int64
        var iv: [UInt8]
    }

    private let key: SymmetricKey
    private let spans: [Span]

    /// A cipher for a new body of one segment that grows as it is written.
    init(key: SymmetricKey, iv: [UInt8]) {
        self.key = key
        self.spans = [Span(start: 0, end: .max, iv: iv)]
    }

    /// The cipher of a stored body.
    /// - Throws: `InternalError` when the record's counter blocks are damaged.
    init(key: SymmetricKey, encryption: StoredEncryption) throws(AWSErrorResponse) {
        self.key = key
        var spans: [Span] = []
        var start: Int64 = 0
        for segment in encryption.segments {
            guard let iv = Data(base64Encoded: segment.iv), iv.count == 16, segment.length >= 0 else {
                throw ObjectStoreError.internalError("an object's encryption record is damaged")
            }
            spans.append(Span(start: start, end: start + segment.length, iv: Array(iv)))
            start += segment.length
        }
        self.spans = spans
    }

    /// A fresh random initial counter block.
    static func makeIV() -> [UInt8] {
        SecureRandom.bytes(16)
    }

    /// Transforms `bytes`, which sit at `offset` in the body.
    func apply<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, at offset: Int64) throws(AWSErrorResponse) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        var position = offset
        while index < bytes.count {
            guard let span = self.spans.first(where: { $0.start <= position && position < $0.end }) else {
                throw ObjectStoreError.internalError("an encrypted object is longer than its encryption record")
            }
            let within = position - span.start
            let count = Int(min(Int64(bytes.count - index), span.end - position))
            let pad = Int(within % 16)
            var input = [UInt8](repeating: 0, count: pad)
            let from = bytes.index(bytes.startIndex, offsetBy: index)
            input.append(contentsOf: bytes[from..<bytes.index(from, offsetBy: count)])
            do {
                let nonce = try AES._CTR.Nonce(nonceBytes: Self.counter(span.iv, adding: UInt64(within / 16)))
                let transformed = try AES._CTR.encrypt(input, using: self.key, nonce: nonce)
                output.append(contentsOf: transformed.dropFirst(pad))
            } catch {
                throw ObjectStoreError.internalError("AES-CTR failed")
            }
            index += count
            position += Int64(count)
        }
        return output
    }

    /// The counter block `blocks` after `iv`, as a 128-bit big-endian number.
    static func counter(_ iv: [UInt8], adding blocks: UInt64) -> [UInt8] {
        var result = iv
        var carry = blocks
        var position = 15
        while carry > 0, position >= 0 {
            let sum = UInt64(result[position]) + (carry & 0xFF)
            result[position] = UInt8(sum & 0xFF)
            carry = (carry >> 8) + (sum >> 8)
            position -= 1
        }
        return result
    }
}

extension ObjectStore {
    /// The encryption of a part: the upload's, with the data directory's key or, for SSE-C, the key the
    /// part request carries, which must be the upload's.
    /// - Throws: `InvalidRequest` for a missing or different customer key, or one on an upload without SSE-C.
    func partEncryption(_ upload: UploadRecord, customerKey: EncryptionRequest?) throws(AWSErrorResponse) -> EncryptionRequest? {
        switch upload.encryptionMode {
        case nil, .s3:
            if customerKey != nil {
                throw S3Errors.invalidRequest("The multipart upload was not started with a customer-provided encryption key.")
            }
            return upload.encryptionMode == nil ? nil : EncryptionRequest(mode: .s3, key: self.encryptionKey)
        case .customer:
            guard let customerKey else {
                throw S3Errors.invalidRequest("The multipart upload was started with a customer-provided encryption key; each part needs it.")
            }
            guard customerKey.keyMD5 == upload.encryptionKeyMD5 else {
                throw S3Errors.invalidRequest("The provided encryption parameters did not match the ones used originally.")
            }
            return customerKey
        }
    }

    /// The record of a body of `length` bytes encrypted as one segment.
    static func encryption(_ request: EncryptionRequest, length: Int64, iv: [UInt8]) -> StoredEncryption {
        StoredEncryption(
            mode: request.mode, keyMD5: request.keyMD5, segments: [.init(length: length, iv: Data(iv).base64EncodedString())])
    }

    /// The cipher that reads a stored body, checking the customer's key as S3 does.
    /// - Throws: `InvalidRequest` (400) for an SSE-C object read without its key, or customer-key headers
    ///   on an object that is not SSE-C; `AccessDenied` (403) for another key.
    func cipher(for encryption: StoredEncryption?, customerKey: EncryptionRequest?) throws(AWSErrorResponse) -> ObjectCipher? {
        guard let encryption else {
            if customerKey != nil { throw S3Errors.invalidRequest("The encryption parameters are not applicable to this object.") }
            return nil
        }
        switch encryption.mode {
        case .s3:
            if customerKey != nil { throw S3Errors.invalidRequest("The encryption parameters are not applicable to this object.") }
            return try ObjectCipher(key: self.encryptionKey, encryption: encryption)
        case .customer:
            guard let customerKey else {
                throw S3Errors.invalidRequest(
                    "The object was stored using a form of Server Side Encryption. The correct parameters must be provided to "
                        + "retrieve the object.")
            }
            guard customerKey.keyMD5 == encryption.keyMD5 else { throw AWSErrorResponse("AccessDenied", "Access Denied", status: .forbidden) }
            return try ObjectCipher(key: customerKey.key, encryption: encryption)
        }
    }
}
