import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A refused or failed request, answered with its HTTP status and a JSON body
/// `{"error": CODE, "message": TEXT}` (plus `rule` for a refused name, `requestId` for an AWS failure).
///
/// Messages never contain the caller's token or any credentials.
public struct FileServerError: HTTPResponseError, Sendable, Hashable, CustomStringConvertible {
    /// What kind of refusal or failure this is.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case unauthorized = "Unauthorized"
            case invalidName = "InvalidName"
            case invalidRequest = "InvalidRequest"
            case accessDenied = "AccessDenied"
            case noSuchFile = "NoSuchFile"
            case tooLarge = "TooLarge"
            case upstreamFailure = "UpstreamFailure"
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// No usable bearer token, or the identity provider's token was refused (401).
        public static let unauthorized = Code(.unauthorized)
        /// The file name breaks a naming rule (400).
        public static let invalidName = Code(.invalidName)
        /// A header or parameter is malformed (400).
        public static let invalidRequest = Code(.invalidRequest)
        /// The identity may not assume the role, or the role may not touch the object (403).
        public static let accessDenied = Code(.accessDenied)
        /// No file of that name in the caller's folder (404).
        public static let noSuchFile = Code(.noSuchFile)
        /// The upload is larger than the server accepts (413).
        public static let tooLarge = Code(.tooLarge)
        /// STS or S3 failed or could not be reached (502).
        public static let upstreamFailure = Code(.upstreamFailure)

        /// The code as it appears in the JSON body, such as `Unauthorized`.
        public var description: String { self.base.rawValue }
    }

    /// What kind of refusal or failure this is.
    public let code: Code
    /// The HTTP status of the answer.
    public let status: HTTPResponse.Status
    /// What was wrong, for the caller.
    public let message: String
    /// The naming rule a refused name broke, for ``Code/invalidName``.
    public let rule: String?
    /// The request id of the AWS answer behind the failure, if any.
    public let requestId: String?

    /// Creates an error.
    /// - Parameters:
    ///   - code: What kind of refusal or failure this is.
    ///   - status: The HTTP status to answer with.
    ///   - message: What was wrong; must not contain secrets.
    ///   - rule: The naming rule broken, for refused names.
    ///   - requestId: The AWS request id behind the failure.
    public init(code: Code, status: HTTPResponse.Status, message: String, rule: String? = nil, requestId: String? = nil) {
        self.code = code
        self.status = status
        self.message = message
        self.rule = rule
        self.requestId = requestId
    }

    /// Compares by ``code`` alone, so tests can build the expected error.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    /// Hashes the ``code``.
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }

    /// For example `FileServerError.Unauthorized (401): the Authorization header is missing`.
    public var description: String { "FileServerError.\(self.code) (\(self.status.code)): \(self.message)" }

    /// The JSON body of the answer.
    public struct Body: Codable, Sendable, Hashable {
        /// The ``Code``, such as `Unauthorized`.
        public var error: String
        /// What was wrong.
        public var message: String
        /// The naming rule a refused name broke.
        public var rule: String?
        /// The AWS request id behind the failure.
        public var requestId: String?
    }

    /// Builds the answer: the status, a JSON body, and `WWW-Authenticate: Bearer` on a `401`.
    /// - Parameters:
    ///   - request: The request that failed.
    ///   - context: Its context.
    /// - Returns: The response.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = Body(error: self.code.description, message: self.message, rule: self.rule, requestId: self.requestId)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(body)
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if self.status == .unauthorized {
            headers[.wwwAuthenticate] = "Bearer"
        }
        return Response(status: self.status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension FileServerError {
    static func unauthorized(_ message: String, requestId: String? = nil) -> Self {
        Self(code: .unauthorized, status: .unauthorized, message: message, requestId: requestId)
    }

    static func invalidName(_ message: String, rule: String?) -> Self {
        Self(code: .invalidName, status: .badRequest, message: message, rule: rule)
    }

    static func invalidRequest(_ message: String) -> Self {
        Self(code: .invalidRequest, status: .badRequest, message: message)
    }

    static func accessDenied(_ message: String, requestId: String? = nil) -> Self {
        Self(code: .accessDenied, status: .forbidden, message: message, requestId: requestId)
    }

    static func noSuchFile(_ name: String?) -> Self {
        Self(code: .noSuchFile, status: .notFound, message: name.map { "there is no file named '\($0)' in your folder" } ?? "no such file in your folder")
    }

    static func noSuchNote(_ id: String) -> Self {
        Self(code: .noSuchFile, status: .notFound, message: "there is no note with id '\(id)'")
    }

    static func tooLarge(limit: Int64) -> Self {
        Self(code: .tooLarge, status: .contentTooLarge, message: "the upload is larger than the \(limit) bytes this server accepts")
    }

    static func upstreamFailure(_ message: String, requestId: String? = nil) -> Self {
        Self(code: .upstreamFailure, status: .badGateway, message: message, requestId: requestId)
    }
}
