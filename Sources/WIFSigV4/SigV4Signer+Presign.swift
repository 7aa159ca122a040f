import Crypto
import Foundation
import WIFFoundation

extension SigV4Signer {
    // MARK: Presigning

    /// Builds a presigned URL: the request's URL with the signature in its query.
    ///
    /// Whoever holds the URL can make the request until it expires, so treat it as a secret. The
    /// request's headers other than `Host` are signed too, and must be sent with the URL.
    /// - Parameters:
    ///   - request: The request to presign. Its query must not already hold `X-Amz-` signature
    ///     parameters.
    ///   - payload: The body's hash. `nil` means ``Payload/unsigned`` under rules that sign
    ///     `x-amz-content-sha256` (S3) and ``Payload/empty`` otherwise.
    ///   - date: The signing time; the URL is valid from then.
    ///   - expires: How many seconds the URL stays valid, 1 to 604800 (seven days).
    /// - Returns: The presigned URL as text.
    /// - Throws: ``SigV4Error`` with code `signing` for unusable input or expiry.
    public func presign(_ request: SigV4Request, payload: Payload? = nil, date: Date, expires: Int) throws -> String {
        try self.presignQuery(request, payload: payload, date: date, expires: expires, capture: false).url
    }

    /// Builds a presigned URL for a URL.
    /// - Parameters:
    ///   - url: The absolute `http` or `https` URL to presign.
    ///   - method: The HTTP method the URL is for.
    ///   - headers: Headers that will be sent with the URL and must be signed.
    ///   - payload: The body's hash; see ``presign(_:payload:date:expires:)``.
    ///   - date: The signing time.
    ///   - expires: How many seconds the URL stays valid, 1 to 604800.
    /// - Returns: The presigned URL.
    /// - Throws: ``SigV4Error`` with code `signing` for unusable input or expiry.
    public func presign(
        url: URL,
        method: String = "GET",
        headers: [SigV4Request.Header] = [],
        payload: Payload? = nil,
        date: Date,
        expires: Int
    ) throws -> URL {
        let request = try SigV4Request(method: method, url: url, headers: headers)
        let text = try self.presign(request, payload: payload, date: date, expires: expires)
        guard let presigned = URL(string: text) else {
            throw SigV4Error.signing("the presigned form of \(SigV4Request.redacted(url)) is not a valid URL")
        }
        return presigned
    }
}

// MARK: - Query signing steps

extension SigV4Signer {
    /// Query signing, optionally keeping the canonical request and string to sign.
    package func presignQuery(
        _ request: SigV4Request,
        payload: Payload?,
        date: Date,
        expires: Int,
        capture: Bool
    ) throws -> Outcome {
        let payload = payload ?? (self.rules.signsContentSHA256Header ? .unsigned : .empty)
        try self.validate(request, payload: payload)
        guard (1...Self.maximumExpiry).contains(expires) else {
            throw SigV4Error.signing(
                "a presigned URL must expire after 1 to \(Self.maximumExpiry) seconds, not \(expires)")
        }
        if Self.hasSignatureParameter(request.query) {
            throw SigV4Error.signing("the query already holds X-Amz- signature parameters; presign the unsigned URL")
        }
        let timestamp = try SigV4Timestamp(date)

        let sorted = self.headerEntries(request, replacingSignatureHeaders: false, extra: [])
        var signedHeaders: [UInt8] = []
        SigV4Canonical.appendSignedHeaders(sorted, to: &signedHeaders)
        var credential: [UInt8] = []
        SigV4Bytes.append(self.credentials.accessKeyId, to: &credential)
        credential.append(SigV4Bytes.slash)
        self.appendScope(timestamp, to: &credential)

        var authParameters: [(name: String, value: String)] = [
            ("X-Amz-Algorithm", SigV4Canonical.algorithm),
            ("X-Amz-Credential", Self.percentEncoded(credential)),
            ("X-Amz-Date", timestamp.amzDate),
            ("X-Amz-Expires", String(expires)),
            ("X-Amz-SignedHeaders", Self.percentEncoded(signedHeaders)),
        ]
        let encodedToken = self.credentials.sessionToken.map { SigV4Request.percentEncode($0, keepingSlashes: false) }
        if let encodedToken, self.rules.signsSessionToken {
            authParameters.append(("X-Amz-Security-Token", encodedToken))
        }

        var outcome = Outcome()
        var buffer: [UInt8] = []
        buffer.reserveCapacity(512 + request.path.utf8.count + request.query.utf8.count)
        signedHeaders.withUnsafeBufferPointer { signedHeaders in
            SigV4Canonical.appendCanonicalRequest(
                method: request.method, path: request.path, query: request.query, extraQuery: authParameters,
                excludingQueryParameter: nil, sortedHeaders: sorted, signedHeaders: signedHeaders,
                payloadHash: payload.hashText, rules: self.rules, to: &buffer)
        }
        let mac = self.computeSignature(canonicalRequest: &buffer, timestamp: timestamp, capture: capture, outcome: &outcome)

        if let encodedToken, !self.rules.signsSessionToken {
            authParameters.append(("X-Amz-Security-Token", encodedToken))
        }
        var url: [UInt8] = []
        url.reserveCapacity(buffer.count + request.host.utf8.count + request.path.utf8.count + request.query.utf8.count + 400)
        SigV4Bytes.append(request.scheme, to: &url)
        SigV4Bytes.append("://", to: &url)
        SigV4Bytes.append(request.host, to: &url)
        if request.path.isEmpty { url.append(SigV4Bytes.slash) } else { SigV4Bytes.append(request.path, to: &url) }
        url.append(0x3F)  // ?
        if !request.query.isEmpty {
            SigV4Bytes.append(request.query, to: &url)
            url.append(SigV4Bytes.ampersand)
        }
        for (name, value) in authParameters {
            SigV4Bytes.append(name, to: &url)
            url.append(SigV4Bytes.equals)
            SigV4Bytes.append(value, to: &url)
            url.append(SigV4Bytes.ampersand)
        }
        SigV4Bytes.append("X-Amz-Signature=", to: &url)
        mac.withUnsafeBytes { SigV4Bytes.appendHex($0, to: &url) }
        outcome.url = String(decoding: url, as: UTF8.self)
        if capture {
            outcome.signedHeaders = String(decoding: signedHeaders, as: UTF8.self)
            outcome.signature = String(outcome.url.utf8.suffix(64)) ?? ""
        }
        return outcome
    }

    private static func percentEncoded(_ bytes: [UInt8]) -> String {
        var encoded: [UInt8] = []
        encoded.reserveCapacity(bytes.count + 16)
        bytes.withUnsafeBufferPointer { PercentEncoding.append($0, keepingSlash: false, to: &encoded) }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// Whether a query already carries a signature's parameters.
    private static func hasSignatureParameter(_ query: String) -> Bool {
        if query.isEmpty { return false }
        for parameter in query.split(separator: "&") {
            let name = parameter.prefix { $0 != "=" }.lowercased()
            if name == "x-amz-signature" || name == "x-amz-algorithm" || name == "x-amz-credential"
                || name == "x-amz-date" || name == "x-amz-expires" || name == "x-amz-signedheaders"
                || name == "x-amz-security-token"
            {
                return true
            }
        }
        return false
    }
}
