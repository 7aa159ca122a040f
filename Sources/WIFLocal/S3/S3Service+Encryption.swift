import Crypto
import Foundation
import HTTPTypes

extension S3Service {
    /// The headers of a customer-provided key (SSE-C) on the object itself.
    static let customerKeyPrefix = "x-amz-server-side-encryption-customer-"
    /// The headers of a customer-provided key for the source of a copy.
    static let copySourceCustomerKeyPrefix = "x-amz-copy-source-server-side-encryption-customer-"

    /// The encryption at rest a write asks for: SSE-C with the key it carries, SSE-S3
    /// (`x-amz-server-side-encryption: AES256`) with the data directory's key, or none.
    func encryptionRequest(_ headers: HTTPFields) throws(AWSErrorResponse) -> EncryptionRequest? {
        if let customer = try Self.customerKey(headers) { return customer }
        if headers[S3Headers.serverSideEncryption] == StoredEncryption.Mode.s3.rawValue {
            return EncryptionRequest(mode: .s3, key: self.store.encryptionKey)
        }
        return nil
    }

    /// The customer-provided key a request carries under `prefix`, checked as S3 checks it.
    /// - Throws: `InvalidArgument` when the three headers are not all there, the key is not 256 bits or its
    ///   MD5 does not match; `InvalidEncryptionAlgorithmError` for an algorithm other than AES256.
    static func customerKey(_ headers: HTTPFields, prefix: String = S3Service.customerKeyPrefix) throws(AWSErrorResponse)
        -> EncryptionRequest?
    {
        func value(_ suffix: String) -> String? { HTTPField.Name(prefix + suffix).flatMap { headers[$0] } }
        let algorithm = value("algorithm")
        let keyText = value("key")
        let md5Text = value("key-md5")
        guard algorithm != nil || keyText != nil || md5Text != nil else { return nil }
        guard let algorithm, let keyText, let md5Text else {
            throw S3Errors.invalidArgument(
                "Requests specifying Server Side Encryption with Customer provided keys must provide the algorithm, the key "
                    + "and its MD5.", name: prefix + (algorithm == nil ? "algorithm" : keyText == nil ? "key" : "key-MD5"), value: nil)
        }
        guard algorithm == "AES256" else {
            throw AWSErrorResponse(
                "InvalidEncryptionAlgorithmError", "The encryption request you specified is not valid. The valid value is AES256.",
                details: [("ArgumentName", prefix + "algorithm"), ("ArgumentValue", algorithm)])
        }
        guard let key = Data(base64Encoded: keyText), key.count == 32 else {
            throw S3Errors.invalidArgument("The secret key was invalid for the specified algorithm.", name: prefix + "key", value: nil)
        }
        let md5 = Data(Insecure.MD5.hash(data: key)).base64EncodedString()
        guard md5 == md5Text else {
            throw S3Errors.invalidArgument(
                "The calculated MD5 hash of the key did not match the hash that was provided.", name: prefix + "key-MD5", value: nil)
        }
        return EncryptionRequest(mode: .customer, key: SymmetricKey(data: key), keyMD5: md5)
    }

    /// The headers S3 answers about an object's encryption: `x-amz-server-side-encryption: AES256`, or the
    /// customer key's algorithm and MD5. The key itself is never echoed.
    static func encryptionHeaders(_ encryption: StoredEncryption?, into headers: inout HTTPFields) {
        Self.encryptionHeaders(mode: encryption?.mode, keyMD5: encryption?.keyMD5, into: &headers)
    }

    /// The same headers for an encryption mode and, for SSE-C, the key's MD5.
    static func encryptionHeaders(mode: StoredEncryption.Mode?, keyMD5: String?, into headers: inout HTTPFields) {
        switch mode {
        case nil:
            return
        case .s3:
            headers[S3Headers.serverSideEncryption] = StoredEncryption.Mode.s3.rawValue
        case .customer:
            headers[HTTPField.Name(Self.customerKeyPrefix + "algorithm")!] = "AES256"
            if let keyMD5 { headers[HTTPField.Name(Self.customerKeyPrefix + "key-MD5")!] = keyMD5 }
        }
    }
}
