import Foundation
import NIOCore

/// The additional checksum stored with an object or a part, as S3 keeps it: the algorithm, the value
/// (base64 of the big-endian digest, with `-<parts>` after a composite one) and its type.
struct StoredChecksum: Codable, Sendable, Hashable {
    /// `FULL_OBJECT`: the checksum of every byte; `COMPOSITE`: the checksum of the parts' checksums.
    enum Kind: String, Codable, Sendable, Hashable {
        case fullObject = "FULL_OBJECT"
        case composite = "COMPOSITE"
    }

    var algorithm: S3Checksum.Algorithm
    var value: String
    var type: Kind

    init(algorithm: S3Checksum.Algorithm, value: String, type: Kind) {
        self.algorithm = algorithm
        self.value = value
        self.type = type
    }

    private enum CodingKeys: String, CodingKey {
        case algorithm, value, type
    }

    // Records keep the algorithm by its name (`CRC32`, `SHA256`, …).
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .algorithm)
        guard let algorithm = S3Checksum.Algorithm(name: name) else {
            throw DecodingError.dataCorruptedError(forKey: .algorithm, in: container, debugDescription: "unknown checksum algorithm \(name)")
        }
        self.algorithm = algorithm
        self.value = try container.decode(String.self, forKey: .value)
        self.type = try container.decode(Kind.self, forKey: .type)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.algorithm.name, forKey: .algorithm)
        try container.encode(self.value, forKey: .value)
        try container.encode(self.type, forKey: .type)
    }

    /// The header S3 answers it in: `x-amz-checksum-<algorithm>`.
    var headerName: String { self.algorithm.headerName }
    /// The element S3 names it by in XML: `ChecksumCRC32`, `ChecksumSHA256`, ….
    var elementName: String { "Checksum" + self.algorithm.name }

    /// The type a multipart upload's checksum has when the request names none: full-object for CRC64NVME,
    /// which S3 computes only that way, composite for the others.
    static func defaultType(for algorithm: S3Checksum.Algorithm) -> Kind {
        algorithm == .crc64nvme ? .fullObject : .composite
    }

    /// Checks a multipart upload's `x-amz-checksum-type` against its algorithm as S3 does: full-object
    /// checksums are CRCs only, composite ones anything but CRC64NVME.
    /// - Throws: `InvalidRequest` for a type without an algorithm, an unknown type or a pair S3 refuses.
    static func uploadType(_ text: String?, algorithm: S3Checksum.Algorithm?) throws(AWSErrorResponse) -> Kind? {
        guard let text else { return algorithm.map(Self.defaultType(for:)) }
        guard let algorithm else {
            throw S3Errors.invalidRequest("The x-amz-checksum-type header requires the x-amz-checksum-algorithm header.")
        }
        guard let kind = Kind(rawValue: text.uppercased()) else {
            throw S3Errors.invalidRequest("Value for x-amz-checksum-type header is invalid.")
        }
        switch (kind, algorithm) {
        case (.fullObject, .sha1), (.fullObject, .sha256), (.composite, .crc64nvme):
            throw S3Errors.invalidRequest("The \(algorithm.name) checksum algorithm is not supported with the \(kind.rawValue) checksum type.")
        default:
            return kind
        }
    }

    /// The composite checksum of parts: the algorithm over the parts' binary checksums, then `-<count>`.
    /// - Returns: `nil` when a part has no checksum of the algorithm.
    static func composite(_ algorithm: S3Checksum.Algorithm, of parts: [StoredChecksum?]) -> StoredChecksum? {
        var binary: [UInt8] = []
        for part in parts {
            guard let part, part.algorithm == algorithm, let digest = Data(base64Encoded: part.value) else { return nil }
            binary += digest
        }
        return StoredChecksum(
            algorithm: algorithm, value: S3Checksum.compute(algorithm, of: binary) + "-\(parts.count)", type: .composite)
    }
}

extension ObjectStore {
    /// The checksum a completed upload's object gets: composite from the parts' checksums, or full-object
    /// over the parts' bytes in order; `nil` when the upload has no checksum algorithm.
    func multipartChecksum(_ upload: UploadRecord, parts: [StoredFile]) async throws(AWSErrorResponse) -> StoredChecksum? {
        guard let algorithm = upload.checksumAlgorithm else { return nil }
        switch upload.checksumType ?? StoredChecksum.defaultType(for: algorithm) {
        case .composite:
            return StoredChecksum.composite(algorithm, of: parts.map(\.record.checksum))
        case .fullObject:
            // Parts encrypted at rest are read through their cipher; SSE-C uploads cannot ask for this type.
            var ciphers: [ObjectCipher?] = []
            for part in parts {
                ciphers.append(try part.record.encryption.map { encryption throws(AWSErrorResponse) in
                    try ObjectCipher(key: self.encryptionKey, encryption: encryption)
                })
            }
            let sources = Array(zip(parts, ciphers))
            let compute: @Sendable () throws(AWSErrorResponse) -> String = { () throws(AWSErrorResponse) -> String in
                var hasher = S3Checksum.Hasher(algorithm)
                let allocator = ByteBufferAllocator()
                for (part, cipher) in sources {
                    var offset: Int64 = 0
                    while offset < part.bodyLength {
                        let count = Int(min(Int64(1 << 20), part.bodyLength - offset))
                        let buffer = try part.read(offset: offset, count: count, allocator: allocator)
                        if let cipher {
                            let plain = try cipher.apply(buffer.readableBytesView, at: offset)
                            plain.withUnsafeBytes { hasher.update($0) }
                        } else {
                            buffer.withUnsafeReadableBytes { hasher.update($0) }
                        }
                        offset += Int64(count)
                    }
                }
                return hasher.finalize()
            }
            let value = try await blockingFileWork(compute)
            return StoredChecksum(algorithm: algorithm, value: value, type: .fullObject)
        }
    }
}
