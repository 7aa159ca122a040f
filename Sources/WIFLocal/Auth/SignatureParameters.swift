import HTTPTypes
import Hummingbird
import WIFFoundation

/// What a SigV4 request says about its own signature: who signed, for which scope and time, which
/// headers, and the signature — read from the `Authorization` header or from a presigned URL's query.
struct SignatureParameters: Sendable {
    /// The access key id of the credential.
    var accessKeyId: String
    /// The scope's date, `yyyyMMdd`.
    var day: String
    /// The scope's region.
    var region: String
    /// The scope's service.
    var service: String
    /// The scope's last element, `aws4_request` when well formed.
    var terminator: String
    /// The lowercase names of the signed headers, as listed.
    var signedHeaders: [String]
    /// The signature sent, hex.
    var signature: String
    /// The signing time as the string to sign holds it, `yyyyMMdd'T'HHmmss'Z'`.
    var amzDate: String
    /// The signing time as sent (an `X-Amz-Date` or an HTTP `Date`), for messages.
    var dateText: String
    /// The signing time, in seconds since 1970.
    var time: Int64
    /// `X-Amz-Expires` of a presigned URL (required by S3, optional elsewhere).
    var expires: Int?
    /// The session token (`X-Amz-Security-Token` header or query parameter), if any.
    var securityToken: String?

    /// Whether the signature came in the query string.
    var presigned: Bool

    /// `yyyyMMdd/region/service/aws4_request`.
    var scope: String { "\(self.day)/\(self.region)/\(self.service)/\(self.terminator)" }

    static let algorithm = "AWS4-HMAC-SHA256"

    // MARK: Reading the Authorization header

    /// Reads an `Authorization: AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…` header and the
    /// request's date.
    static func fromHeader(
        _ authorization: String, request: Request, errors: AuthenticationErrors
    ) throws(AWSErrorResponse) -> SignatureParameters {
        // Read over UTF-8 with ASCII delimiters, so no grapheme breaking runs on every signed request.
        let utf8 = authorization.utf8
        let space = UInt8(ascii: " ")
        var start = utf8.startIndex
        while start < utf8.endIndex, utf8[start] == space { start = utf8.index(after: start) }
        let algorithmEnd = utf8[start...].firstIndex(of: space) ?? utf8.endIndex
        let algorithm = authorization[start..<algorithmEnd]
        guard algorithm == Self.algorithm else { throw errors.unsupportedAlgorithm(String(algorithm), presigned: false) }

        var credential: Substring?
        var signedHeaders: Substring?
        var signature: Substring?
        var cursor = algorithmEnd
        while cursor < utf8.endIndex {
            let partEnd = utf8[cursor...].firstIndex(of: UInt8(ascii: ",")) ?? utf8.endIndex
            var partStart = cursor
            while partStart < partEnd, utf8[partStart] == space { partStart = utf8.index(after: partStart) }
            cursor = partEnd < utf8.endIndex ? utf8.index(after: partEnd) : partEnd
            guard partStart < partEnd else { continue }
            guard let equals = utf8[partStart..<partEnd].firstIndex(of: UInt8(ascii: "=")) else {
                throw errors.malformedHeader(missing: [], unreadable: String(authorization[partStart..<partEnd]))
            }
            let value = authorization[utf8.index(after: equals)..<partEnd]
            switch authorization[partStart..<equals] {
            case "Credential": credential = value
            case "SignedHeaders": signedHeaders = value
            case "Signature": signature = value
            default: continue
            }
        }
        guard let credential, let signedHeaders, let signature else {
            let missing = [("Credential", credential), ("Signature", signature), ("SignedHeaders", signedHeaders)]
                .filter { $0.1 == nil }.map(\.0)
            throw errors.malformedHeader(missing: missing, unreadable: nil)
        }

        let (dateText, amzDate, time) = try Self.headerDate(request, errors: errors)
        var parameters = try Self.withCredential(
            String(credential.trimmingSuffixSpaces), presigned: false, amzDate: amzDate, dateText: dateText, time: time,
            errors: errors)
        parameters.signedHeaders = Self.headerNames(signedHeaders.trimmingSuffixSpaces)
        parameters.signature = String(signature.trimmingSuffixSpaces)
        parameters.securityToken = request.headers[Self.securityTokenHeader]
        return parameters
    }

    static let securityTokenHeader = HTTPField.Name("x-amz-security-token")!
    static let dateHeader = HTTPField.Name("x-amz-date")!
    static let contentSHA256Header = HTTPField.Name("x-amz-content-sha256")!

    /// The signing time from `X-Amz-Date`, or from `Date` when there is none.
    private static func headerDate(_ request: Request, errors: AuthenticationErrors) throws(AWSErrorResponse) -> (String, String, Int64) {
        if let amzDate = request.headers[Self.dateHeader] {
            guard let time = AWSDate.parseBasic(amzDate) else { throw errors.missingDate(presigned: false) }
            return (amzDate, amzDate, time)
        }
        if let date = request.headers[.date] {
            guard let time = AWSDate.parseIMFFixdate(date) else { throw errors.missingDate(presigned: false) }
            return (date, AWSDate.basic(time), time)
        }
        throw errors.missingDate(presigned: false)
    }

    // MARK: Reading a presigned URL

