import Crypto
import Foundation

/// Signs HTTP requests with AWS Signature Version 4, in an `Authorization` header or as a
/// presigned URL.
///
/// The signer is a value: credentials, region, service and the service's ``Rules``. The signing
/// time is always an argument, never read from a clock, so signatures are reproducible. Signing
/// keys are derived once per secret, date, region and service and shared between signers.
///
/// ```swift
/// let signer = SigV4Signer(credentials: credentials, region: "eu-west-3", service: "s3")
/// var request = SigV4Request(method: "GET", host: "s3.eu-west-3.amazonaws.com", path: "/bucket/key")
/// try signer.sign(&request, payload: .empty, date: timeSource.now())
/// let link = try signer.presign(request, date: timeSource.now(), expires: 900)
/// ```
///
/// The signer depends on nothing but swift-crypto; the caller sends the request with any HTTP
/// client, which must send `Host` as ``SigV4Request/host`` and the headers the signer added.
public struct SigV4Signer: Sendable {
    /// The credentials signatures are made with.
    public var credentials: AWSCredentials {
        didSet { self.invalidateKey() }
    }
    /// The region in the credential scope, such as `us-east-1`.
    public var region: String {
        didSet { self.invalidateKey() }
    }
    /// The service's signing name in the credential scope, such as `s3` or `sts`.
    public var service: String {
        didSet { self.invalidateKey() }
    }
    /// How requests are canonicalised for this service.
    public var rules: Rules

    let keyCache: SigV4SigningKeyCache
    /// `/region/service/aws4_request`, the credential scope after the date.
    private(set) var scopeSuffix = ""
    /// Why the credentials, region or service cannot sign, if they cannot.
    private(set) var problem: String?
    /// The last signing key this signer used; replaced whenever the credentials, region or
    /// service change.
    private var lastKey = SigV4SigningKeyCache.LastKey()

    /// The longest validity of a presigned URL SigV4 allows: seven days.
    public static let maximumExpiry = 604_800

    /// Creates a signer.
    /// - Parameters:
    ///   - credentials: The credentials to sign with; a session token is sent with each request.
    ///   - region: The region, such as `us-east-1`.
    ///   - service: The service's signing name, such as `s3` or `sts`.
    ///   - rules: The canonicalisation rules; by default ``Rules/for(service:)`` picks them.
    public init(credentials: AWSCredentials, region: String, service: String, rules: Rules? = nil) {
        self.init(
            credentials: credentials, region: region, service: service, rules: rules,
            keyCache: .shared)
    }

    /// Creates a signer that keeps its signing keys in the given cache.
    package init(
        credentials: AWSCredentials,
        region: String,
        service: String,
        rules: Rules? = nil,
        keyCache: SigV4SigningKeyCache
    ) {
        self.credentials = credentials
        self.region = region
        self.service = service
        self.rules = rules ?? .for(service: service)
        self.keyCache = keyCache
        self.prepare()
    }

    /// Forgets the remembered signing key and checks the new values.
    private mutating func invalidateKey() {
        self.lastKey = SigV4SigningKeyCache.LastKey()
        self.prepare()
    }

    /// Checks the credentials, region and service once, and precomputes the scope, so that each
    /// signature does not redo it.
    private mutating func prepare() {
        self.scopeSuffix = "/" + self.region + "/" + self.service + "/" + SigV4Canonical.terminator
        if self.credentials.accessKeyId.isEmpty {
            self.problem = "the access key id is empty"
        } else if self.credentials.secretAccessKey.isEmpty {
            self.problem = "the secret access key is empty"
        } else if !Self.isScopeElement(self.region) {
            self.problem = "the region '\(self.region)' must be non-empty, without '/' or whitespace"
        } else if !Self.isScopeElement(self.service) {
            self.problem = "the service '\(self.service)' must be non-empty, without '/' or whitespace"
        } else {
            self.problem = nil
        }
    }

    // MARK: Header signing

    /// Signs a request with an `Authorization` header.
    ///
    /// Appends `X-Amz-Date`, `X-Amz-Security-Token` (for temporary credentials),
    /// `X-Amz-Content-SHA256` (under ``Rules/s3``) and `Authorization` to the request's headers,
    /// after removing any left from an earlier signature. Every other header is signed except
    /// hop-by-hop ones and `User-Agent`, so add headers before signing, not after.
    /// - Parameters:
    ///   - request: The request to sign.
    ///   - payload: The body's hash, or ``Payload/unsigned``.
    ///   - date: The signing time; AWS rejects signatures more than 15 minutes off its clock.
    /// - Throws: ``SigV4Error`` with code `signing` when the request, credentials, region
    ///   or service cannot be signed (an empty host, a malformed payload hash, …).
    public func sign(_ request: inout SigV4Request, payload: Payload, date: Date) throws {
        let outcome = try self.signHeaders(request, payload: payload, date: date, capture: false)
        if request.headers.contains(where: { self.isSignatureHeader($0.name) }) {
            request.headers.removeAll { self.isSignatureHeader($0.name) }
        }
        request.headers.append(contentsOf: outcome.addedHeaders)
    }

