import S3Partition
import WIFCredentials

/// An error of the file store: a code a caller can act on, a one-line message for the user, and, where
/// a service or a lower layer raised it, that error and the service's request id.
///
/// Messages never contain a token, a secret key or a session token. Two errors are equal when their
/// codes are, so tests can build the error they expect.
public struct FileStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case invalidSetting, signInRequired, invalidToken, keyUnavailable, storeDamaged, fileError, noSuchFile
            case unreachable, unknownSubject, folderRefused, credentials, failure
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// A flag, variable, config-file line or argument is malformed or conflicts with another.
        public static let invalidSetting = Code(.invalidSetting)
        /// Nobody is signed in, or the sign-in cannot be used here; signing in again helps.
        public static let signInRequired = Code(.signInRequired)
        /// The web-identity token cannot be used (an empty token file).
        public static let invalidToken = Code(.invalidToken)
        /// The encrypted store's passphrase or key file is wrong, or no passphrase can be had.
        public static let keyUnavailable = Code(.keyUnavailable)
        /// The encrypted store or a sign-in in it is damaged, truncated, not a store, or from a newer
        /// version; it is left untouched.
        public static let storeDamaged = Code(.storeDamaged)
        /// A local file or folder cannot be read, written or created.
        public static let fileError = Code(.fileError)
        /// No file of that name is in the user's folder.
        public static let noSuchFile = Code(.noSuchFile)
        /// A service cannot be reached, or reported an unusable address.
        public static let unreachable = Code(.unreachable)
        /// STS did not say whose token it federated, so the user's folder is unknown.
        public static let unknownSubject = Code(.unknownSubject)
        /// The federated identity cannot have a folder under the partition template (see ``FileStoreError/s3Error``).
        public static let folderRefused = Code(.folderRefused)
        /// A credentials error the store could not explain further (see ``FileStoreError/credentialsError``).
        public static let credentials = Code(.credentials)
        /// Anything else.
        public static let failure = Code(.failure)

        /// The code's name, such as `signInRequired`.
        public var description: String { self.value.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// One line for the user, free of secrets.
    public let message: String
    /// The service's request id, when a service answer caused the error.
    public let requestId: String?
    /// The S3Partition error behind a ``Code/folderRefused``.
    public let s3Error: S3Error?
    /// The credentials error behind a ``Code/credentials``.
    public let credentialsError: WIFCredentialsError?

    /// Creates an error.
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - message: One line for the user; never a secret.
    ///   - requestId: The service's request id, if any.
    ///   - s3Error: The S3Partition error behind it, if any.
    ///   - credentialsError: The credentials error behind it, if any.
    public init(
        _ code: Code, _ message: String, requestId: String? = nil, s3Error: S3Error? = nil, credentialsError: WIFCredentialsError? = nil
    ) {
        self.code = code
        self.message = message
        self.requestId = requestId
        self.s3Error = s3Error
        self.credentialsError = credentialsError
    }

    /// The message.
    public var description: String { self.message }

    /// Compares codes only.
    public static func == (lhs: FileStoreError, rhs: FileStoreError) -> Bool { lhs.code == rhs.code }

    static func invalidSetting(_ message: String) -> FileStoreError { FileStoreError(.invalidSetting, message) }
    static func signInRequired(_ message: String) -> FileStoreError { FileStoreError(.signInRequired, message) }
    static func fileError(_ message: String) -> FileStoreError { FileStoreError(.fileError, message) }
    static func storeDamaged(_ message: String) -> FileStoreError { FileStoreError(.storeDamaged, message) }
}
