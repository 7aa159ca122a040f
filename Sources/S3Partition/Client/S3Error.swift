import WIFCredentials
import WIFFoundation

/// An error raised by S3Partition: an error S3 answered with, or a failure on this side (a refused
/// name, a broken connection, a download that failed verification, a local file that could not be
/// read, a pre-flight policy denial).
///
/// Errors compare equal by ``code`` alone, so tests and callers can write
/// `error == S3Error(code: .noSuchKey)` or switch on the code:
///
/// ```swift
/// do {
///     try await bucket.get("photos/cat.jpg", toFile: "cat.jpg")
/// } catch let error as S3Error {
///     switch error.code {
///     case .noSuchKey: print("no such file")
///     case .accessDenied, .preflightDenied: print("not allowed")
///     case .network: print("S3 could not be reached")
///     default: print(error)
///     }
/// }
/// ```
///
/// Nothing secret appears in an error: no credentials, signatures or session tokens. Object keys and
/// bucket names do appear; they are not secrets.
public struct S3Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    ///
    /// Service errors carry S3's own `Code` text (``rawValue`` is `NoSuchKey`, `AccessDenied`, …); codes
    /// S3 may add later are kept as they are, so the set is open. Failures on this side have codes of
    /// their own (``network``, ``invalidObjectName``, …) that S3 never sends.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code as S3 writes it, such as `NoSuchKey`.
        public let rawValue: String

        /// Creates a code from its text.
        /// - Parameter rawValue: The code, such as `NoSuchKey`.
        public init(_ rawValue: String) {
            self.rawValue = rawValue
        }

        /// The code's text.
        public var description: String { self.rawValue }

        // MARK: Codes S3 answers with

        /// The object does not exist (also given to a `404` without an error document on an object).
        public static let noSuchKey = Code("NoSuchKey")
        /// The bucket does not exist.
        public static let noSuchBucket = Code("NoSuchBucket")
        /// The multipart upload does not exist: it was completed or aborted.
        public static let noSuchUpload = Code("NoSuchUpload")
        /// The caller is not allowed to do this (also given to a `403` without an error document).
        public static let accessDenied = Code("AccessDenied")
        /// A `404` without an error document on a request that is not about one object.
        public static let notFound = Code("NotFound")
        /// The access key id is unknown to S3.
        public static let invalidAccessKeyId = Code("InvalidAccessKeyId")
        /// The session token has expired.
        public static let expiredToken = Code("ExpiredToken")
        /// The session token is malformed or invalid.
        public static let invalidToken = Code("InvalidToken")
        /// The signature does not match: a wrong secret, or a request changed after signing.
        public static let signatureDoesNotMatch = Code("SignatureDoesNotMatch")
        /// The request's time is too far from S3's clock.
        public static let requestTimeTooSkewed = Code("RequestTimeTooSkewed")
        /// S3 asks the caller to slow down.
        public static let slowDown = Code("SlowDown")
        /// S3 failed internally; retrying may succeed.
        public static let internalError = Code("InternalError")
        /// S3 is unavailable for now.
        public static let serviceUnavailable = Code("ServiceUnavailable")
        /// The body did not match its `Content-MD5`.
        public static let badDigest = Code("BadDigest")
        /// The body did not match its `x-amz-checksum-*` header.
        public static let invalidChecksum = Code("XAmzContentChecksumMismatch")
        /// The body did not match its signed SHA-256.
        public static let contentSHA256Mismatch = Code("XAmzContentSHA256Mismatch")
        /// A condition (`If-Match`) failed: the object changed.
        public static let preconditionFailed = Code("PreconditionFailed")
        /// The requested range is outside the object.
        public static let invalidRange = Code("InvalidRange")
        /// A part of a multipart upload is smaller than S3's minimum (5 MiB, except the last).
        public static let entityTooSmall = Code("EntityTooSmall")
        /// The object or part is larger than S3 allows.
        public static let entityTooLarge = Code("EntityTooLarge")
        /// A part listed when completing a multipart upload was not found or its ETag differs.
        public static let invalidPart = Code("InvalidPart")
        /// The key is longer than S3 allows.
        public static let keyTooLong = Code("KeyTooLongError")
        /// The bucket name is not valid.
        public static let invalidBucketName = Code("InvalidBucketName")
        /// A parameter is not valid.
        public static let invalidArgument = Code("InvalidArgument")
        /// The bucket lives in another region or behind another endpoint.
        public static let permanentRedirect = Code("PermanentRedirect")

        // MARK: Codes of failures on this side

        /// S3 could not be reached, or the connection broke before the answer was complete.
        public static let network = Code("NetworkError")
        /// S3 answered with something that is not the expected document.
        public static let malformedResponse = Code("MalformedResponse")
        /// A downloaded object did not match its length, ETag or checksum; nothing was written.
        public static let integrityCheckFailed = Code("IntegrityCheckFailed")
        /// Credentials could not be had from the credential provider; see
        /// ``S3Error/credentialsError``.
        public static let credentialsUnavailable = Code("CredentialsUnavailable")
        /// A local file could not be read or written.
        public static let fileError = Code("LocalFileError")
        /// A configuration value (region, endpoint, part size, …) is unusable.
        public static let invalidConfiguration = Code("InvalidConfiguration")
        /// An object name was refused before sending anything; see ``S3Error/nameRule``.
        public static let invalidObjectName = Code("InvalidObjectName")
        /// A user id cannot make a partition prefix; see ``S3Error/nameRule``.
        public static let invalidUserId = Code("InvalidUserId")
        /// A partition prefix template is unusable; see ``S3Error/nameRule``.
        public static let invalidPrefixTemplate = Code("InvalidPrefixTemplate")
        /// The local policy check denied the request before it was sent; see
        /// ``S3Error/preflightDenial``.
        public static let preflightDenied = Code("PreflightDenied")
    }

    /// What kind of failure this is.
    public let code: Code
    /// A human-readable explanation: S3's `Message` for service errors, else what went wrong here.
    public let message: String
    /// The HTTP status S3 answered with; `nil` for failures on this side.
    public let httpStatus: Int?
    /// The `RequestId` S3 assigned (from the error document or the `x-amz-request-id` header).
    public let requestId: String?
    /// S3's extended request id (`HostId`, `x-amz-id-2`).
    public let hostId: String?
    /// The bucket the request was about, if any.
    public let bucket: String?
    /// The object key the request was about, if any.
    public let key: String?
    /// The name rule that was broken, for ``Code/invalidObjectName``, ``Code/invalidUserId`` and
    /// ``Code/invalidPrefixTemplate``.
    public let nameRule: NameRule?
    /// The policy decision and its explanation, for ``Code/preflightDenied``.
    public let preflightDenial: PreflightDenial?
    /// The credential provider's error, for ``Code/credentialsUnavailable``.
    public let credentialsError: WIFCredentialsError?
    /// The source file that raised the error.
    public let file: String
    /// The line that raised the error.
    public let line: UInt

    /// Creates an error.
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - message: A human-readable explanation; must not contain secrets.
    ///   - httpStatus: The HTTP status, for service errors.
    ///   - requestId: S3's request id.
    ///   - hostId: S3's extended request id.
    ///   - bucket: The bucket concerned.
    ///   - key: The key concerned.
    ///   - nameRule: The name rule broken, for name errors.
    ///   - preflightDenial: The denial, for pre-flight errors.
    ///   - credentialsError: The provider's error, for credential errors.
    public init(
        code: Code,
        message: String = "",
        httpStatus: Int? = nil,
        requestId: String? = nil,
        hostId: String? = nil,
        bucket: String? = nil,
        key: String? = nil,
        nameRule: NameRule? = nil,
        preflightDenial: PreflightDenial? = nil,
        credentialsError: WIFCredentialsError? = nil,
        file: String = #fileID,
        line: UInt = #line
    ) {
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
        self.requestId = requestId
        self.hostId = hostId
        self.bucket = bucket
        self.key = key
        self.nameRule = nameRule
        self.preflightDenial = preflightDenial
        self.credentialsError = credentialsError
        self.file = file
        self.line = line
    }

    /// Compares by ``code`` alone.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    /// Hashes the ``code``.
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }

    /// Whether S3 answered with this error (as opposed to a failure on this side).
    public var isServiceError: Bool { self.httpStatus != nil }

    /// For example `S3Error.NoSuchKey: The specified key does not exist. (HTTP 404, bucket 'b', key 'k', request id 4442587FB7D0A2F9)`.
    public var description: String {
        var text = "S3Error.\(self.code)"
        if !self.message.isEmpty { text += ": " + self.message }
        var details: [String] = []
        if let httpStatus { details.append("HTTP \(httpStatus)") }
        if let bucket { details.append("bucket '\(bucket)'") }
        if let key { details.append("key '\(PrintableText.escaping(key))'") }
        if let requestId, !requestId.isEmpty { details.append("request id \(requestId)") }
        if !details.isEmpty { text += " (" + details.joined(separator: ", ") + ")" }
        return text
    }
}

