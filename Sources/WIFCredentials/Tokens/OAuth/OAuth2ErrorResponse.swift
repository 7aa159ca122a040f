import Foundation

/// An error answer of an OAuth 2.0 issuer: `error`, `error_description` and `error_uri` from the token
/// endpoint's JSON (RFC 6749 §5.2), a redirect's query (§4.1.2.1), the device flow (RFC 8628 §3.5) or
/// the revocation endpoint (RFC 7009 §2.2.1).
///
/// The description is the issuer's text, cut to a readable length, with control characters removed and
/// any token the client sent replaced by `<redacted>`.
public struct OAuth2ErrorResponse: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error code, such as `invalid_grant`, `access_denied` or `authorization_pending`.
    public var error: String
    /// The issuer's human-readable explanation, if any.
    public var errorDescription: String?
    /// A page about the error, if the issuer gave one.
    public var errorURI: String?
    /// The HTTP status of the answer; `nil` for an error delivered in a redirect.
    public var httpStatus: Int?

    /// Creates an error answer.
    /// - Parameters:
    ///   - error: The error code.
    ///   - errorDescription: The issuer's explanation.
    ///   - errorURI: A page about the error.
    ///   - httpStatus: The HTTP status, or `nil` for a redirect.
    public init(error: String, errorDescription: String? = nil, errorURI: String? = nil, httpStatus: Int? = nil) {
        self.error = error
        self.errorDescription = errorDescription
        self.errorURI = errorURI
        self.httpStatus = httpStatus
    }

    /// The code, the status and the explanation, for example
    /// `invalid_grant (HTTP 400): refresh token already used`.
    public var description: String {
        var text = self.error
        if let httpStatus { text += " (HTTP \(httpStatus))" }
        if let errorDescription, !errorDescription.isEmpty { text += ": \(errorDescription)" }
        return text
    }

    /// The longest explanation kept from an issuer's answer.
    static let maximumDescriptionLength = 300

    /// Reads an error from parameters (a JSON object's string members or a redirect's query).
    /// - Parameters:
    ///   - parameters: The answer's parameters.
    ///   - httpStatus: The HTTP status, or `nil` for a redirect.
    ///   - secrets: Strings that must not be quoted (tokens the client sent).
    /// - Returns: The error, or `nil` when there is no `error` parameter.
    static func from(_ parameters: [String: String], httpStatus: Int?, redacting secrets: [String]) -> OAuth2ErrorResponse? {
        guard let code = parameters["error"].map({ Self.clean($0, secrets: secrets, limit: 64) }), !code.isEmpty else {
            return nil
        }
        return OAuth2ErrorResponse(
            error: code,
            errorDescription: parameters["error_description"].map { Self.clean($0, secrets: secrets, limit: Self.maximumDescriptionLength) },
            errorURI: parameters["error_uri"].map { Self.clean($0, secrets: secrets, limit: 200) },
            httpStatus: httpStatus
        )
    }

    /// Removes secrets and control characters and shortens issuer-supplied text.
    static func clean(_ text: String, secrets: [String], limit: Int) -> String {
        var result = text
        for secret in secrets where secret.utf8.count >= 4 {
            result = result.replacingOccurrences(of: secret, with: "<redacted>")
        }
        var cleaned = ""
        for scalar in result.unicodeScalars {
            if cleaned.unicodeScalars.count >= limit {
                cleaned += "…"
                break
            }
            let isControl = scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
            cleaned.unicodeScalars.append(isControl ? " " : scalar)
        }
        return cleaned
    }
}
