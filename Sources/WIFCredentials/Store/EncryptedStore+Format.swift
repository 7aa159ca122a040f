import Foundation

extension EncryptedStore {
    /// The store file's header: everything before the ciphertext. All of it is authenticated as AES-GCM
    /// additional data, so changing any byte (a weaker KDF setting, another salt, the version) makes the
    /// file fail to open.
    ///
    /// ```
    /// offset  size  field
    ///  0       8    magic "WIFSTORE"
    ///  8       2    format version, big-endian (1)
    /// 10       1    key derivation: 1 scrypt (passphrase), 2 key file
    /// 11       1    scrypt log2(N)   (0 for a key file)
    /// 12       1    scrypt r         (0 for a key file)
    /// 13       1    scrypt p         (0 for a key file)
    /// 14       1    salt length S (16 to 64)
    /// 15       S    salt
    /// 15+S    32    key check: HMAC-SHA256 under a key derived from the store key
    /// 47+S    12    AES-GCM nonce
    /// 59+S     8    ciphertext length L, big-endian
    /// 67+S     L    ciphertext (the JSON document)
    /// 67+S+L  16    AES-GCM tag
    /// ```
    struct Header: Equatable, Sendable {
        /// How the store key is made.
        enum KeyDerivation: Equatable, Sendable {
            case scrypt(ScryptParameters)
            case keyFile
        }

        static let magic: [UInt8] = Array("WIFSTORE".utf8)
        static let currentVersion: UInt16 = 1
        static let saltLengths = 16...64
        static let newSaltLength = 32
        static let keyCheckLength = 32
        static let nonceLength = 12
        static let tagLength = 16
        /// The largest ciphertext a store may hold: a document of accounts and credentials is a few
        /// kilobytes; anything near this is not a file this library wrote.
        static let maximumCiphertextLength: UInt64 = 16 << 20

        var keyDerivation: KeyDerivation
        var salt: [UInt8]
        var keyCheck: [UInt8]
        var nonce: [UInt8]
        var ciphertextLength: UInt64

        /// The number of header bytes for a salt of `saltLength` bytes.
        static func length(saltLength: Int) -> Int {
            15 + saltLength + Self.keyCheckLength + Self.nonceLength + 8
        }

        /// The header's bytes, which are also the AES-GCM additional data.
        func encoded() -> [UInt8] {
            var bytes = Self.magic
            bytes.append(UInt8(Self.currentVersion >> 8))
            bytes.append(UInt8(Self.currentVersion & 0xFF))
            switch self.keyDerivation {
            case .scrypt(let parameters):
                bytes += [1, parameters.costLog2, parameters.blockSize, parameters.parallelism]
            case .keyFile:
                bytes += [2, 0, 0, 0]
            }
            bytes.append(UInt8(self.salt.count))
            bytes += self.salt
            bytes += self.keyCheck
            bytes += self.nonce
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8((self.ciphertextLength >> UInt64(shift)) & 0xFF))
            }
            return bytes
        }

        /// Reads the header at the start of a store file and checks that the file is exactly as long
        /// as the header says, without any key.
        /// - Parameters:
        ///   - bytes: The whole file.
        ///   - path: The file's path, for messages.
        /// - Returns: The header and its length in bytes.
        /// - Throws: ``WIFCredentialsError`` `notAStore`, `storeTruncated`, `storeNewerVersion` or
        ///   `storeDamaged`, each naming the file and what was found.
        static func parse(_ bytes: [UInt8], path: String) throws(WIFCredentialsError) -> (header: Header, length: Int) {
            let magicLength = Self.magic.count
            guard bytes.count >= magicLength else {
                if bytes.isEmpty {
                    throw .storeTruncated("the store \(path) is empty (0 bytes); it holds nothing to open")
                }
                if Array(Self.magic.prefix(bytes.count)) == bytes {
                    throw .storeTruncated("the store \(path) is truncated: \(bytes.count) bytes, shorter than its header")
                }
                throw .notAStore("\(path) is not an encrypted store: it does not start with \"WIFSTORE\"")
            }
            guard Array(bytes[0..<magicLength]) == Self.magic else {
                throw .notAStore("\(path) is not an encrypted store: it does not start with \"WIFSTORE\"")
            }
            guard bytes.count >= magicLength + 2 else {
                throw .storeTruncated("the store \(path) is truncated: \(bytes.count) bytes, shorter than its header")
            }
            let version = UInt16(bytes[8]) << 8 | UInt16(bytes[9])
            guard version != 0 else {
                throw .storeDamaged("the store \(path) is damaged: its format version is 0")
            }
            guard version <= Self.currentVersion else {
                throw .storeNewerVersion(
                    "the store \(path) has format version \(version), newer than version \(Self.currentVersion) that this version reads; use a newer release to open it"
                )
            }
            guard bytes.count >= 15 else {
                throw .storeTruncated("the store \(path) is truncated: \(bytes.count) bytes, shorter than its header")
            }
            let keyDerivation: KeyDerivation
            switch bytes[10] {
            case 1:
                do throws(WIFCredentialsError) {
                    keyDerivation = .scrypt(try ScryptParameters(costLog2: bytes[11], blockSize: bytes[12], parallelism: bytes[13]))
                } catch {
                    throw .storeDamaged("the store \(path) is damaged: its scrypt settings are out of bounds (\(error.reason))")
                }
            case 2:
                guard bytes[11] == 0, bytes[12] == 0, bytes[13] == 0 else {
                    throw .storeDamaged("the store \(path) is damaged: a key-file store has key-derivation settings")
                }
                keyDerivation = .keyFile
            default:
                throw .storeDamaged("the store \(path) is damaged: unknown key derivation \(bytes[10])")
            }
            let saltLength = Int(bytes[14])
            guard Self.saltLengths.contains(saltLength) else {
                throw .storeDamaged(
                    "the store \(path) is damaged: its salt is \(saltLength) bytes, not \(Self.saltLengths.lowerBound) to \(Self.saltLengths.upperBound)")
            }
            let headerLength = Self.length(saltLength: saltLength)
            guard bytes.count >= headerLength else {
                throw .storeTruncated("the store \(path) is truncated: \(bytes.count) bytes, shorter than its \(headerLength)-byte header")
            }
            var offset = 15
            func take(_ count: Int) -> [UInt8] {
                defer { offset += count }
                return Array(bytes[offset..<offset + count])
            }
            let salt = take(saltLength)
            let keyCheck = take(Self.keyCheckLength)
            let nonce = take(Self.nonceLength)
            let ciphertextLength = take(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard ciphertextLength <= Self.maximumCiphertextLength else {
                throw .storeDamaged(
                    "the store \(path) is damaged: its header claims \(ciphertextLength) bytes of contents, more than the \(Self.maximumCiphertextLength) a store holds")
            }
            let expected = headerLength + Int(ciphertextLength) + Self.tagLength
            guard bytes.count >= expected else {
                throw .storeTruncated("the store \(path) is truncated: \(bytes.count) of its \(expected) bytes are there")
            }
            guard bytes.count == expected else {
                throw .storeDamaged("the store \(path) is damaged: \(bytes.count - expected) unexpected bytes follow its end")
            }
            let header = Header(
                keyDerivation: keyDerivation, salt: salt, keyCheck: keyCheck, nonce: nonce, ciphertextLength: ciphertextLength)
            return (header, headerLength)
        }
    }
}
