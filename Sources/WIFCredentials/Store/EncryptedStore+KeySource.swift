import Foundation

extension EncryptedStore {
    /// Where the store's key comes from.
    ///
    /// Open-ended: more sources may be added. A passphrase source never shows the passphrase in its
    /// `description`.
    public struct KeySource: Sendable, CustomStringConvertible {
        enum Base: Sendable {
            case passphrase(String)
            case keyFile(URL)
            case generatedKeyFile
        }

        let base: Base

        /// A key derived from a passphrase with scrypt and the store's random salt.
        ///
        /// The passphrase is normalised to Unicode NFC first, so the same characters typed on
        /// different systems open the same store.
        /// - Parameter passphrase: The passphrase; must not be empty.
        public static func passphrase(_ passphrase: String) -> KeySource {
            KeySource(base: .passphrase(passphrase))
        }

        /// A random 256-bit key kept in a file (base64, one line). When the store is created and the
        /// file does not exist, it is created with mode 0600.
        /// - Parameter url: The key file.
        public static func keyFile(_ url: URL) -> KeySource {
            KeySource(base: .keyFile(url))
        }

        /// A random key kept in a file beside the store (``EncryptedStore/defaultKeyFile(forStoreAt:)``),
        /// created with mode 0600 when the store is created.
        ///
        /// The store is then protected only by file permissions: anyone who can read both files can
        /// read it. ``EncryptedStore/Protection/notice`` says so in words to show the user.
        public static let generatedKeyFile = KeySource(base: .generatedKeyFile)

        /// Whether the key comes from a passphrase.
        public var isPassphrase: Bool {
            if case .passphrase = self.base { return true }
            return false
        }

        public var description: String {
            switch self.base {
            case .passphrase: "KeySource.passphrase(<redacted>)"
            case .keyFile(let url): "KeySource.keyFile(\(url.path))"
            case .generatedKeyFile: "KeySource.generatedKeyFile"
            }
        }
    }

    /// How a store is protected, in terms to show the user.
    public struct Protection: Sendable, Hashable, CustomStringConvertible {
        /// What protects the store.
        public enum Kind: Sendable, Hashable {
            /// A key derived from a passphrase.
            case passphrase
            /// A key kept in a file.
            case keyFile
        }

        /// What protects the store.
        public var kind: Kind
        /// The key file, when ``kind`` is ``Kind/keyFile`` and it is known.
        public var keyFile: URL?
        /// Whether the key file was generated beside the store, so only file permissions protect it.
        public var protectedOnlyByFilePermissions: Bool
        /// The store file.
        public var store: URL

        /// Creates a description of a store's protection.
        /// - Parameters:
        ///   - kind: What protects the store.
        ///   - keyFile: The key file, for key-file stores.
        ///   - protectedOnlyByFilePermissions: Whether the key file lies beside the store.
        ///   - store: The store file.
        public init(kind: Kind, keyFile: URL? = nil, protectedOnlyByFilePermissions: Bool = false, store: URL) {
            self.kind = kind
            self.keyFile = keyFile
            self.protectedOnlyByFilePermissions = protectedOnlyByFilePermissions
            self.store = store
        }

        /// A plain statement for the user when the store is protected only by file permissions;
        /// `nil` otherwise.
        public var notice: String? {
            guard self.protectedOnlyByFilePermissions else { return nil }
            let keyFile = self.keyFile?.path ?? EncryptedStore.defaultKeyFile(forStoreAt: self.store).path
            return "the store \(self.store.path) is protected only by file permissions: its key is in \(keyFile) beside it, readable by you only, so anyone who can read your files can read the store; use a passphrase to protect it with something only you know"
        }

        public var description: String {
            switch self.kind {
            case .passphrase:
                return "encrypted with a key derived from a passphrase (scrypt)"
            case .keyFile:
                let file = self.keyFile.map { " in \($0.path)" } ?? ""
                return self.protectedOnlyByFilePermissions
                    ? "encrypted with a key kept beside it\(file): protected only by file permissions"
                    : "encrypted with a key file\(file)"
            }
        }
    }

