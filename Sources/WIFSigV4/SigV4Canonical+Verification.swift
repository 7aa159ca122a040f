import Crypto
import WIFFoundation

/// The package API for verifying signatures (the local stack's and the API server's): the canonical
/// request and string to sign of a request as received, its signature, and a constant-time comparison.
extension SigV4Canonical {
    /// The canonical request for a request as received.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The percent-encoded path as received.
    ///   - query: The percent-encoded query as received, without `?`.
    ///   - headers: The received headers, in order.
    ///   - signedHeaderNames: The names listed in `SignedHeaders`; `nil` signs every header but
    ///     hop-by-hop ones, as the signer does.
    ///   - payloadHash: The `x-amz-content-sha256` value, the body's SHA-256 or `UNSIGNED-PAYLOAD`.
    ///   - rules: The service's rules.
    ///   - excludingQueryParameter: A query parameter to leave out, `X-Amz-Signature` for presigned
    ///     requests.
    /// - Returns: The canonical request text.
    /// - Throws: ``SigV4Error`` with code `signing` when a signed header is missing.
    package static func canonicalRequest(
        method: String,
        path: String,
        query: String,
        headers: [SigV4Request.Header],
        signedHeaderNames: [String]?,
        payloadHash: String,
        rules: SigV4Signer.Rules,
        excludingQueryParameter: String? = nil
    ) throws -> String {
        String(
            decoding: try Self.canonicalRequestBytes(
                method: method, path: path, query: query, headers: headers, signedHeaderNames: signedHeaderNames,
                payloadHash: payloadHash, rules: rules, excludingQueryParameter: excludingQueryParameter),
            as: UTF8.self)
    }

    /// The canonical request for a request as received, as UTF-8: what
    /// ``canonicalRequest(method:path:query:headers:signedHeaderNames:payloadHash:rules:excludingQueryParameter:)``
    /// returns, for a verifier that hashes it without making it a string first.
    package static func canonicalRequestBytes(
        method: String,
        path: String,
        query: String,
        headers: [SigV4Request.Header],
        signedHeaderNames: [String]?,
        payloadHash: String,
        rules: SigV4Signer.Rules,
        excludingQueryParameter: String? = nil
    ) throws -> [UInt8] {
        var entries: [HeaderEntry] = []
        entries.reserveCapacity(headers.count)
        for (order, header) in headers.enumerated() {
            if let signedHeaderNames {
                guard signedHeaderNames.contains(where: { SigV4Bytes.equalsCaseInsensitive($0, header.name) })
                else { continue }
            } else if Self.isUnsignable(header.name) {
                continue
            }
            entries.append(HeaderEntry(name: header.name, value: header.value, order: order))
        }
        if let signedHeaderNames {
            for name in signedHeaderNames
            where !entries.contains(where: { SigV4Bytes.equalsCaseInsensitive($0.name, name) }) {
                throw SigV4Error.signing("the signed header '\(name)' is not in the request")
            }
        }
        Self.sortHeaders(&entries)
        var signedHeaders: [UInt8] = []
        Self.appendSignedHeaders(entries, to: &signedHeaders)
        // Sized for the whole request at once: a session token alone is near a kilobyte.
        var buffer: [UInt8] = []
        buffer.reserveCapacity(
            256 + path.utf8.count + query.utf8.count + 2 * signedHeaders.count
                + entries.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 })
        signedHeaders.withUnsafeBufferPointer { signedHeaders in
            Self.appendCanonicalRequest(
                method: method, path: path, query: query, extraQuery: [],
                excludingQueryParameter: excludingQueryParameter, sortedHeaders: entries,
                signedHeaders: signedHeaders, payloadHash: payloadHash, rules: rules, to: &buffer)
        }
        return buffer
    }

    /// The string to sign for a canonical request.
    /// - Parameters:
    ///   - canonicalRequest: The canonical request text.
    ///   - amzDate: The `X-Amz-Date` value, `yyyyMMdd'T'HHmmss'Z'`.
    ///   - scope: The credential scope, `yyyyMMdd/region/service/aws4_request`.
    /// - Returns: The string to sign.
    package static func stringToSign(canonicalRequest: String, amzDate: String, scope: String) -> String {
        String(
            decoding: Self.stringToSign(canonicalRequestBytes: Array(canonicalRequest.utf8), amzDate: amzDate, scope: scope),
            as: UTF8.self)
    }

    /// The string to sign for a canonical request given as UTF-8, as UTF-8.
    package static func stringToSign(canonicalRequestBytes: [UInt8], amzDate: String, scope: String) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(160)
        Self.appendStringToSign(
            canonicalRequestHash: SHA256.hash(data: canonicalRequestBytes), amzDate: amzDate, scope: scope, to: &buffer)
        return buffer
    }

    /// The hex signature of a string to sign.
    /// - Parameters:
    ///   - stringToSign: The string to sign.
    ///   - key: The signing key for the scope's date, region and service.
    /// - Returns: 64 lowercase hex digits.
    package static func signature(stringToSign: String, key: SigV4SigningKey) -> String {
        SigV4Bytes.hexString(SigV4Bytes.withBytes(stringToSign) { key.authenticationCode(for: UnsafeRawBufferPointer($0)) })
    }

    /// The hex signature of a string to sign given as UTF-8.
    package static func signature(stringToSignBytes: [UInt8], key: SigV4SigningKey) -> String {
        SigV4Bytes.hexString(stringToSignBytes.withUnsafeBytes { key.authenticationCode(for: $0) })
    }

    /// Compares two signatures (or any two secrets) in time that does not depend on where they
    /// differ. Only the lengths, which are not secret, end the comparison early.
    /// - Returns: `true` when both hold the same bytes.
    package static func constantTimeEquals(_ lhs: some StringProtocol, _ rhs: some StringProtocol) -> Bool {
        let left = lhs.utf8
        let right = rhs.utf8
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(left, right) { difference |= a ^ b }
        return difference == 0
    }

    /// The same comparison for two strings, over their contiguous UTF-8: what every
    /// signature check of a server calls, so it must not pay for generic iteration.
    package static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                guard left.count == right.count else { return false }
                var difference: UInt8 = 0
                for index in 0..<left.count { difference |= left[index] ^ right[index] }
                return difference == 0
            }
        }
    }
}
