import AccessRules
import Foundation
import Logging
import WIFCredentials
import WIFFoundation
import WIFHTTP

extension APITokenAuthority {
    /// Verifies a token sent in `Authorization` and returns the caller it proves.
    ///
    /// In order: a compact JWS signed with an asymmetric algorithm by the key its `kid` names in the
    /// issuer's key set; `iss` is the authority's; `exp` has not passed and `nbf` has, within the leeway;
    /// for a user pool, `token_use` is `id` with `aud`, or `access` with `client_id`, naming an accepted
    /// client; for OIDC, `aud` names an accepted client when any are configured and `iat` is recent
    /// enough when a limit is set.
    /// - Parameters:
    ///   - token: The token, with or without a `Bearer ` prefix.
    ///   - logger: Where to log key loads.
    /// - Returns: The access-rule caller with every string and string-list claim.
    /// - Throws: ``APIAuthorizationError`` 401 naming the check that failed, never the token.
    public func verify(_ token: String, logger: Logger = .noop) async throws(APIAuthorizationError) -> Caller {
        let mode = self.mode
        func refuse(_ message: String) -> APIAuthorizationError { .unauthorized(message, mode: mode) }
        let compact = token.hasPrefix("Bearer ") ? token.dropFirst(7) : Substring(token)
        let bytes = Array(compact.utf8)
        guard let firstDot = bytes.firstIndex(of: UInt8(ascii: ".")),
            let secondDot = bytes[(firstDot + 1)...].firstIndex(of: UInt8(ascii: ".")),
            !bytes[(secondDot + 1)...].contains(UInt8(ascii: "."))
        else {
            throw refuse("the token is not a signed JWT (three dot-separated parts)")
        }
        let header = try Self.object(bytes[..<firstDot], part: "header", mode: mode)
        let claimsNode = try Self.object(bytes[(firstDot + 1)..<secondDot], part: "payload", mode: mode)
        guard let signature = UnverifiedJWTClaims.decodeBase64URL(Substring(decoding: bytes[(secondDot + 1)...], as: UTF8.self)),
            !signature.isEmpty
        else { throw refuse("the token's signature is not base64url") }

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
        guard key.verifies(Array(signature), signingInput: bytes[..<secondDot]) else {
            throw refuse("the token's signature does not verify with the issuer's key \(keyName)")
        }
        let claims = Self.claims(of: claimsNode)
        try self.check(claims: claims, node: claimsNode, refuse: refuse)
        return Caller(authMode: self.kind == .userPool ? .userPools : .oidc, claims: claims)
    }

    private func check(
        claims: [String: ClaimValue], node: JSONNode, refuse: (String) -> APIAuthorizationError
    ) throws(APIAuthorizationError) {
        guard case .string(let issuer)? = claims["iss"] else { throw refuse("the token has no iss") }
        guard issuer == self.issuer else { throw refuse("the token's iss is '\(issuer.prefix(200))', not this API's issuer '\(self.issuer)'") }
        let now = self.timeSource.now().timeIntervalSince1970
        let leeway = Double(self.leeway.components.seconds)
        guard let expiry = Self.number(node.member("exp")) else { throw refuse("the token has no exp") }
        guard now <= expiry + leeway else { throw refuse("the token expired at \(Self.date(expiry))") }
        if let notBefore = Self.number(node.member("nbf")), now + leeway < notBefore {
            throw refuse("the token is not valid before \(Self.date(notBefore))")
        }
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
            if let limit = self.issuedAtLimit {
                guard let issuedAt = Self.number(node.member("iat")) else { throw refuse("the token has no iat") }
                guard now - issuedAt <= Double(limit.components.seconds) + leeway else {
                    throw refuse("the token was issued at \(Self.date(issuedAt)), longer ago than this API accepts")
                }
            }
        }
    }

    static func claims(of node: JSONNode) -> [String: ClaimValue] {
        ClaimValue.claims(of: node)
    }

    private static func number(_ node: JSONNode?) -> Double? {
        guard case .number(let text)? = node?.kind else { return nil }
        return Double(text)
    }

    private static func date(_ seconds: Double) -> String {
        AWSDate.extended(Int64(seconds))
    }

    private static func object(_ part: ArraySlice<UInt8>, part name: String, mode: APIAuthorizationMode) throws(APIAuthorizationError) -> JSONNode {
        guard let decoded = UnverifiedJWTClaims.decodeBase64URL(Substring(decoding: part, as: UTF8.self)),
            let node = try? JSONParser.parse(Array(decoded)), case .object = node.kind
        else {
            throw .unauthorized("the token's \(name) is not a base64url JSON object", mode: mode)
        }
        return node
    }
}