    /// The settings of scrypt, the memory-hard function that turns a passphrase into the store key.
    ///
    /// The memory used is 128 × 2^``costLog2`` × ``blockSize`` bytes (128 MiB with the defaults); the
    /// settings are kept in the store's header, so a store opens with the settings it was made with.
    public struct ScryptParameters: Sendable, Hashable {
        /// The base-2 logarithm of scrypt's cost `N`.
        public let costLog2: UInt8
        /// scrypt's block size `r`.
        public let blockSize: UInt8
        /// scrypt's parallelism `p`.
        public let parallelism: UInt8

        /// `N` = 2^17, `r` = 8, `p` = 1: OWASP's recommended minimum for scrypt.
        public static let `default` = ScryptParameters(checked: 17, 8, 1)

        /// The accepted range of ``costLog2``.
        public static let costLog2Range: ClosedRange<UInt8> = 10...20
        /// The accepted range of ``blockSize``.
        public static let blockSizeRange: ClosedRange<UInt8> = 1...16
        /// The accepted range of ``parallelism``.
        public static let parallelismRange: ClosedRange<UInt8> = 1...4
        /// The most memory a setting may need: 1 GiB.
        public static let maximumMemory = 1 << 30

        /// Creates scrypt settings.
        /// - Parameters:
        ///   - costLog2: log2 of the cost `N`, 10 to 20.
        ///   - blockSize: The block size `r`, 1 to 16.
        ///   - parallelism: The parallelism `p`, 1 to 4.
        /// - Throws: ``WIFCredentialsError`` `invalidParameter` naming the setting out of bounds, or
        ///   when the settings together need more than 1 GiB of memory or exceed scrypt's limit
        ///   `N < 2^(16 r)`.
        public init(costLog2: UInt8, blockSize: UInt8, parallelism: UInt8) throws(WIFCredentialsError) {
            guard Self.costLog2Range.contains(costLog2) else {
                throw .invalidParameter("scrypt cost log2(N) must be \(Self.costLog2Range.lowerBound) to \(Self.costLog2Range.upperBound), not \(costLog2)")
            }
            guard Self.blockSizeRange.contains(blockSize) else {
                throw .invalidParameter("scrypt block size r must be \(Self.blockSizeRange.lowerBound) to \(Self.blockSizeRange.upperBound), not \(blockSize)")
            }
            guard Self.parallelismRange.contains(parallelism) else {
                throw .invalidParameter(
                    "scrypt parallelism p must be \(Self.parallelismRange.lowerBound) to \(Self.parallelismRange.upperBound), not \(parallelism)")
            }
            let memory = 128 * Int(blockSize) << Int(costLog2)
            guard memory <= Self.maximumMemory else {
                throw .invalidParameter("scrypt settings N=2^\(costLog2), r=\(blockSize) need \(memory >> 20) MiB, more than 1024 MiB")
            }
            guard 16 * Int(blockSize) > Int(costLog2) else {
                throw .invalidParameter("scrypt cost N=2^\(costLog2) must be below 2^(16 r) = 2^\(16 * Int(blockSize))")
            }
            self.init(checked: costLog2, blockSize, parallelism)
        }

        private init(checked costLog2: UInt8, _ blockSize: UInt8, _ parallelism: UInt8) {
            self.costLog2 = costLog2
            self.blockSize = blockSize
            self.parallelism = parallelism
        }

        /// The memory scrypt needs with these settings, in bytes.
        public var memory: Int { 128 * Int(self.blockSize) << Int(self.costLog2) }
    }
}

extension EncryptedStore.KeySource: CustomReflectable {
    /// No children: `dump` and `Mirror(reflecting:)` would otherwise list the stored secrets that
    /// ``description`` leaves out.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