// MARK: - Factories

extension S3Error {
    static func network(_ message: String, bucket: String? = nil, key: String? = nil, file: String = #fileID, line: UInt = #line) -> S3Error {
        S3Error(code: .network, message: message, bucket: bucket, key: key, file: file, line: line)
    }

    static func malformedResponse(
        _ message: String, status: Int? = nil, requestId: String? = nil, bucket: String? = nil, key: String? = nil,
        file: String = #fileID, line: UInt = #line
    ) -> S3Error {
        S3Error(
            code: .malformedResponse, message: message, httpStatus: status, requestId: requestId, bucket: bucket, key: key,
            file: file, line: line)
    }

    static func integrity(_ message: String, bucket: String?, key: String?, file: String = #fileID, line: UInt = #line) -> S3Error {
        S3Error(code: .integrityCheckFailed, message: message, bucket: bucket, key: key, file: file, line: line)
    }

    static func fileError(_ message: String, file: String = #fileID, line: UInt = #line) -> S3Error {
        S3Error(code: .fileError, message: message, file: file, line: line)
    }

    static func invalidConfiguration(_ message: String, file: String = #fileID, line: UInt = #line) -> S3Error {
        S3Error(code: .invalidConfiguration, message: message, file: file, line: line)
    }

    static func invalidArgument(_ message: String, bucket: String? = nil, key: String? = nil, file: String = #fileID, line: UInt = #line) -> S3Error {
        S3Error(code: .invalidArgument, message: message, bucket: bucket, key: key, file: file, line: line)
    }
}
