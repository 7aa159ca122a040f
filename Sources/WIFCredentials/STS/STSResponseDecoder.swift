import Foundation
import WIFFoundation
import WIFHTTP

/// Turns STS's answer into a result or an error.
///
/// Success is an `AssumeRoleWithWebIdentityResponse` document with a 2xx status. Errors come in two
/// shapes, both read: `<ErrorResponse><Error>…</Error><RequestId>…</RequestId></ErrorResponse>` (AWS)
/// and `<ErrorResponse><Errors><Error>…</Error></Errors></ErrorResponse>` (some emulators' auth
/// errors). Anything else — an HTML page, an empty or truncated body — is `malformedResponse` with
/// the status and the start of the body, secrets removed.
package enum STSResponseDecoder {
    /// The namespace of STS's query-API documents.
    package static let namespace = "https://sts.amazonaws.com/doc/2011-06-15/"
    /// How much of an unreadable body an error message quotes.
    static let excerptLength = 240
    /// STS answers are four levels deep; anything much deeper is not one.
    static let xmlLimits = XMLReader.Limits(maximumDepth: 32, maximumElements: 10_000)

    /// Decodes an answer to `AssumeRoleWithWebIdentity`.
    /// - Parameters:
    ///   - response: The answer.
    ///   - roleArn: The role that was requested, for the account id.
    ///   - receivedAt: The local time the answer arrived, for clock skew.
    ///   - secrets: Strings that must not be quoted from the body (the token, encoded and not).
    /// - Returns: The result.
    /// - Throws: ``WIFCredentialsError`` with code `service` for an STS error document and
    ///   `malformedResponse` for anything unreadable.
    package static func decodeAssumeRoleWithWebIdentity(
        _ response: TransportResponse,
        roleArn: String,
        receivedAt: Date,
        redacting secrets: [String]
    ) throws(WIFCredentialsError) -> AssumeRoleWithWebIdentityResult {
        let root = try Self.document(response, redacting: secrets)
        if root.name == "ErrorResponse" || root.name == "Error" {
            throw .service(try Self.serviceError(root, response: response, redacting: secrets))
        }
        guard root.name == "AssumeRoleWithWebIdentityResponse" else {
            throw .malformedResponse(
                "STS answered HTTP \(response.status) with an unexpected <\(root.name)> document: \(Self.excerpt(response.body, redacting: secrets))"
            )
        }
        guard (200..<300).contains(response.status) else {
            throw .malformedResponse(
                "STS answered HTTP \(response.status), an error status, with a success document"
            )
        }
        if let namespace = root.namespace, namespace != Self.namespace {
            throw .malformedResponse(
                "STS answered with namespace '\(namespace)'; expected '\(Self.namespace)'"
            )
        }
        guard let result = root.child("AssumeRoleWithWebIdentityResult") else {
            throw .malformedResponse("STS's answer has no <AssumeRoleWithWebIdentityResult> element")
        }
        return try Self.result(result, root: root, response: response, roleArn: roleArn, receivedAt: receivedAt)
    }

    private static func result(
        _ result: XMLTreeElement,
        root: XMLTreeElement,
        response: TransportResponse,
        roleArn: String,
        receivedAt: Date
    ) throws(WIFCredentialsError) -> AssumeRoleWithWebIdentityResult {
        guard let credentialsElement = result.child("Credentials") else {
            throw .malformedResponse("STS's answer has no <Credentials> element")
        }
        func required(_ name: String) throws(WIFCredentialsError) -> String {
            guard let value = credentialsElement.trimmedText(name) else {
                throw .malformedResponse("STS's answer has no <Credentials><\(name)> value")
            }
            return value
        }
        let accessKeyId = try required("AccessKeyId")
        let secretAccessKey = try required("SecretAccessKey")
        let sessionToken = try required("SessionToken")
        let expirationText = try required("Expiration")
        guard let serverExpiration = Self.parseISO8601(expirationText) else {
            throw .malformedResponse(
                "STS's <Expiration> '\(expirationText.prefix(64))' is not an ISO 8601 date such as 2026-01-01T00:00:00Z"
            )
        }

        var packedPolicySize: Int?
        if let text = result.trimmedText("PackedPolicySize") {
            guard let value = Int(text), value >= 0 else {
                throw .malformedResponse("STS's <PackedPolicySize> '\(text.prefix(32))' is not a non-negative integer")
            }
            packedPolicySize = value
        }

        var assumedRoleUser: AssumedRoleUser?
        if let arn = result.trimmedText("AssumedRoleUser", "Arn") {
            assumedRoleUser = AssumedRoleUser(arn: arn, assumedRoleId: result.trimmedText("AssumedRoleUser", "AssumedRoleId"))
        }

        let clockSkew = response.header("Date").flatMap(HTTPDate.parse).map { $0.timeIntervalSince(receivedAt) }
        let localExpiration = serverExpiration.addingTimeInterval(-(clockSkew ?? 0))
        // The assumed-role ARN names the account that issued the session; the requested role ARN is
        // the fallback for servers that leave it out.
        let accountId =
            assumedRoleUser.flatMap { ARNFields($0.arn)?.awsAccountId } ?? ARNFields(roleArn)?.awsAccountId

        return AssumeRoleWithWebIdentityResult(
            credentials: AWSCredentials(
                accessKeyId: accessKeyId,
                secretAccessKey: secretAccessKey,
                sessionToken: sessionToken,
                expiration: localExpiration,
                accountId: accountId
            ),
            serverExpiration: serverExpiration,
            clockSkew: clockSkew,
            subjectFromWebIdentityToken: result.trimmedText("SubjectFromWebIdentityToken"),
            assumedRoleUser: assumedRoleUser,
            provider: result.trimmedText("Provider"),
            audience: result.trimmedText("Audience"),
            sourceIdentity: result.trimmedText("SourceIdentity"),
            packedPolicySize: packedPolicySize,
            requestId: root.trimmedText("ResponseMetadata", "RequestId") ?? Self.requestIdHeader(response)
        )
    }

    /// Reads the body as an XML document, or explains why it is not one.
    static func document(_ response: TransportResponse, redacting secrets: [String]) throws(WIFCredentialsError) -> XMLTreeElement {
        if response.body.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            throw .malformedResponse("STS answered HTTP \(response.status) with an empty body")
        }
        do {
            return try XMLReader.parse(response.body, limits: Self.xmlLimits)
        } catch {
            let contentType = response.header("Content-Type").map { " (\($0.prefix(64)))" } ?? ""
            let (line, column) = XMLReader.location(of: error.offset, in: response.body)
            throw .malformedResponse(
                "STS answered HTTP \(response.status)\(contentType) with a body that is not an STS XML document, because of \(error.reason) at line \(line), column \(column): \(Self.excerpt(response.body, redacting: secrets))"
            )
        }
    }

    /// Reads either error document shape.
    static func serviceError(
        _ root: XMLTreeElement,
        response: TransportResponse,
        redacting secrets: [String]
    ) throws(WIFCredentialsError) -> AWSServiceError {
        let error: XMLTreeElement? =
            root.name == "Error" ? root : (root.child("Error") ?? root.element("Errors", "Error"))
        guard let error, let code = error.trimmedText("Code") else {
            throw .malformedResponse(
                "STS answered HTTP \(response.status) with an error document that has no <Error><Code>: \(Self.excerpt(response.body, redacting: secrets))"
            )
        }
        let message = error.trimmedText("Message").map { Self.redact($0, secrets: secrets) }
        return AWSServiceError(
            code: code,
            message: message,
            type: error.trimmedText("Type"),
            requestId: root.trimmedText("RequestId") ?? error.trimmedText("RequestId") ?? Self.requestIdHeader(response),
            httpStatus: response.status
        )
    }

    static func requestIdHeader(_ response: TransportResponse) -> String? {
        (response.header("x-amzn-RequestId") ?? response.header("x-amz-request-id")).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Parses an ISO 8601 timestamp with or without fractional seconds; a timestamp without a zone
    /// is taken as UTC, which is what STS means.
    package static func parseISO8601(_ text: String) -> Date? {
        AWSDate.parseISO8601(text.trimming(.whitespaces)).map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// The first bytes of a body, printable and free of secrets, for error messages.
    static func excerpt(_ body: [UInt8], redacting secrets: [String]) -> String {
        if body.isEmpty { return "(empty body)" }
        let text = Self.redact(String(decoding: body, as: UTF8.self), secrets: secrets)
        var printable = ""
        var lastWasSpace = false
        for scalar in text.unicodeScalars {
            let isSpace = scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
            if isSpace {
                if !lastWasSpace { printable.unicodeScalars.append(" ") }
                lastWasSpace = true
            } else {
                printable.unicodeScalars.append(scalar)
                lastWasSpace = false
            }
            if printable.unicodeScalars.count >= Self.excerptLength { break }
        }
        let trimmed = printable.trimming(.whitespaces)
        let more = text.unicodeScalars.count > printable.unicodeScalars.count ? "…" : ""
        return "'\(trimmed)\(more)' (\(body.count) bytes)"
    }

    /// Removes secrets from text quoted out of a body: the given strings, and the contents of
    /// elements that carry credentials or tokens (a truncated success answer still holds a secret key).
    static func redact(_ text: String, secrets: [String]) -> String {
        var result = text
        for secret in secrets where secret.utf8.count >= 4 {
            result = result.replacingOccurrences(of: secret, with: "<redacted>")
        }
        for name in ["SecretAccessKey", "SessionToken", "WebIdentityToken"] {
            result = Self.redactElementContent(result, element: name)
        }
        return result
    }

    private static func redactElementContent(_ text: String, element: String) -> String {
        let open = "<\(element)>"
        var result = ""
        var rest = Substring(text)
        while let start = rest.range(of: open) {
            result += rest[..<start.upperBound]
            rest = rest[start.upperBound...]
            if let end = rest.firstIndex(of: "<") {
                result += "<redacted>"
                rest = rest[end...]
            } else {
                result += "<redacted>"
                rest = ""
            }
        }
        return result + rest
    }
}

extension STSResponseDecoder {
    /// Reads the HTTP `Date` header: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), plus the obsolete
    /// RFC 850 and asctime forms that HTTP/1.1 recipients must accept.
    package enum HTTPDate {
        /// Parses a `Date` header value in any of HTTP's three forms; `nil` when it is not an HTTP date.
        package static func parse(_ text: String) -> Date? {
            AWSDate.parseHTTPDate(text).map { Date(timeIntervalSince1970: Double($0)) }
        }
    }
}
