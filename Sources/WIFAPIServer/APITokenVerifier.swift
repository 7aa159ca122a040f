import AccessRules
import Foundation
import Logging
import WIFCredentials
import WIFFoundation
import WIFHTTP

/// A compact JWS split once into what verification reads: the header and payload as JSON, the
/// signature, and the signed bytes.
struct ParsedToken {
    let compact: Substring
    let header: JSONNode
    let claims: JSONNode
    let signature: [UInt8]
    let signingInput: Substring.UTF8View.SubSequence

    /// The unverified `iss`, to pick the authority that verifies the token.
    var issuer: String? { self.claims.member("iss")?.stringValue }

    /// Splits a token, with or without a `Bearer ` prefix; `nil` when it is not three base64url parts
    /// whose first two are JSON objects.
    init?(_ text: String) {
        let compact = text.hasPrefix("Bearer ") ? text.dropFirst(7) : Substring(text)
        let utf8 = compact.utf8
        guard let firstDot = utf8.firstIndex(of: UInt8(ascii: ".")),
            let secondDot = utf8[utf8.index(after: firstDot)...].firstIndex(of: UInt8(ascii: ".")),
            !utf8[utf8.index(after: secondDot)...].contains(UInt8(ascii: ".")),
            let header = TokenEncoding.decodeBase64URL(utf8[..<firstDot]).flatMap({ try? JSONParser.parse($0) }),
            case .object = header.kind,
            let claims = TokenEncoding.decodeBase64URL(utf8[utf8.index(after: firstDot)..<secondDot]).flatMap({ try? JSONParser.parse($0) }),
            case .object = claims.kind,
            let signature = TokenEncoding.decodeBase64URL(utf8[utf8.index(after: secondDot)...]), !signature.isEmpty
        else { return nil }
        self.compact = compact
        self.header = header
        self.claims = claims
        self.signature = signature
        self.signingInput = utf8[..<secondDot]
    }
}

/// Tokens whose signature and claims verified, by their exact bytes, so a client that sends the same
/// token for an hour pays for the signature once; each use still checks the expiry (and the age limit).
final class VerifiedTokenCache: Sendable {
    struct Entry: Sendable {
        var caller: Caller
        var expiry: Double
        var issuedAt: Double?
    }

    static let capacity = 1024
    private let entries = BoundedCache<ExactText, Entry>(capacity: VerifiedTokenCache.capacity)

    func entry(_ token: ExactText) -> Entry? {
        self.entries[token]
    }

    func store(_ token: ExactText, _ entry: Entry) {
        self.entries.store(entry, for: token)
    }
}

extension APITokenAuthority {
    /// Verifies a token sent in `Authorization` and returns the caller it proves.
    ///
    /// In order: a compact JWS signed with an asymmetric algorithm by the key its `kid` names in the
    /// issuer's key set; `iss` is the authority's; `exp` has not passed and `nbf` has, within the leeway;
    /// for a user pool, `token_use` is `id` with `aud`, or `access` with `client_id`, naming an accepted
    /// client; for OIDC, `aud` names an accepted client when any are configured and `iat` is recent
    /// enough when a limit is set. A token seen before is not verified again, only its times.
    /// - Parameters:
    ///   - token: The token, with or without a `Bearer ` prefix.
    ///   - logger: Where to log key loads.
    /// - Returns: The access-rule caller with every string and string-list claim.
    /// - Throws: ``APIAuthorizationError`` 401 naming the check that failed, never the token.
    public func verify(_ token: String, logger: Logger = .noop) async throws(APIAuthorizationError) -> Caller {
        guard let parsed = ParsedToken(token) else {
            throw .unauthorized("the token is not a signed JWT (three base64url parts, the first two JSON objects)", mode: self.mode)
        }
        return try await self.verify(parsed, logger: logger)
    }

    /// The caller of a token this authority verified before, its times checked again; `nil` for a token
    /// not seen yet.
    func cached(_ token: ExactText) throws(APIAuthorizationError) -> Caller? {
        guard let cached = self.verified.entry(token) else { return nil }
        let mode = self.mode
        try self.checkTimes(expiry: cached.expiry, notBefore: nil, issuedAt: cached.issuedAt) { .unauthorized($0, mode: mode) }
        return cached.caller
    }

