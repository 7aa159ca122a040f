import S3Partition
import WIFCredentials

/// An error raised while setting up an engine: a refusal from its IAM API, a problem with the set-up's
/// settings or the issuer, or a failure on this side (a network error, a file that cannot be written).
///
/// Errors compare equal by ``code`` alone, so tests and callers can write
/// `error == EngineSetupError(code: .entityAlreadyExists)` or switch on the code. A refusal keeps the
/// engine's own code text (`EntityAlreadyExists`, `MalformedPolicyDocument`, …), so the set of codes is
/// open. Where the set-up went through the S3 client (creating the bucket, checking a name), the
/// client's error is kept in ``s3Error`` and its code is this error's code.
///
/// Nothing secret appears in an error: no credentials, signatures, session tokens or signing keys.
public struct EngineSetupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code as the engine writes it, such as `EntityAlreadyExists`.
        public let rawValue: String

        /// Creates a code from its text.
        /// - Parameter rawValue: The code, such as `NoSuchEntity`.
        public init(_ rawValue: String) {
            self.rawValue = rawValue
        }

        /// The code's text.
        public var description: String { self.rawValue }

        // MARK: Codes an engine's IAM API answers with

        /// The role, policy or provider to create exists already.
        public static let entityAlreadyExists = Code("EntityAlreadyExists")
        /// The role, policy or provider does not exist.
        public static let noSuchEntity = Code("NoSuchEntity")
        /// A policy document was refused.
        public static let malformedPolicyDocument = Code("MalformedPolicyDocument")
        /// The administrator may not do this, or (on Ceph RGW) their secret is wrong.
        public static let accessDenied = Code("AccessDenied")
        /// The access key id is unknown to the engine.
        public static let invalidAccessKeyId = Code("InvalidAccessKeyId")
        /// The signature does not match: a wrong secret.
        public static let signatureDoesNotMatch = Code("SignatureDoesNotMatch")
        /// The bucket name is taken by another owner.
        public static let bucketAlreadyExists = Code("BucketAlreadyExists")
        /// The engine failed internally; retrying may succeed.
        public static let internalError = Code("InternalError")

        // MARK: Codes of failures on this side

        /// A setting of the set-up (endpoint, plan, IAM config) is unusable; the reason names it.
        public static let invalidConfiguration = Code("InvalidConfiguration")
        /// A user id cannot name a folder in a policy.
        public static let invalidUserId = Code("InvalidUserId")
        /// An OpenID Connect issuer's discovery document or keys cannot be read, or are not what the
        /// engine needs.
        public static let invalidIssuer = Code("InvalidIssuer")
        /// The engine or the issuer could not be reached, or the connection broke.
        public static let network = Code("NetworkError")
        /// The engine answered with something that is not the expected document.
        public static let malformedResponse = Code("MalformedResponse")
        /// The administrator's credentials could not be had or used; see
        /// ``EngineSetupError/credentialsError``.
        public static let credentialsUnavailable = Code("CredentialsUnavailable")
        /// A local file (an IAM config) could not be read or written.
        public static let fileError = Code("LocalFileError")
    }

    /// What kind of failure this is.
    public let code: Code
    /// A human-readable explanation: what was refused or went wrong, and what to check.
    public let reason: String
    /// The HTTP status the engine answered with; `nil` for failures on this side.
    public let httpStatus: Int?
    /// The request id the engine assigned, if any.
    public let requestId: String?
    /// The S3 client's error, when the set-up failed in a call to S3.
    public let s3Error: S3Error?
    /// The credential provider's error, for ``Code/credentialsUnavailable``.
    public let credentialsError: WIFCredentialsError?
    /// The source file that raised the error.
    public let file: String
    /// The line that raised the error.
    public let line: UInt

    /// Creates an error.
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - reason: A human-readable explanation; must not contain secrets.
    ///   - httpStatus: The HTTP status, for the engine's refusals.
    ///   - requestId: The engine's request id.
    ///   - s3Error: The S3 client's error, if the failure came from it.
    ///   - credentialsError: The provider's error, for credential failures.
    public init(
        code: Code,
        reason: String = "",
        httpStatus: Int? = nil,
        requestId: String? = nil,
        s3Error: S3Error? = nil,
        credentialsError: WIFCredentialsError? = nil,
        file: String = #fileID,
        line: UInt = #line
    ) {
        self.code = code
        self.reason = reason
        self.httpStatus = httpStatus
        self.requestId = requestId
        self.s3Error = s3Error
        self.credentialsError = credentialsError
        self.file = file
        self.line = line
    }

    /// The error for a failed call to S3, with the S3 client's code, message, status and request id.
    /// - Parameter error: The S3 client's error.
    public init(_ error: S3Error, file: String = #fileID, line: UInt = #line) {
        self.init(
            code: Code(error.code.rawValue), reason: error.message, httpStatus: error.httpStatus, requestId: error.requestId,
            s3Error: error, credentialsError: error.credentialsError, file: file, line: line)
    }

    /// Compares by ``code`` alone.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    /// Hashes the ``code``.
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }

    /// For example `EngineSetupError.EntityAlreadyExists: the gateway refused IAM CreateRole (HTTP 409, request id tx0001)`.
    public var description: String {
        var text = "EngineSetupError.\(self.code)"
        if !self.reason.isEmpty { text += ": " + self.reason }
        var details: [String] = []
        if let httpStatus { details.append("HTTP \(httpStatus)") }
        if let requestId, !requestId.isEmpty { details.append("request id \(requestId)") }
        if !details.isEmpty { text += " (" + details.joined(separator: ", ") + ")" }
        return text
    }
}

// MARK: - Factories

extension EngineSetupError {
    static func invalidConfiguration(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .invalidConfiguration, reason: reason, file: file, line: line)
    }

    static func invalidIssuer(_ reason: String, httpStatus: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .invalidIssuer, reason: reason, httpStatus: httpStatus, file: file, line: line)
    }

    static func network(_ reason: String, httpStatus: Int? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .network, reason: reason, httpStatus: httpStatus, file: file, line: line)
    }

    static func fileError(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .fileError, reason: reason, file: file, line: line)
    }
}
