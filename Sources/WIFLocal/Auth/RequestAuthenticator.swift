import Foundation
import HTTPTypes
import Hummingbird
import WIFAPIServer
import WIFCredentials

/// Who signed a request.
enum Caller: Sendable {
    /// The account administrator's long-term credentials.
    case admin(accessKeyId: String)
    /// A role session issued by the local STS.
    case session(LocalSession)

    /// The access key id the request was signed with.
    var accessKeyId: String {
        switch self {
        case .admin(let accessKeyId): accessKeyId
        case .session(let session): session.accessKeyId
        }
    }
}

/// A request whose signature was verified.
struct AuthenticatedRequest: Sendable {
    /// Who signed it.
    var caller: Caller
    /// The payload hash the signature covers: a hex SHA-256, `UNSIGNED-PAYLOAD`, or an `aws-chunked`
    /// streaming marker.
    var payloadHash: String
    /// Whether the signature came in the query string (a presigned URL).
    var presigned: Bool
    /// For `STREAMING-AWS4-HMAC-SHA256-PAYLOAD` bodies, what verifying each chunk's signature needs.
    var streaming: StreamingSignature? = nil
}

/// The seed of an `aws-chunked` body signed chunk by chunk: each chunk's signature chains from the one
/// before, starting at the request's own signature.
struct StreamingSignature: Sendable {
    /// The request's signature, which the first chunk's signature chains from.
    var seedSignature: String
    /// The signing time, `yyyyMMdd'T'HHmmss'Z'`.
    var amzDate: String
    /// The credential scope, `yyyyMMdd/region/service/aws4_request`.
    var scope: String
    /// The signing key of the scope.
    var signingKey: SigV4SigningKey

    private static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The signature a chunk must carry.
    /// - Parameters:
    ///   - previousSignature: The previous chunk's signature, or ``seedSignature`` for the first chunk.
    ///   - chunkHash: The hex SHA-256 of the chunk's data (of no bytes for the final chunk).
    /// - Returns: 64 lowercase hex digits.
    func chunkSignature(previousSignature: String, chunkHash: String) -> String {
        let stringToSign = "AWS4-HMAC-SHA256-PAYLOAD\n\(self.amzDate)\n\(self.scope)\n\(previousSignature)\n\(Self.emptyHash)\n\(chunkHash)"
        return SigV4Canonical.signature(stringToSign: stringToSign, key: self.signingKey)
    }
}

/// Verifies AWS Signature Version 4 on incoming requests, in an `Authorization` header or in a presigned
/// URL's query, with the administrator's credentials or a session's (whose session token is the session).
///
/// Canonicalisation is WIFCredentials' own, with S3's rules for `s3` (the path as sent) and the standard
/// rules for every other service. Failures are AWS's errors for the service called; see
/// ``AuthenticationErrors``. Signing keys come from the shared key cache and opened session tokens from a
/// bounded cache, so a client making many requests with one session pays for neither on each request.
struct RequestAuthenticator: Sendable {
    private let configuration: LocalConfiguration
    private let timeSource: TimeSource
    private let sessions: SessionTokenCache
    private let keyCache: SigV4SigningKeyCache

    /// The SHA-256 of no bytes, the payload hash of a request without a body.
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    init(state: LocalState) {
        self.configuration = state.configuration
        self.timeSource = state.timeSource
        self.sessions = SessionTokenCache(codec: state.sessions)
        self.keyCache = .shared
    }

    /// Whether a request carries any signature (an `Authorization` header or query-string authentication
    /// parameters). A request without one is anonymous: ``authenticate(_:service:payloadHash:)`` refuses it,
    /// and a service that serves anonymous callers checks this first.
    static func carriesSignature(_ request: Request) -> Bool {
        if request.headers.contains(.authorization) { return true }
        return SignatureParameters.queryHasSignature(Self.split(request.head.path ?? "/").query)
    }