    func verify(_ parsed: ParsedToken, logger: Logger) async throws(APIAuthorizationError) -> Caller {
        let mode = self.mode
        func refuse(_ message: String) -> APIAuthorizationError { .unauthorized(message, mode: mode) }
        let exact = ExactText(token: parsed.compact)
        if let cached = try self.cached(exact) { return cached }
        let header = parsed.header
        guard let algorithm = header.member("alg")?.stringValue else { throw refuse("the token's header has no alg") }
        guard JWKSKeyRing.idTokenAlgorithms.contains(algorithm) else {
            throw refuse("the token is signed with '\(algorithm.prefix(16))'; only RS*, PS* and ES* signatures from the issuer's keys are accepted")
        }
        if header.member("crit") != nil { throw refuse("the token's header has critical extensions") }
        let keyId: String?
        switch header.member("kid")?.kind {
        case nil: keyId = nil
        case .string(let value)?: keyId = value
        default: throw refuse("the token header's kid is not a string")
        }
        var ring: JWKSKeyRing
        do {
            ring = try await self.keys.keys(logger: logger)
            if ring.key(for: keyId) == nil { ring = try await self.keys.reloadIfAllowed(logger: logger).0 }
        } catch {
            throw refuse("the issuer's keys cannot be loaded: \(error)")
        }
        let keyName = keyId.map { "'\($0.prefix(64))'" } ?? "(no kid)"
        guard let key = ring.key(for: keyId) else { throw refuse("the token names key \(keyName), which is not in the issuer's key set") }
        guard key.algorithmName == algorithm else {
            throw refuse("the token says \(algorithm) but the issuer's key \(keyName) is for \(key.algorithmName)")
        }
        guard key.verifies(parsed.signature, signingInput: ArraySlice(parsed.signingInput)) else {
            throw refuse("the token's signature does not verify with the issuer's key \(keyName)")
        }
        let node = parsed.claims
        let claims = ClaimValue.claims(of: node)
        guard let expiry = Self.number(node.member("exp")) else { throw refuse("the token has no exp") }
        let issuedAt = Self.number(node.member("iat"))
        try self.checkClaims(claims, refuse: refuse)
        try self.checkTimes(expiry: expiry, notBefore: Self.number(node.member("nbf")), issuedAt: issuedAt, refuse: refuse)
        let caller = Caller(authMode: self.kind == .userPool ? .userPools : .oidc, claims: claims)
        self.verified.store(exact, VerifiedTokenCache.Entry(caller: caller, expiry: expiry, issuedAt: issuedAt))
        return caller
    }

    private func checkTimes(
        expiry: Double, notBefore: Double?, issuedAt: Double?, refuse: (String) -> APIAuthorizationError
    ) throws(APIAuthorizationError) {
        let now = self.timeSource.now().timeIntervalSince1970
        let leeway = Double(self.leeway.components.seconds)
        guard now <= expiry + leeway else { throw refuse("the token expired at \(Self.date(expiry))") }
        if let notBefore, now + leeway < notBefore { throw refuse("the token is not valid before \(Self.date(notBefore))") }
        if self.kind == .oidc, let limit = self.issuedAtLimit {
            guard let issuedAt else { throw refuse("the token has no iat") }
            guard now - issuedAt <= Double(limit.components.seconds) + leeway else {
                throw refuse("the token was issued at \(Self.date(issuedAt)), longer ago than this API accepts")
            }
        }
    }

    private func checkClaims(_ claims: [String: ClaimValue], refuse: (String) -> APIAuthorizationError) throws(APIAuthorizationError) {
        guard case .string(let issuer)? = claims["iss"] else { throw refuse("the token has no iss") }
        guard issuer == self.issuer else { throw refuse("the token's iss is '\(issuer.prefix(200))', not this API's issuer '\(self.issuer)'") }
        let audiences: [String]
        switch claims["aud"] {
        case .string(let single)?: audiences = [single]
        case .strings(let list)?: audiences = list
        case nil: audiences = []
        }
        switch self.kind {
        case .userPool:
            switch claims["token_use"] {
            case .string("id")?:
                guard audiences.contains(where: self.clientIds.contains) else {
                    throw refuse("the ID token's aud (\(audiences.joined(separator: ", ").prefix(200))) is not an app client of this API")
                }
            case .string("access")?:
                guard case .string(let client)? = claims["client_id"], self.clientIds.contains(client) else {
                    throw refuse("the access token's client_id is not an app client of this API")
                }
            case .string(let other)?: throw refuse("the token's token_use is '\(other.prefix(32))', not id or access")
            default: throw refuse("the token has no token_use, so it is not a user pool token")
            }
        case .oidc:
            if !self.clientIds.isEmpty, !audiences.contains(where: self.clientIds.contains) {
                throw refuse("the token's aud (\(audiences.joined(separator: ", ").prefix(200))) is not a client of this API")
            }
        }
    }

    private static func number(_ node: JSONNode?) -> Double? {
        guard case .number(let text)? = node?.kind else { return nil }
        return Double(text)
    }

    private static func date(_ seconds: Double) -> String {
        AWSDate.extended(Int64(seconds))
    }
}