    /// The headers that sign a request, without changing it.
    ///
    /// The same as ``sign(_:payload:date:)`` but returns the headers to add to the request
    /// (`X-Amz-Date`, `X-Amz-Security-Token`, `X-Amz-Content-SHA256`, `Authorization`). Headers of
    /// those names already in `request` are ignored and must be replaced by these.
    /// - Parameters:
    ///   - request: The request to sign.
    ///   - payload: The body's hash, or ``Payload/unsigned``.
    ///   - date: The signing time.
    /// - Returns: The headers to add.
    /// - Throws: ``SigV4Error`` with code `signing` for unusable input.
    public func signingHeaders(for request: SigV4Request, payload: Payload, date: Date) throws -> [SigV4Request.Header] {
        try self.signHeaders(request, payload: payload, date: date, capture: false).addedHeaders
    }
}

extension SigV4Signer: CustomStringConvertible {
    /// Names the key id, region and service; never the secret or the session token.
    public var description: String {
        "SigV4Signer(accessKeyId: \(self.credentials.accessKeyId), region: \(self.region), service: \(self.service))"
    }
}

// MARK: - Signing steps

extension SigV4Signer {
    /// What signing produced. The canonical request and string to sign are kept only on request,
    /// for tests, verification tooling and `--verbose` output.
    package struct Outcome: Sendable {
        /// Lowercase signed header names joined by `;`, when captured.
        package var signedHeaders: String = ""
        /// 64 lowercase hex digits, when captured.
        package var signature: String = ""
        /// Headers to add (header signing), in the order they should be sent.
        package var addedHeaders: [SigV4Request.Header] = []
        /// The presigned URL (query signing).
        package var url: String = ""
        /// The canonical request, when captured.
        package var canonicalRequest: String?
        /// The string to sign, when captured.
        package var stringToSign: String?
    }

    /// Whether a header is one header signing writes, and so replaces: `Authorization`,
    /// `X-Amz-Date`, `X-Amz-Security-Token`, and `X-Amz-Content-SHA256` when the rules add it.
    func isSignatureHeader(_ name: String) -> Bool {
        switch name.utf8.count {
        case 10: return SigV4Bytes.nameEquals(name, lowercase: "x-amz-date")
        case 13: return SigV4Bytes.nameEquals(name, lowercase: "authorization")
        case 20:
            return SigV4Bytes.nameEquals(name, lowercase: "x-amz-security-token")
                || (self.rules.signsContentSHA256Header && SigV4Bytes.nameEquals(name, lowercase: "x-amz-content-sha256"))
        default: return false
        }
    }

    /// Checks what a signature needs before any work.
    func validate(_ request: SigV4Request, payload: Payload) throws {
        if let problem = self.problem {
            throw SigV4Error.signing(problem)
        }
        if request.host.isEmpty {
            throw SigV4Error.signing("the request has no host")
        }
        if request.method.isEmpty || request.method.utf8.contains(where: { SigV4Bytes.isWhitespace($0) }) {
            throw SigV4Error.signing("the HTTP method '\(request.method)' is empty or contains whitespace")
        }
        if !payload.isValid {
            throw SigV4Error.signing(
                "the payload hash must be 64 hex digits or UNSIGNED-PAYLOAD, not \(payload.hashText.utf8.count) characters")
        }
    }

    private static func isScopeElement(_ text: String) -> Bool {
        !text.isEmpty && !text.utf8.contains { $0 == SigV4Bytes.slash || SigV4Bytes.isWhitespace($0) }
    }

    /// The signed headers of a request: its own (minus unsignable ones and, when `replacing`, the
    /// ones the signer writes), `host` when missing, and `extra`.
    func headerEntries(
        _ request: SigV4Request,
        replacingSignatureHeaders replacing: Bool,
        extra: [(lowercasedName: String, value: String)]
    ) -> [SigV4Canonical.HeaderEntry] {
        var entries: [SigV4Canonical.HeaderEntry] = []
        entries.reserveCapacity(request.headers.count + extra.count + 1)
        var hasHost = false
        for (order, header) in request.headers.enumerated() {
            if SigV4Canonical.isUnsignable(header.name) { continue }
            if replacing && self.isSignatureHeader(header.name) { continue }
            if !hasHost && SigV4Bytes.nameEquals(header.name, lowercase: "host") { hasHost = true }
            entries.append(.init(name: header.name, value: header.value, order: order))
        }
        if !hasHost {
            entries.append(.init(lowercasedName: "host", value: request.host, order: request.headers.count))
        }
        let base = request.headers.count + 1
        for (offset, header) in extra.enumerated() {
            entries.append(.init(lowercasedName: header.lowercasedName, value: header.value, order: base + offset))
        }
        SigV4Canonical.sortHeaders(&entries)
        return entries
    }

