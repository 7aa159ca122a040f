/// An error raised by WIFCredentials.
///
/// Errors compare equal by ``code`` alone, so tests can build the expected error with a static factory
/// and compare. The ``reason`` says in words what went wrong and never contains a secret.
public struct WIFCredentialsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. Open-ended: new codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        enum Base: String, Sendable, Hashable {
            case invalidParameter
            case invalidConfiguration
            case noCredentials
            case tokenUnavailable
            case tokenExpired
            case malformedResponse
            case service
            case network
            case profileParse
            case signing
            case oauth
            case signInRequired
            case authorizationFailed
            case invalidIDToken
            case storeWrongKey
            case storeDamaged
            case storeTruncated
            case storeNewerVersion
            case notAStore
            case storeIO
        }

        let base: Base

        /// A request parameter is outside its bounds (role ARN, session name, duration, policy, …).
        public static let invalidParameter = Code(base: .invalidParameter)
        /// A configuration value (environment, profile, endpoint) is unusable.
        public static let invalidConfiguration = Code(base: .invalidConfiguration)
        /// No provider in a chain could supply credentials.
        public static let noCredentials = Code(base: .noCredentials)
        /// The web-identity token could not be read (missing file, too large, not UTF-8, …).
        public static let tokenUnavailable = Code(base: .tokenUnavailable)
        /// The web-identity token's `exp` is in the past.
        public static let tokenExpired = Code(base: .tokenExpired)
        /// A service answered with something that is not the expected document.
        public static let malformedResponse = Code(base: .malformedResponse)
        /// A service answered with an error document; see ``WIFCredentialsError/serviceError``.
        public static let service = Code(base: .service)
        /// The request could not be sent or its answer could not be read.
        public static let network = Code(base: .network)
        /// A shared config or credentials file could not be parsed.
        public static let profileParse = Code(base: .profileParse)
        /// A request could not be signed (for example a URL without a host).
        public static let signing = Code(base: .signing)
        /// An OAuth 2.0 / OpenID Connect issuer refused a request; see ``WIFCredentialsError/oauthError``.
        public static let oauth = Code(base: .oauth)
        /// The sign-in can no longer be renewed (the refresh token was rejected, revoked or is missing):
        /// the user must sign in again.
        public static let signInRequired = Code(base: .signInRequired)
        /// A browser or device sign-in did not complete: a redirect that does not match the request,
        /// no answer in time, or a sign-in denied by the user.
        public static let authorizationFailed = Code(base: .authorizationFailed)
        /// An ID token failed verification: signature, `iss`, `aud`, `exp` or `nonce`.
        public static let invalidIDToken = Code(base: .invalidIDToken)

        public var description: String { self.base.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A human-readable explanation, free of secrets.
    public let reason: String
    /// The error document a service answered with, for ``Code/service`` errors.
    public let serviceError: AWSServiceError?
    /// The error an OAuth 2.0 issuer answered with, for ``Code/oauth`` errors (and the refusal behind
    /// a ``Code/signInRequired`` error).
    public let oauthError: OAuth2ErrorResponse?
    /// The source file that raised the error.
    public let file: String
    /// The line that raised the error.
    public let line: UInt

    /// Creates an error.
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - reason: A human-readable explanation; must not contain secrets.
    ///   - serviceError: The service's error document, if any.
    ///   - oauthError: The OAuth 2.0 error an issuer answered with, if any.
    public init(
        code: Code,
        reason: String,
        serviceError: AWSServiceError? = nil,
        oauthError: OAuth2ErrorResponse? = nil,
        file: String = #fileID,
        line: UInt = #line
    ) {
        self.code = code
        self.reason = reason
        self.serviceError = serviceError
        self.oauthError = oauthError
        self.file = file
        self.line = line
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }

    public var description: String { "WIFCredentialsError.\(self.code): \(self.reason)" }

    public static func invalidParameter(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .invalidParameter, reason: reason, file: file, line: line)
    }

    public static func invalidConfiguration(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .invalidConfiguration, reason: reason, file: file, line: line)
    }

    public static func noCredentials(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .noCredentials, reason: reason, file: file, line: line)
    }

    public static func tokenUnavailable(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .tokenUnavailable, reason: reason, file: file, line: line)
    }

    public static func tokenExpired(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .tokenExpired, reason: reason, file: file, line: line)
    }

    public static func malformedResponse(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .malformedResponse, reason: reason, file: file, line: line)
    }

    public static func network(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .network, reason: reason, file: file, line: line)
    }

    public static func profileParse(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .profileParse, reason: reason, file: file, line: line)
    }

    public static func signing(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .signing, reason: reason, file: file, line: line)
    }

    public static func service(_ error: AWSServiceError, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .service, reason: error.description, serviceError: error, file: file, line: line)
    }

    /// An issuer's OAuth 2.0 error answer, with what the client was doing.
    public static func oauth(_ reason: String, error: OAuth2ErrorResponse? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .oauth, reason: reason, oauthError: error, file: file, line: line)
    }

    /// The sign-in cannot be renewed; `reason` should say why and to sign in again.
    public static func signInRequired(_ reason: String, error: OAuth2ErrorResponse? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .signInRequired, reason: reason, oauthError: error, file: file, line: line)
    }

    /// A browser or device sign-in did not complete.
    public static func authorizationFailed(_ reason: String, error: OAuth2ErrorResponse? = nil, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .authorizationFailed, reason: reason, oauthError: error, file: file, line: line)
    }

    /// An ID token failed verification; `reason` names the check.
    public static func invalidIDToken(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .invalidIDToken, reason: reason, file: file, line: line)
    }
}

/// An error document returned by an AWS service (STS's `ErrorResponse`, S3's `Error`).
public struct AWSServiceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The service's error code, such as `InvalidIdentityToken` or `AccessDenied`.
    public var code: String
    /// The service's message, if any.
    public var message: String?
    /// `Sender` or `Receiver`, for query-API services.
    public var type: String?
    /// The request id the service assigned.
    public var requestId: String?
    /// The HTTP status of the answer.
    public var httpStatus: Int

    /// Creates a service error.
    public init(code: String, message: String? = nil, type: String? = nil, requestId: String? = nil, httpStatus: Int) {
        self.code = code
        self.message = message
        self.type = type
        self.requestId = requestId
        self.httpStatus = httpStatus
    }

    public var description: String {
        var text = "\(self.code) (HTTP \(self.httpStatus))"
        if let message, !message.isEmpty { text += ": \(message)" }
        if let requestId { text += " [request id \(requestId)]" }
        return text
    }
}

extension WIFCredentialsError {
    /// The signing failure as a WIFCredentials error with code `signing`, for callers that report
    /// every credentials problem through one type.
    /// - Parameter error: The signing error.
    public init(_ error: SigV4Error) {
        self.init(code: .signing, reason: error.reason, file: error.file, line: error.line)
    }
}
