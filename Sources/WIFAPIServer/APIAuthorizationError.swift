public import AccessRules
import Foundation
public import HTTPTypes
public import Hummingbird
import WIFFoundation

/// Why an API request was refused, as the API answers it: 401 `UnauthorizedException` for missing or
/// bad credentials of the mode used, 403 `ForbiddenException` (or `ConditionalCheckFailedException`)
/// when the credentials are good but a policy or an access rule refuses.
///
/// The body is `{"errorType": …, "message": …, "rule": …}`. Messages name what was wrong, never a token,
/// key or signature.
public struct APIAuthorizationError: Error, Sendable, Hashable, CustomStringConvertible, HTTPResponseError {
    /// The HTTP status: 401 or 403.
    public var status: HTTPResponse.Status
    /// `UnauthorizedException`, `ForbiddenException` or `ConditionalCheckFailedException`.
    public var errorType: String
    /// What was wrong.
    public var message: String
    /// The access rule that refused, when one did.
    public var rule: String?
    /// The mode the refused request used, when it was known.
    public var mode: APIAuthorizationMode?

    /// Creates an error.
    public init(status: HTTPResponse.Status, errorType: String, message: String, rule: String? = nil, mode: APIAuthorizationMode? = nil) {
        self.status = status
        self.errorType = errorType
        self.message = message
        self.rule = rule
        self.mode = mode
    }

    /// Missing or bad credentials: 401 `UnauthorizedException`.
    /// - Parameters:
    ///   - message: What was wrong.
    ///   - mode: The mode of the credentials.
    public static func unauthorized(_ message: String, mode: APIAuthorizationMode? = nil) -> APIAuthorizationError {
        APIAuthorizationError(status: .unauthorized, errorType: "UnauthorizedException", message: message, mode: mode)
    }

    /// Good credentials that may not do this: 403 `ForbiddenException`.
    /// - Parameters:
    ///   - message: Why not.
    ///   - rule: The refusing rule, if any.
    ///   - mode: The mode used.
    public static func forbidden(_ message: String, rule: String? = nil, mode: APIAuthorizationMode? = nil) -> APIAuthorizationError {
        APIAuthorizationError(status: .forbidden, errorType: "ForbiddenException", message: message, rule: rule, mode: mode)
    }

    /// The response body.
    public var body: String {
        var members = ["\"errorType\":\(JSONWriter.quoted(self.errorType))", "\"message\":\(JSONWriter.quoted(self.message))"]
        if let rule = self.rule { members.append("\"rule\":\(JSONWriter.quoted(rule))") }
        return "{\(members.joined(separator: ","))}"
    }

    /// The error as an HTTP response, with `x-amzn-ErrorType` as AWS's APIs send it.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        self.response
    }

    /// The error as an HTTP response.
    public var response: Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[Self.errorTypeHeader] = self.errorType
        return Response(status: self.status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: self.body)))
    }

    /// `x-amzn-ErrorType`.
    public static let errorTypeHeader = HTTPField.Name("x-amzn-ErrorType")!

    /// `401 UnauthorizedException: message`.
    public var description: String { "\(self.status.code) \(self.errorType): \(self.message)" }
}