    /// The query parameters of query-string authentication.
    static let queryParameterNames = [
        "X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Signature", "X-Amz-Date", "X-Amz-SignedHeaders", "X-Amz-Expires",
    ]

    /// Whether a query carries query-string authentication (or a Signature Version 2 signature).
    static func queryHasSignature(_ query: Substring) -> Bool {
        guard !query.isEmpty else { return false }
        for part in query.utf8.split(separator: UInt8(ascii: "&")) {
            let name = part.prefix { $0 != UInt8(ascii: "=") }
            if name.starts(with: "X-Amz-".utf8),
                Self.queryParameterNames.contains(where: { $0.utf8.elementsEqual(name) })
            {
                return true
            }
            if name.elementsEqual("Signature".utf8) || name.elementsEqual("AWSAccessKeyId".utf8) { return true }
        }
        return false
    }

    /// Reads the `X-Amz-*` parameters of a presigned URL.
    static func fromQuery(_ query: Substring, errors: AuthenticationErrors) throws(AWSErrorResponse) -> SignatureParameters {
        var values: [String: String] = [:]
        var token: String?
        for (name, value) in PercentEncoding.parameters(query, plusIsSpace: false) where name.hasPrefix("X-Amz-") {
            if name == "X-Amz-Security-Token" {
                if token == nil { token = value }
            } else if values[name] == nil {
                values[name] = value
            }
        }
        if values.isEmpty {
            // Signature Version 2 query authentication (`AWSAccessKeyId`, `Signature`, `Expires`).
            throw errors.unsupportedAlgorithm("AWS", presigned: false)
        }
        guard let algorithm = values["X-Amz-Algorithm"], let credential = values["X-Amz-Credential"],
            let signature = values["X-Amz-Signature"], let amzDate = values["X-Amz-Date"],
            let signedHeaders = values["X-Amz-SignedHeaders"]
        else { throw errors.missingQueryParameters() }
        let expiresText = values["X-Amz-Expires"]
        guard errors.isS3 == false || expiresText != nil else { throw errors.missingQueryParameters() }
        guard algorithm == Self.algorithm else { throw errors.unsupportedAlgorithm(algorithm, presigned: true) }
        guard let time = AWSDate.parseBasic(amzDate) else { throw errors.missingDate(presigned: true) }
        var expires: Int?
        if let expiresText {
            guard let number = Int(expiresText), (0...604_800).contains(number) else { throw errors.invalidExpires(expiresText) }
            expires = number
        }
        var parameters = try Self.withCredential(
            credential, presigned: true, amzDate: amzDate, dateText: amzDate, time: time, errors: errors)
        parameters.signedHeaders = Self.headerNames(Substring(signedHeaders))
        parameters.signature = signature
        parameters.expires = expires
        parameters.securityToken = token
        return parameters
    }

    // MARK: Shared steps

    /// Splits `AKID/DATE/REGION/SERVICE/aws4_request` and checks the scope's date against the signing time.
    private static func withCredential(
        _ credential: String, presigned: Bool, amzDate: String, dateText: String, time: Int64, errors: AuthenticationErrors
    ) throws(AWSErrorResponse) -> SignatureParameters {
        // Split over UTF-8 at the ASCII `/`, which no grapheme can hide.
        let parts = credential.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard parts.count == 5, !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty, !parts[3].isEmpty else {
            throw errors.malformedCredential(credential, presigned: presigned)
        }
        func text(_ part: Substring.UTF8View) -> String { String(Substring(part)) }
        return SignatureParameters(
            accessKeyId: text(parts[0]), day: text(parts[1]), region: text(parts[2]), service: text(parts[3]),
            terminator: text(parts[4]), signedHeaders: [], signature: "", amzDate: amzDate, dateText: dateText,
            time: time, expires: nil, securityToken: nil, presigned: presigned)
    }

    /// Checks the scope against the stack's region and the service called, and its date against the
    /// signing time, in AWS's order.
    func checkScope(errors: AuthenticationErrors) throws(AWSErrorResponse) {
        if self.region != errors.region { throw errors.wrongRegion(self.region, presigned: self.presigned) }
        if self.service != errors.service { throw errors.wrongService(self.service, presigned: self.presigned) }
        if self.terminator != "aws4_request" { throw errors.wrongTerminator(self.terminator, presigned: self.presigned) }
        if !self.amzDate.hasPrefix(self.day) || self.day.utf8.count != 8 {
            throw errors.wrongScopeDate(self.day, amzDate: self.amzDate, presigned: self.presigned)
        }
    }

    /// `host;x-amz-date` → `["host", "x-amz-date"]`, lowercased.
    private static func headerNames(_ list: Substring) -> [String] {
        list.utf8.split(separator: UInt8(ascii: ";")).map { name in
            let text = String(Substring(name))
            return name.contains(where: { $0 >= 0x41 && $0 <= 0x5A || $0 >= 0x80 }) ? text.lowercased() : text
        }
    }
}

extension Substring {
    /// The text without trailing spaces.
    fileprivate var trimmingSuffixSpaces: Substring {
        var end = self.utf8.endIndex
        while end > self.utf8.startIndex, self.utf8[self.utf8.index(before: end)] == UInt8(ascii: " ") {
            end = self.utf8.index(before: end)
        }
        return self[..<end]
    }
}
