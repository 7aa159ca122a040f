import Foundation
import HTTPTypes
import Hummingbird
import WIFAPIServer
import WIFFoundation

/// What a SigV4 request says about its own signature: who signed, for which scope and time, which
/// headers, and the signature — read from the `Authorization` header or from a presigned URL's query.
struct SignatureParameters: Sendable {
    /// The access key id of the credential.
    let accessKeyId: String
    /// The scope's date, `yyyyMMdd`.
    let day: String
    /// The scope's region.
    let region: String
    /// The scope's service.
    let service: String
    /// The scope's last element, `aws4_request` when well formed.
    let terminator: String
    /// `yyyyMMdd/region/service/aws4_request`: the credential after its access key id, kept as sent.
    let scope: String
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


    static let algorithm = "AWS4-HMAC-SHA256"

    // MARK: Reading the Authorization header

    /// Reads an `Authorization: AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…` header and the
    /// request's date.
    static func fromHeader(
        _ authorization: String, request: Request, errors: AuthenticationErrors
    ) throws(AWSErrorResponse) -> SignatureParameters {
        // Read in one pass over the header's UTF-8, whose delimiters are all ASCII, so no grapheme breaking
        // or generic collection code runs on every signed request.
        var header = authorization
        let scanned = header.withUTF8 { AuthorizationHeader(scanning: $0) }
        guard scanned.algorithm == Self.algorithm else { throw errors.unsupportedAlgorithm(scanned.algorithm, presigned: false) }
        if let unreadable = scanned.unreadable { throw errors.malformedHeader(missing: [], unreadable: unreadable) }
        guard let credential = scanned.credential, let signedHeaders = scanned.signedHeaders, let signature = scanned.signature
        else {
            let missing = [
                ("Credential", scanned.credential != nil), ("Signature", scanned.signature != nil),
                ("SignedHeaders", scanned.signedHeaders != nil),
            ].filter { !$0.1 }.map(\.0)
            throw errors.malformedHeader(missing: missing, unreadable: nil)
        }

        let (dateText, amzDate, time) = try Self.headerDate(request, errors: errors)
        var parameters = try Self.withCredential(
            credential, presigned: false, amzDate: amzDate, dateText: dateText, time: time, errors: errors)
        parameters.signedHeaders = signedHeaders
        parameters.signature = signature
        parameters.securityToken = request.headers.value(of: Self.securityTokenHeader)
        return parameters
    }

    /// The parts of an `Authorization: AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…` header:
    /// the algorithm, then comma-separated `name=value` parts, spaces around them ignored.
    private struct AuthorizationHeader {
        var algorithm = ""
        var credential: String?
        /// The lowercase names of `SignedHeaders`.
        var signedHeaders: [String]?
        var signature: String?
        /// A part with no `=`.
        var unreadable: String?

        init(scanning bytes: UnsafeBufferPointer<UInt8>) {
            let space = UInt8(ascii: " ")
            func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
            var index = 0
            while index < bytes.count, bytes[index] == space { index += 1 }
            let algorithmStart = index
            while index < bytes.count, bytes[index] != space { index += 1 }
            self.algorithm = text(algorithmStart..<index)
            while index < bytes.count {
                var end = index
                while end < bytes.count, bytes[end] != UInt8(ascii: ",") { end += 1 }
                var start = index
                while start < end, bytes[start] == space { start += 1 }
                index = end < bytes.count ? end + 1 : end
                guard start < end else { continue }
                var equals = start
                while equals < end, bytes[equals] != UInt8(ascii: "=") { equals += 1 }
                guard equals < end else {
                    self.unreadable = text(start..<end)
                    return
                }
                var valueEnd = end
                while valueEnd > equals + 1, bytes[valueEnd - 1] == space { valueEnd -= 1 }
                let name = UnsafeBufferPointer(rebasing: bytes[start..<equals])
                let value = (equals + 1)..<valueEnd
                if Self.matches(name, "Credential") {
                    self.credential = text(value)
                } else if Self.matches(name, "SignedHeaders") {
                    self.signedHeaders = Self.names(UnsafeBufferPointer(rebasing: bytes[value]))
                } else if Self.matches(name, "Signature") {
                    self.signature = text(value)
                }
            }
        }

        /// `host;x-amz-date` → `["host", "x-amz-date"]`, lowercased.
        static func names(_ list: UnsafeBufferPointer<UInt8>) -> [String] {
            var names: [String] = []
            names.reserveCapacity(list.count { $0 == UInt8(ascii: ";") } + 1)
            var start = 0
            for index in 0...list.count where index == list.count || list[index] == UInt8(ascii: ";") {
                defer { start = index + 1 }
                guard index > start else { continue }
                let name = UnsafeBufferPointer(rebasing: list[start..<index])
                if name.contains(where: { $0 >= 0x80 }) {
                    names.append(String(decoding: name, as: UTF8.self).lowercased())
                } else {
                    // ASCII, lowercased as it is copied: no intermediate array on every signed request.
                    names.append(
                        String(unsafeUninitializedCapacity: name.count) { output in
                            for offset in 0..<name.count {
                                let byte = name[offset]
                                output[offset] = byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
                            }
                            return name.count
                        })
                }
            }
            return names
        }

        /// Whether a part's name is exactly `expected` (ASCII), compared as memory.
        @inline(__always)
        static func matches(_ name: UnsafeBufferPointer<UInt8>, _ expected: StaticString) -> Bool {
            guard name.count == expected.utf8CodeUnitCount, let address = name.baseAddress else { return false }
            return memcmp(address, expected.utf8Start, name.count) == 0
        }
    }

    static let securityTokenHeader = HTTPField.Name("x-amz-security-token")!
    static let dateHeader = HTTPField.Name("x-amz-date")!
    static let contentSHA256Header = HTTPField.Name("x-amz-content-sha256")!

    /// The signing time from `X-Amz-Date`, or from `Date` when there is none.
    private static func headerDate(_ request: Request, errors: AuthenticationErrors) throws(AWSErrorResponse) -> (String, String, Int64) {
        if let amzDate = request.headers.value(of: Self.dateHeader) {
            guard let time = AWSDate.parseBasic(amzDate) else { throw errors.missingDate(presigned: false) }
            return (amzDate, amzDate, time)
        }
        if let date = request.headers.value(of: .date) {
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
        var names = signedHeaders
        parameters.signedHeaders = names.withUTF8 { AuthorizationHeader.names($0) }
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
        var text = credential
        let (parts, scope) = text.withUTF8 { bytes in
            var parts: [String] = []
            parts.reserveCapacity(5)
            var start = 0
            for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
                parts.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
                start = index + 1
            }
            // Everything after the access key id, which is the four scope parts joined as the scope is.
            let scopeStart = min(parts[0].utf8.count + 1, bytes.count)
            return (parts, String(decoding: UnsafeBufferPointer(rebasing: bytes[scopeStart...]), as: UTF8.self))
        }
        guard parts.count == 5, !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty, !parts[3].isEmpty else {
            throw errors.malformedCredential(credential, presigned: presigned)
        }
        return SignatureParameters(
            accessKeyId: parts[0], day: parts[1], region: parts[2], service: parts[3],
            terminator: parts[4], scope: scope, signedHeaders: [], signature: "", amzDate: amzDate, dateText: dateText,
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
}