    /// Verifies a request's signature.
    /// - Parameters:
    ///   - request: The request as received.
    ///   - service: The signing name of the service called, `s3` or `sts`; it picks the canonicalisation
    ///     rules, the expected credential scope and the error codes.
    ///   - payloadHash: For services other than S3, the hex SHA-256 of the body as received (the body is
    ///     signed but not described by a header); `nil` for no body. S3 takes the hash from
    ///     `x-amz-content-sha256` and checks the body against it when reading it.
    /// - Returns: The caller and what the signature covers.
    /// - Throws: ``AWSErrorResponse`` in the service's codes: a missing or malformed signature, an unknown
    ///   access key, an invalid or expired session token, a skewed clock or an expired URL, a signature that
    ///   does not match.
    func authenticate(_ request: Request, service: String, payloadHash: String? = nil) throws(AWSErrorResponse) -> AuthenticatedRequest {
        let errors = AuthenticationErrors(service: service, region: self.configuration.region)
        let (path, query) = Self.split(request.head.path ?? "/")
        let authorization = request.headers.value(of: .authorization)
        let queryAuthentication = SignatureParameters.queryHasSignature(query)

        let parameters: SignatureParameters
        switch (authorization, queryAuthentication) {
        case (.some, true): throw errors.twoMechanisms()
        case (.some(let header), false): parameters = try .fromHeader(header, request: request, errors: errors)
        case (.none, true): parameters = try .fromQuery(query, errors: errors)
        case (.none, false): throw errors.missingAuthentication()
        }
        try parameters.checkScope(errors: errors)

        let now = Int64(self.timeSource.now().timeIntervalSince1970.rounded(.down))
        let (caller, secret) = try self.caller(for: parameters, now: now, errors: errors)
        try self.checkTime(of: parameters, now: now, errors: errors)
        let payload = try Self.payloadHash(of: request, parameters: parameters, given: payloadHash, errors: errors)

        let headers = try Self.signedHeaders(of: request, parameters: parameters, errors: errors)
        let canonicalRequest: [UInt8]
        do {
            canonicalRequest = try SigV4Canonical.canonicalRequestBytes(
                method: request.method.rawValue, path: String(path), query: String(query), headers: headers,
                signedHeaderNames: parameters.signedHeaders, payloadHash: payload, rules: .for(service: service),
                excludingQueryParameter: parameters.presigned ? "X-Amz-Signature" : nil)
        } catch {
            // Every signed header is supplied above, so this is not reached; refuse rather than guess.
            throw errors.signatureMismatch(
                accessKeyId: parameters.accessKeyId, stringToSign: "", provided: parameters.signature, canonicalRequest: "")
        }
        // Hashed and signed as bytes; made text only for the error that shows them.
        let stringToSign = SigV4Canonical.stringToSign(
            canonicalRequestBytes: canonicalRequest, amzDate: parameters.amzDate, scope: parameters.scope)
        let key = self.keyCache.signingKey(
            secretAccessKey: secret, day: parameters.day, region: parameters.region, service: parameters.service)
        let expected = SigV4Canonical.signature(stringToSignBytes: stringToSign, key: key)
        guard SigV4Canonical.constantTimeEquals(expected, parameters.signature) else {
            throw errors.signatureMismatch(
                accessKeyId: parameters.accessKeyId, stringToSign: String(decoding: stringToSign, as: UTF8.self),
                provided: parameters.signature,
                canonicalRequest: Self.redacting(parameters.securityToken, in: String(decoding: canonicalRequest, as: UTF8.self)))
        }

        var authenticated = AuthenticatedRequest(caller: caller, payloadHash: payload, presigned: parameters.presigned)
        if payload.hasPrefix("STREAMING-AWS4-HMAC-SHA256-PAYLOAD") {
            authenticated.streaming = StreamingSignature(
                seedSignature: parameters.signature, amzDate: parameters.amzDate, scope: parameters.scope, signingKey: key)
        }
        return authenticated
    }

    // MARK: Steps

