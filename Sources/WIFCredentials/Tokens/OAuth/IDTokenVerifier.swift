import Foundation
import Logging
import WIFFoundation
import WIFHTTP
import WIFSigV4

/// Verifies OpenID Connect ID tokens against the issuer's JSON Web Key Set (OpenID Connect Core §3.1.3.7).
///
/// In order: the token is a compact JWS whose `alg` is an asymmetric algorithm (never `none` or HMAC)
/// and the algorithm of the key its `kid` names; the signature verifies with that key (the key set is
/// loaded again once when the `kid` is unknown, as after a key rotation); `iss` is the expected issuer;
/// `aud` contains the client id (and `azp`, when present or when there are several audiences, is the
/// client id); `exp` has not passed and `nbf` has, within the leeway; `iat` and `sub` are present; and
/// `nonce` equals the one sent when one was sent.
///
/// Errors have code `invalidIDToken` and name the check that failed, never the token.
///
/// ```swift
/// let verifier = IDTokenVerifier(jwks: jwksBytes, issuer: "https://issuer.example", clientId: "app")
/// let claims = try await verifier.verify(idToken, nonce: nonce)
/// ```
public struct IDTokenVerifier: Sendable, CustomStringConvertible {
    /// The `iss` every token must carry.
    public let issuer: String
    /// The client id that must be among the token's audiences.
    public let clientId: String
    /// How far clocks may disagree when judging `exp` and `nbf`.
    public let leeway: Duration

    let keys: IDTokenKeyCache
    let timeSource: TimeSource

    /// Creates a verifier for a fixed key set.
    /// - Parameters:
    ///   - jwks: The issuer's JWKS document (JSON).
    ///   - issuer: The expected `iss`.
    ///   - clientId: The expected audience.
    ///   - leeway: Allowed clock disagreement; one minute by default.
    ///   - timeSource: The clock judging `exp` and `nbf`.
    public init(jwks: [UInt8], issuer: String, clientId: String, leeway: Duration = .seconds(60), timeSource: TimeSource = .system) {
        self.init(
            issuer: issuer, clientId: clientId, leeway: leeway, timeSource: timeSource,
            keys: IDTokenKeyCache(source: "the given JWKS", timeSource: timeSource, load: { _ in jwks })
        )
    }

    /// Creates a verifier whose keys come from `keys`.
    init(issuer: String, clientId: String, leeway: Duration, timeSource: TimeSource, keys: IDTokenKeyCache) {
        self.issuer = issuer
        self.clientId = clientId
        self.leeway = leeway
        self.timeSource = timeSource
        self.keys = keys
    }

    /// Verifies a token.
    /// - Parameters:
    ///   - idToken: The ID token.
    ///   - nonce: The nonce sent in the authorization request; `nil` when none was (device flow, refresh).
    ///   - logger: Where to log (never the token).
    /// - Returns: The verified claims.
    /// - Throws: ``WIFCredentialsError`` `invalidIDToken` naming the failed check; `malformedResponse`
    ///   or `network` when the key set cannot be loaded.
    public func verify(
        _ idToken: String,
        nonce: String?,
        logger: Logger = .noop
    ) async throws -> VerifiedIDToken {
        let token = Array(idToken.utf8)
        guard let firstDot = token.firstIndex(of: UInt8(ascii: ".")),
            let secondDot = token[(firstDot + 1)...].firstIndex(of: UInt8(ascii: ".")),
            !token[(secondDot + 1)...].contains(UInt8(ascii: "."))
        else {
            throw WIFCredentialsError.invalidIDToken("the ID token is not a signed JWT (three dot-separated parts)")
        }
        let header = try Self.object(token[..<firstDot], part: "header")
        let claims = try Self.object(token[(firstDot + 1)..<secondDot], part: "payload")
        guard let signature = TokenEncoding.decodeBase64URL(token[(secondDot + 1)...]),
            !signature.isEmpty
        else {
            throw WIFCredentialsError.invalidIDToken("the ID token's signature is not base64url")
        }

        guard let algorithm = header["alg"]?.stringValue else {
            throw WIFCredentialsError.invalidIDToken("the ID token's header has no alg")
        }
        guard JWKSKeyRing.idTokenAlgorithms.contains(algorithm) else {
            throw WIFCredentialsError.invalidIDToken(
                "the ID token is signed with '\(algorithm.prefix(16))'; only RS*, PS* and ES* signatures from the issuer's keys are accepted")
        }
        if header["crit"] != nil {
            throw WIFCredentialsError.invalidIDToken("the ID token's header has critical extensions this client does not understand")
        }
        let keyId: String?
        if let kid = header["kid"] {
            guard let value = kid.stringValue else {
                throw WIFCredentialsError.invalidIDToken("the ID token header's kid is not a string")
            }
            keyId = value
        } else {
            keyId = nil
        }

        var ring = try await self.keys.keys(logger: logger)
        if ring.key(for: keyId) == nil {
            ring = try await self.keys.reloadIfAllowed(logger: logger).0
        }
        let keyName = keyId.map { "'\($0.prefix(64))'" } ?? "(no kid)"
        guard let key = ring.key(for: keyId) else {
            throw WIFCredentialsError.invalidIDToken("the ID token names key \(keyName), which is not in the issuer's key set")
        }
        guard key.algorithmName == algorithm else {
            throw WIFCredentialsError.invalidIDToken(
                "the ID token says \(algorithm) but the issuer's key \(keyName) is for \(key.algorithmName)")
        }
        let verified = (try? key.algorithm.verify(signature, signs: token[..<secondDot])) ?? false
        guard verified else {
            throw WIFCredentialsError.invalidIDToken("the ID token's signature does not verify with the issuer's key \(keyName)")
        }

        return try self.checkClaims(claims, nonce: nonce, keyId: keyId, algorithm: algorithm)
    }

