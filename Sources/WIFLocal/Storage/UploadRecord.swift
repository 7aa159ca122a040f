import Foundation

/// A multipart upload as kept in `uploads/<id>/upload.json`.
struct UploadRecord: Codable, Sendable {
    var uploadId: String
    var bucket: String
    /// The key's UTF-8 bytes in base64.
    var key: String
    /// Milliseconds since 1970.
    var initiated: Int64
    var attributes: ObjectAttributes
    /// The additional checksum the object gets (`x-amz-checksum-algorithm` and `-type` at creation).
    var checksumAlgorithmName: String? = nil
    var checksumType: StoredChecksum.Kind? = nil
    /// How the parts (and so the object) are encrypted at rest, and for SSE-C the key's MD5.
    var encryptionMode: StoredEncryption.Mode? = nil
    var encryptionKeyMD5: String? = nil

    var objectKey: ObjectKey? {
        guard let bytes = Data(base64Encoded: self.key), !bytes.isEmpty else { return nil }
        return ObjectKey(unchecked: Array(bytes))
    }

    /// The additional checksum's algorithm, kept by its name.
    var checksumAlgorithm: S3Checksum.Algorithm? {
        self.checksumAlgorithmName.flatMap(S3Checksum.Algorithm.init(name:))
    }

    var info: MultipartUploadInfo {
        MultipartUploadInfo(
            uploadId: self.uploadId,
            bucket: self.bucket,
            key: self.objectKey?.string ?? "",
            initiated: Date(timeIntervalSince1970: Double(self.initiated) / 1000),
            attributes: self.attributes
        )
    }
}