    /// Hashes the canonical request in `buffer`, replaces it with the string to sign, and returns
    /// the signature's MAC. With `capture`, keeps both texts in `outcome`.
    func computeSignature(
        canonicalRequest buffer: inout [UInt8],
        timestamp: SigV4Timestamp,
        capture: Bool,
        outcome: inout Outcome
    ) -> SHA256.Digest {
        if capture { outcome.canonicalRequest = String(decoding: buffer, as: UTF8.self) }
        var hasher = SHA256()
        buffer.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        let canonicalHash = hasher.finalize()

        buffer.removeAll(keepingCapacity: true)
        SigV4Bytes.append(SigV4Canonical.algorithm, to: &buffer)
        buffer.append(SigV4Bytes.newline)
        SigV4Bytes.append(timestamp.amzDate, to: &buffer)
        buffer.append(SigV4Bytes.newline)
        self.appendScope(timestamp, to: &buffer)
        buffer.append(SigV4Bytes.newline)
        canonicalHash.withUnsafeBytes { SigV4Bytes.appendHex($0, to: &buffer) }
        if capture { outcome.stringToSign = String(decoding: buffer, as: UTF8.self) }

        let key = self.signingKey(day: timestamp.day)
        return buffer.withUnsafeBytes { key.authenticationCode(for: $0) }
    }

    /// Appends the credential scope, `yyyyMMdd/region/service/aws4_request`.
    @inline(__always)
    func appendScope(_ timestamp: SigV4Timestamp, to buffer: inout [UInt8]) {
        SigV4Bytes.append(timestamp.day, to: &buffer)
        SigV4Bytes.append(self.scopeSuffix, to: &buffer)
    }

    /// The signing key for a day: the one this signer used last, or one from the shared cache.
    func signingKey(day: String) -> SigV4SigningKey {
        if let key = self.lastKey.key(for: day) { return key }
        let key = self.keyCache.signingKey(
            secretAccessKey: self.credentials.secretAccessKey, day: day, region: self.region, service: self.service)
        self.lastKey.remember(key, for: day)
        return key
    }

    /// Header signing, optionally keeping the canonical request and string to sign.
    package func signHeaders(_ request: SigV4Request, payload: Payload, date: Date, capture: Bool) throws -> Outcome {
        try self.validate(request, payload: payload)
        let timestamp = try SigV4Timestamp(date)

        var signed: [(lowercasedName: String, value: String)] = []
        signed.reserveCapacity(3)
        signed.append(("x-amz-date", timestamp.amzDate))
        let token = self.credentials.sessionToken
        if let token, self.rules.signsSessionToken {
            signed.append(("x-amz-security-token", token))
        }
        if self.rules.signsContentSHA256Header {
            signed.append(("x-amz-content-sha256", payload.hashText))
        }
        let sorted = self.headerEntries(request, replacingSignatureHeaders: true, extra: signed)

        // The Authorization value is written around the signed header names, which the canonical
        // request needs too.
        var authorization: [UInt8] = []
        authorization.reserveCapacity(192 + self.credentials.accessKeyId.utf8.count + sorted.count * 20)
        SigV4Bytes.append("AWS4-HMAC-SHA256 Credential=", to: &authorization)
        SigV4Bytes.append(self.credentials.accessKeyId, to: &authorization)
        authorization.append(SigV4Bytes.slash)
        self.appendScope(timestamp, to: &authorization)
        SigV4Bytes.append(", SignedHeaders=", to: &authorization)
        let signedHeadersStart = authorization.count
        SigV4Canonical.appendSignedHeaders(sorted, to: &authorization)
        let signedHeadersEnd = authorization.count

        var outcome = Outcome()
        var buffer: [UInt8] = []
        buffer.reserveCapacity(384 + request.path.utf8.count + request.query.utf8.count)
        authorization.withUnsafeBufferPointer { bytes in
            SigV4Canonical.appendCanonicalRequest(
                method: request.method, path: request.path, query: request.query, extraQuery: [],
                excludingQueryParameter: nil, sortedHeaders: sorted,
                signedHeaders: UnsafeBufferPointer(rebasing: bytes[signedHeadersStart..<signedHeadersEnd]),
                payloadHash: payload.hashText, rules: self.rules, to: &buffer)
        }
        let mac = self.computeSignature(canonicalRequest: &buffer, timestamp: timestamp, capture: capture, outcome: &outcome)

        SigV4Bytes.append(", Signature=", to: &authorization)
        mac.withUnsafeBytes { SigV4Bytes.appendHex($0, to: &authorization) }
        let authorizationText = String(decoding: authorization, as: UTF8.self)
        if capture {
            outcome.signedHeaders = String(decoding: authorization[signedHeadersStart..<signedHeadersEnd], as: UTF8.self)
            outcome.signature = String(authorizationText.utf8.suffix(64)) ?? ""
        }

        outcome.addedHeaders.reserveCapacity(4)
        outcome.addedHeaders.append(.init("X-Amz-Date", timestamp.amzDate))
        if let token { outcome.addedHeaders.append(.init("X-Amz-Security-Token", token)) }
        if self.rules.signsContentSHA256Header {
            outcome.addedHeaders.append(.init("X-Amz-Content-SHA256", payload.hashText))
        }
        outcome.addedHeaders.append(.init("Authorization", authorizationText))
        return outcome
    }
}