    /// Checks the claims of a token whose signature verified.
    func checkClaims(_ claims: [String: JSONNode], nonce: String?, keyId: String?, algorithm: String) throws(WIFCredentialsError) -> VerifiedIDToken {
        guard let issuer = claims["iss"]?.stringValue else { throw .invalidIDToken("the ID token has no iss") }
        guard issuer == self.issuer else {
            throw .invalidIDToken("the ID token's iss is '\(issuer.prefix(200))', but the issuer is '\(self.issuer)'")
        }
        let audience: [String]
        switch claims["aud"]?.kind {
        case .string(let single)?: audience = [single]
        case .array(let list)?: audience = list.compactMap(\.stringValue)
        default: throw .invalidIDToken("the ID token has no aud")
        }
        guard audience.contains(self.clientId) else {
            throw .invalidIDToken(
                "the ID token's aud (\(audience.joined(separator: ", ").prefix(200))) does not include this client id '\(self.clientId)'")
        }
        let authorizedParty = claims["azp"]?.stringValue
        if let authorizedParty, authorizedParty != self.clientId {
            throw .invalidIDToken("the ID token's azp is '\(authorizedParty.prefix(200))', not this client id '\(self.clientId)'")
        }
        if audience.count > 1, authorizedParty == nil {
            throw .invalidIDToken("the ID token has several audiences but no azp naming this client")
        }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else { throw .invalidIDToken("the ID token has no sub") }

        let now = self.timeSource.now()
        let leeway = Double(self.leeway.components.seconds) + Double(self.leeway.components.attoseconds) / 1e18
        guard let expiresAt = UnverifiedJWTClaims.numericDate(claims["exp"]) else { throw .invalidIDToken("the ID token has no numeric exp") }
        if now >= expiresAt.addingTimeInterval(leeway) {
            throw .invalidIDToken(
                "the ID token expired at \(expiresAt.formatted(.iso8601)) (now \(now.formatted(.iso8601)), leeway \(Int(leeway)) s)")
        }
        if let notBefore = UnverifiedJWTClaims.numericDate(claims["nbf"]), now.addingTimeInterval(leeway) < notBefore {
            throw .invalidIDToken("the ID token is not valid before \(notBefore.formatted(.iso8601)) (now \(now.formatted(.iso8601)))")
        }
        guard let issuedAt = UnverifiedJWTClaims.numericDate(claims["iat"]) else { throw .invalidIDToken("the ID token has no numeric iat") }

        let tokenNonce = claims["nonce"]?.stringValue
        if let nonce {
            guard let tokenNonce else {
                throw .invalidIDToken("the ID token has no nonce, but the sign-in sent one")
            }
            guard SigV4Canonical.constantTimeEquals(tokenNonce, nonce) else {
                throw .invalidIDToken("the ID token's nonce is not the one this sign-in sent (a replayed or substituted token)")
            }
        }
        return VerifiedIDToken(
            issuer: issuer,
            subject: subject,
            audience: audience,
            authorizedParty: authorizedParty,
            expiresAt: expiresAt,
            issuedAt: issuedAt,
            authenticatedAt: UnverifiedJWTClaims.numericDate(claims["auth_time"]),
            nonce: tokenNonce,
            email: claims["email"]?.stringValue,
            keyId: keyId,
            algorithm: algorithm
        )
    }

    /// The issuer and client id.
    public var description: String { "IDTokenVerifier(issuer: \(self.issuer), clientId: \(self.clientId))" }

    /// One part of the token as the members of a JSON object. A member named twice is refused, as
    /// RFC 7519 §4 allows: two `sub` or `aud` claims would leave the token's meaning to the reader.
    private static func object(_ part: ArraySlice<UInt8>, part name: String) throws(WIFCredentialsError) -> [String: JSONNode] {
        guard let data = TokenEncoding.decodeBase64URL(part) else {
            throw .invalidIDToken("the ID token's \(name) is not a base64url JSON object")
        }
        let node: JSONNode
        do {
            node = try JSONParser.parse(data, options: .token)
        } catch {
            // The reader's messages name members and offsets, never values.
            throw .invalidIDToken("the ID token's \(name) is not a base64url JSON object: \(error.message)")
        }
        guard let members = node.objectMembers else {
            throw .invalidIDToken("the ID token's \(name) is not a base64url JSON object")
        }
        return members
    }
}
