extension WIFCredentialsError.Code {
    /// The passphrase or key file does not open an ``EncryptedStore`` (or is the wrong kind: a key file
    /// for a store protected by a passphrase, or the reverse).
    public static let storeWrongKey = Self(base: .storeWrongKey)
    /// An ``EncryptedStore`` file fails authentication or has a malformed header: it was altered or
    /// damaged after it was written.
    public static let storeDamaged = Self(base: .storeDamaged)
    /// An ``EncryptedStore`` file is shorter than its header says.
    public static let storeTruncated = Self(base: .storeTruncated)
    /// An ``EncryptedStore`` file was written in a newer format than this library reads.
    public static let storeNewerVersion = Self(base: .storeNewerVersion)
    /// A file at a store's path does not start with the store's magic bytes.
    public static let notAStore = Self(base: .notAStore)
    /// An ``EncryptedStore`` file, its key file or its folder could not be read or written.
    public static let storeIO = Self(base: .storeIO)
}

extension WIFCredentialsError {
    /// The passphrase or key file does not open a store; `reason` names the store and the key source.
    public static func storeWrongKey(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .storeWrongKey, reason: reason, file: file, line: line)
    }

    /// A store was altered or damaged; `reason` says what was found.
    public static func storeDamaged(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .storeDamaged, reason: reason, file: file, line: line)
    }

    /// A store is shorter than its header says; `reason` gives the sizes.
    public static func storeTruncated(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .storeTruncated, reason: reason, file: file, line: line)
    }

    /// A store has a format version newer than this library reads; `reason` gives both versions.
    public static func storeNewerVersion(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .storeNewerVersion, reason: reason, file: file, line: line)
    }

    /// A file is not a store; `reason` names it.
    public static func notAStore(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .notAStore, reason: reason, file: file, line: line)
    }

    /// A store, its key file or its folder could not be read or written; `reason` names the file and
    /// the system's reason.
    public static func storeIO(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .storeIO, reason: reason, file: file, line: line)
    }
}