    /// The request target's path and query, both as sent.
    static func split(_ target: String) -> (path: Substring, query: Substring) {
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return (target[...], "") }
        return (target[..<mark], target[target.utf8.index(after: mark)...])
    }

    /// The caller named by the access key id, and its secret. A session token must open to a live session
    /// with the same access key id; the administrator's key takes no token.
    private func caller(
        for parameters: SignatureParameters, now: Int64, errors: AuthenticationErrors
    ) throws(AWSErrorResponse) -> (Caller, String) {
        if let admin = self.configuration.adminCredentials, parameters.accessKeyId == admin.accessKeyId {
            if let token = parameters.securityToken, !token.isEmpty { throw errors.invalidToken() }
            return (.admin(accessKeyId: admin.accessKeyId), admin.secretAccessKey)
        }
        guard let token = parameters.securityToken, !token.isEmpty else {
            throw errors.unknownAccessKey(parameters.accessKeyId)
        }
        guard let session = self.sessions.session(for: token), session.accessKeyId == parameters.accessKeyId else {
            throw errors.invalidToken()
        }
        guard now < session.expiresAt else { throw errors.expiredToken() }
        return (.session(session), session.secretAccessKey)
    }

    /// Header signatures (and query signatures outside S3, whose `X-Amz-Expires` AWS ignores) must be within
    /// the allowed skew of the clock; S3's presigned URLs are valid from their date to date + expires, and
    /// one that expires after 0 seconds is never valid, as on S3.
    private func checkTime(of parameters: SignatureParameters, now: Int64, errors: AuthenticationErrors) throws(AWSErrorResponse) {
        let skew = Int64(self.configuration.allowedClockSkew)
        if parameters.presigned && errors.isS3 {
            let expires = parameters.expires ?? 0
            if parameters.time - now > skew { throw errors.presignNotYetValid(date: parameters.time, now: now) }
            if expires == 0 || now > parameters.time + Int64(expires) {
                throw errors.presignExpired(expires: expires, expiry: parameters.time + Int64(expires), now: now)
            }
            return
        }
        if abs(now - parameters.time) > skew {
            throw errors.skewed(
                requestTime: parameters.time, requestTimeText: parameters.dateText, now: now,
                allowedSkew: self.configuration.allowedClockSkew)
        }
    }

    /// The payload hash of the canonical request. S3: `x-amz-content-sha256` (required with the header,
    /// `UNSIGNED-PAYLOAD` by default for presigned URLs). Other services: the hash of the body received.
    private static func payloadHash(
        of request: Request, parameters: SignatureParameters, given: String?, errors: AuthenticationErrors
    ) throws(AWSErrorResponse) -> String {
        let header = request.headers.value(of: SignatureParameters.contentSHA256Header)
        guard errors.isS3 else { return given ?? header ?? Self.emptyPayloadHash }
        guard let header else {
            if parameters.presigned { return "UNSIGNED-PAYLOAD" }
            throw errors.missingContentSHA256()
        }
        guard Self.isValidContentSHA256(header) else { throw errors.invalidContentSHA256(header) }
        return header
    }

    /// Whether an `x-amz-content-sha256` value is a SHA-256 in hex or one of S3's payload markers.
    static func isValidContentSHA256(_ value: String) -> Bool {
        switch value {
        case "UNSIGNED-PAYLOAD", "STREAMING-UNSIGNED-PAYLOAD-TRAILER", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
            "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER":
            return true
        default:
            let utf8 = value.utf8
            return utf8.count == 64 && utf8.allSatisfy { byte in
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
            }
        }
    }

    /// The signed headers with their received values. `host` is the request's authority (HTTP/1's `Host`
    /// arrives there). A signed header that was not received is given an empty value, so the signature
    /// fails as AWS's would. S3 also refuses `x-amz-*` headers left out of the signature.
    private static func signedHeaders(
        of request: Request, parameters: SignatureParameters, errors: AuthenticationErrors
    ) throws(AWSErrorResponse) -> [SigV4Request.Header] {
        let signed = parameters.signedHeaders
        guard signed.contains("host") else { throw errors.hostNotSigned() }
        var headers: [SigV4Request.Header] = []
        headers.reserveCapacity(signed.count + 1)
        if let authority = request.head.authority { headers.append(.init("host", authority)) }
        var notSigned: [String] = []
        for field in request.headers {
            let name = field.name.canonicalName
            if signed.contains(name) {
                headers.append(.init(name, field.value))
            } else if errors.isS3, name.hasPrefix("x-amz-") {
                notSigned.append(name)
            }
        }
        if !notSigned.isEmpty { throw errors.headersNotSigned(notSigned) }
        for name in signed where !headers.contains(where: { $0.name == name }) {
            headers.append(.init(name, ""))
        }
        return headers
    }

    /// A canonical request with the session token taken out, for error details.
    private static func redacting(_ token: String?, in text: String) -> String {
        guard let token, !token.isEmpty else { return text }
        return text.replacingOccurrences(of: token, with: "<redacted>")
            .replacingOccurrences(of: SigV4Request.percentEncode(token, keepingSlashes: false), with: "<redacted>")
    }
}
