import Crypto
import Foundation
import JWTKit
import Logging
import WIFCredentials
import WIFFoundation
import WIFHTTP

/// What a verified web-identity token says.
struct VerifiedToken: Sendable {
    /// The identity.
    var identity: IdentityRecord
    /// The token's expiry (`exp`), in seconds since 1970, if it has one.
    var expiresAt: Int64?
    /// The token's `https://aws.amazon.com/source_identity` claim, if any.
    var sourceIdentity: String?
    /// Every claim of an ID token, for identity pools' role mappings; empty for access tokens.
    var claims: [String: TokenJSON] = [:]
    /// An ID token's `nbf`, if it has one.
    var notBefore: Int64? = nil
    /// An ID token's `iat`, if it has one.
    var issuedAt: Int64? = nil
}

/// Verifies web-identity tokens as STS does, before any trust policy is looked at.
///
/// - With a `ProviderId` (`graph.facebook.com`, `www.amazon.com`) the token is an opaque access token of
///   that provider (see ``OpaqueAccessToken``): its authentication code, provider, expiry and app id are
///   checked.
/// - Without, the token is an OpenID Connect ID token: a compact JWS whose `iss` names a provider profile
///   (Google and Cognito tokens carry the real issuers, the `oidc` profile the stack's) or an external
///   issuer. Its `alg` must be the algorithm of the key its `kid` names (so `none`, HMAC and every
///   algorithm substitution fail), the signature must verify with that key, `exp`, `nbf` and `iat` must
///   hold within ``LocalConfiguration/tokenLeeway``, and `aud` (for Google, `aud` or `azp`) must include
///   one of the issuer's client ids.
///
/// Keys are parsed once and then shared; verification itself takes no lock beyond one lookup. A token
/// naming a key that an issuer's JWKS URL did not list fetches the set again, at most once per
/// ``KeyRingCache/minimumReloadInterval`` of the stack's clock, so keys the issuer rotates in are
/// accepted without a restart.
///
/// An ID token that verified is remembered by its text (at most ``verifiedTokenCapacity`` of them), so
/// the next call with it checks only `exp`, `nbf` and `iat` again, as a client that assumes a role
/// with one token many times expects to pay for its signature once. A key the issuer withdraws
/// therefore stops new tokens at once and tokens already seen when they expire.
struct TokenVerifier: Sendable {
    /// The shortest token STS accepts.
    static let minimumTokenLength = 4
    /// The longest token STS accepts.
    static let maximumTokenLength = 20_000
    /// The largest JWKS document fetched from an external issuer.
    static let maximumJWKSBytes = 1 << 20

    /// An issuer whose ID tokens are accepted.
    struct TrustedIssuer: Sendable {
        /// Who may present the issuer's tokens: a provider kind and its client ids, in configuration order.
        struct Audience: Sendable {
            var kind: ProviderProfile.Kind
            var clientIds: Set<String>
        }

        var issuer: String
        var source: KeyRingCache.Source
        var audiences: [Audience]
    }

    /// Fetches the JWKS of an external issuer.
    typealias JWKSFetcher = @Sendable (_ url: URL, _ logger: Logger) async throws(LocalStackError) -> [UInt8]

    private let timeSource: TimeSource
    /// The leeway for `exp`, `nbf` and `iat`, in seconds.
    let tokenLeeway: Int64
    private let logger: Logger
    private let opaqueKey: SymmetricKey
    private let opaqueClientIds: [OpaqueAccessToken.Provider: Set<String>]
    private let issuers: [String: TrustedIssuer]
    private let stackKey: IssuerSigningKey
    private let externalKeySets: [Int: ExternalKeySet]
    private let cache = KeyRingCache()
    /// ID tokens verified before, by their text: a client that presents one token for its whole life
    /// pays for its signature and claims once, and each use checks only its times again.
    private let verified = BoundedCache<ExactText, VerifiedToken>(capacity: TokenVerifier.verifiedTokenCapacity)
    /// The most verified ID tokens remembered.
    static let verifiedTokenCapacity = 4096
    private let fetchJWKS: JWKSFetcher

    private enum ExternalKeySet: Sendable {
        case document(JWKSKeyRing.Document, source: String)
        case url(URL)
    }

    /// Creates the verifier of a stack: loads the issuer key, the opaque-token key and every external
    /// issuer's JWKS file (JWKS URLs are fetched on first use).
    /// - Throws: ``LocalStackError`` when a key cannot be loaded or an external issuer is unusable.
    init(state: LocalState) throws(LocalStackError) {
        try self.init(state: state, fetchJWKS: Self.fetchWithHTTPClient)
    }

    /// Creates a verifier that fetches JWKS URLs with `fetchJWKS`.
    init(state: LocalState, fetchJWKS: @escaping JWKSFetcher) throws(LocalStackError) {
        let configuration = state.configuration
        self.timeSource = state.timeSource
        self.tokenLeeway = Int64(max(0, configuration.tokenLeeway))
        self.logger = state.logger
        self.fetchJWKS = fetchJWKS
        self.opaqueKey = try state.data.secret(named: DevelopmentTokenIssuer.opaqueKeyFileName)
        self.stackKey = try IssuerSigningKey.load(
            from: state.data, now: state.timeSource.now(), subject: ProviderProfile.keyPrefix(ofIssuer: configuration.issuer)
        )

        var opaque: [OpaqueAccessToken.Provider: Set<String>] = [:]
        var issuers: [String: TrustedIssuer] = [:]
        for profile in configuration.providers {
            if let provider = OpaqueAccessToken.Provider(kind: profile.kind) {
                opaque[provider, default: []].formUnion(profile.clientIds)
                continue
            }
            let issuer = profile.issuer ?? ProviderProfile.standardIssuer(for: profile.kind, developmentIssuer: configuration.issuer) ?? ""
            issuers[issuer, default: TrustedIssuer(issuer: issuer, source: .stack, audiences: [])]
                .audiences.append(.init(kind: profile.kind, clientIds: Set(profile.clientIds)))
        }
        // Identity pools' OpenID tokens (`GetOpenIdToken`) are signed with the stack's key for their pool ids.
        let cognitoIssuer = ProviderProfile.standardIssuer(for: .cognito, developmentIssuer: configuration.issuer) ?? ""
        if !configuration.identityPools.isEmpty {
            issuers[cognitoIssuer, default: TrustedIssuer(issuer: cognitoIssuer, source: .stack, audiences: [])]
                .audiences.append(.init(kind: .cognito, clientIds: Set(configuration.identityPools.map(\.id))))
        }
        var external: [Int: ExternalKeySet] = [:]
        for (index, entry) in configuration.externalIssuers.enumerated() {
            guard issuers[entry.issuer] == nil else {
                state.logger.warning(
                    "an external issuer repeats the issuer of a provider profile or another external issuer; the first is used",
                    metadata: ["wif.local.issuer": "\(entry.issuer)"]
                )
                continue
            }
            if let path = entry.jwksFile {
                guard let bytes = FileManager.default.contents(atPath: path) else {
                    throw LocalStackError("cannot read the JWKS file \(path) of the external issuer \(entry.issuer)")
                }
                let source = "the JWKS file \(path)"
                external[index] = .document(try JWKSKeyRing.externalDocument(Array(bytes), source: source), source: source)
            } else if let address = entry.jwksURL {
                guard let url = URL(string: address), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", url.host != nil else {
                    throw LocalStackError("the JWKS URL \(address) of the external issuer \(entry.issuer) is not an http or https URL")
                }
                external[index] = .url(url)
            } else {
                throw LocalStackError("the external issuer \(entry.issuer) needs a jwksFile or a jwksURL")
            }
            issuers[entry.issuer] = TrustedIssuer(
                issuer: entry.issuer, source: .external(index), audiences: [.init(kind: .oidc, clientIds: Set(entry.clientIds))]
            )
        }
        self.opaqueClientIds = opaque
        self.issuers = issuers
        self.externalKeySets = external
    }

    /// Verifies a token.
    /// - Parameters:
    ///   - token: The `WebIdentityToken` parameter.
    ///   - providerId: The `ProviderId` parameter; `nil` or empty for ID tokens.
    /// - Returns: The identity, the token's expiry and its source identity.
    /// - Throws: ``AWSErrorResponse`` with STS's code: `ValidationError` (length), `InvalidParameterValue`
    ///   (provider id), `InvalidIdentityToken`, `ExpiredTokenException` or `IDPRejectedClaim`.
    func verify(_ token: String, providerId: String?) async throws(AWSErrorResponse) -> VerifiedToken {
        do throws(AWSErrorResponse) {
            let length = token.utf8.count
            guard length >= Self.minimumTokenLength, length <= Self.maximumTokenLength else {
                throw TokenRejection.length(length)
            }
            if let providerId, !providerId.isEmpty {
                return try self.verifyAccessToken(token, providerId: providerId)
            }
            let key = ExactText(token: token[...])
            if let known = self.verified[key], let expiration = known.expiresAt {
                try self.checkTimes(expiration: expiration, notBefore: known.notBefore, issuedAt: known.issuedAt)
                return known
            }
            let verified = try await self.verifyIDToken(Array(token.utf8))
            self.verified.store(verified, for: key)
            return verified
        } catch {
            self.logger.debug(
                "web identity token refused",
                metadata: ["wif.local.token.error_code": "\(error.code)", "wif.local.token.provider_id": "\(providerId ?? "")"]
            )
            throw error
        }
    }

    /// The current time in whole seconds since 1970.
    var currentTime: Int64 {
        Int64(self.timeSource.now().timeIntervalSince1970.rounded(.down))
    }

    // MARK: Opaque access tokens

    private func verifyAccessToken(_ token: String, providerId: String) throws(AWSErrorResponse) -> VerifiedToken {
        guard let provider = OpaqueAccessToken.Provider(providerId: providerId) else {
            throw TokenRejection.unsupportedProviderId(providerId)
        }
        guard let clientIds = self.opaqueClientIds[provider] else {
            throw TokenRejection.providerNotConfigured(providerId)
        }
        let decoded: OpaqueAccessToken
        do {
            decoded = try OpaqueAccessToken(token: token, provider: provider, key: self.opaqueKey)
        } catch {
            throw TokenRejection.accessTokenRejected(providerId)
        }
        let now = self.currentTime
        guard now < decoded.expiresAt.addingReportingOverflow(self.tokenLeeway).partialValue else {
            throw TokenRejection.expired(now: now, expiration: decoded.expiresAt)
        }
        guard clientIds.contains(decoded.appId) else {
            throw TokenRejection.accessTokenForOtherApp(providerId, appId: decoded.appId)
        }
        return VerifiedToken(
            identity: IdentityRecord(kind: provider.kind, subject: decoded.userId, audiences: [decoded.appId]),
            expiresAt: decoded.expiresAt,
            sourceIdentity: nil
        )
    }

    // MARK: ID tokens

    private func verifyIDToken(_ token: [UInt8]) async throws(AWSErrorResponse) -> VerifiedToken {
        guard let firstDot = token.firstIndex(of: UInt8(ascii: ".")),
            let secondDot = token[(firstDot + 1)...].firstIndex(of: UInt8(ascii: ".")),
            !token[(secondDot + 1)...].contains(UInt8(ascii: "."))
        else {
            throw TokenRejection.malformed("a JWT has three dot-separated parts")
        }
        let header = try Self.decodeObject(token[..<firstDot], part: "header")
        guard let algorithm = header["alg"]?.stringValue else { throw TokenRejection.malformed("the header has no alg") }
        guard JWKSKeyRing.stsAlgorithms.contains(algorithm) else {
            throw TokenRejection.unsupportedAlgorithm(algorithm)
        }
        guard header["crit"] == nil else { throw TokenRejection.criticalHeader }
        let keyId: String?
        switch header["kid"] {
        case .none: keyId = nil
        case .string(let value): keyId = value
        case .some: throw TokenRejection.malformed("the header's kid is not a string")
        }
        let claims = try Self.decodeObject(token[(firstDot + 1)..<secondDot], part: "payload")
        guard let signature = TokenEncoding.decodeBase64URL(token[(secondDot + 1)...]), !signature.isEmpty else {
            throw TokenRejection.malformed("the signature is not base64url")
        }

        guard let issuer = claims["iss"]?.stringValue, !issuer.isEmpty else { throw TokenRejection.missingClaim("iss") }
        guard let trusted = self.issuers[issuer] else { throw TokenRejection.unknownIssuer(issuer) }
        var found = try await self.keyRing(for: trusted).key(for: keyId)
        if found == nil, let ring = await self.reloadedKeyRing(for: trusted) {
            found = ring.key(for: keyId)
        }
        guard let key = found else {
            throw TokenRejection.unknownKey(issuer: issuer, hasKeyId: keyId != nil)
        }
        guard key.algorithmName == algorithm else { throw TokenRejection.unsupportedAlgorithm(algorithm) }
        guard key.verifies(signature, signingInput: token[..<secondDot]) else {
            throw TokenRejection.badSignature(issuer: issuer)
        }
        return try self.identity(from: claims, issuer: trusted)
    }

    private func keyRing(for issuer: TrustedIssuer) async throws(AWSErrorResponse) -> JWKSKeyRing {
        let source = issuer.source
        do {
            return try await self.cache.ring(for: source, now: self.timeSource.now()) { [self] () async throws(LocalStackError) -> JWKSKeyRing in
                try await self.loadRing(source)
            }
        } catch {
            self.logger.warning(
                "cannot load the signing keys of an issuer",
                metadata: ["wif.local.issuer": "\(issuer.issuer)", "wif.local.error": "\(error.message)"]
            )
            throw TokenRejection.keysUnavailable
        }
    }

    /// The issuer's keys fetched again after a token named a key they lack, as STS does when an issuer
    /// rotates its keys: only for JWKS URLs (files and the stack's key do not change while it runs), and
    /// at most once per ``KeyRingCache/minimumReloadInterval``. `nil` when there is nothing newer.
    private func reloadedKeyRing(for issuer: TrustedIssuer) async -> JWKSKeyRing? {
        let source = issuer.source
        guard case .external(let index) = source, case .url? = self.externalKeySets[index] else { return nil }
        do {
            let ring = try await self.cache.reloadForUnknownKey(for: source, now: self.timeSource.now()) {
                [self] () async throws(LocalStackError) -> JWKSKeyRing in
                try await self.loadRing(source)
            }
            if ring != nil {
                self.logger.debug("fetched the signing keys of an issuer again for an unknown key id", metadata: ["wif.local.issuer": "\(issuer.issuer)"])
            }
            return ring
        } catch {
            self.logger.warning(
                "cannot fetch the signing keys of an issuer again; its known keys stay in use",
                metadata: ["wif.local.issuer": "\(issuer.issuer)", "wif.local.error": "\(error.message)"]
            )
            return nil
        }
    }

    private func loadRing(_ source: KeyRingCache.Source) async throws(LocalStackError) -> JWKSKeyRing {
        switch source {
        case .stack:
            do {
                return try await JWKSKeyRing.stack(self.stackKey)
            } catch {
                throw LocalStackError("cannot prepare the development issuer's key: \(error)")
            }
        case .external(let index):
            switch self.externalKeySets[index] {
            case .document(let set, let origin):
                return try await JWKSKeyRing.external(set, source: origin)
            case .url(let url):
                let bytes = try await self.fetchJWKS(url, self.logger)
                let origin = "the JWKS at \(url.absoluteString)"
                return try await JWKSKeyRing.external(try JWKSKeyRing.externalDocument(bytes, source: origin), source: origin)
            case .none:
                throw LocalStackError("no keys are configured for external issuer \(index + 1)")
            }
        }
    }

    private static func decodeObject(_ part: ArraySlice<UInt8>, part name: String) throws(AWSErrorResponse) -> [String: TokenJSON] {
        guard let bytes = TokenEncoding.decodeBase64URL(part) else {
            throw TokenRejection.malformed("the \(name) is not base64url")
        }
        let value: TokenJSON
        do {
            value = try TokenJSON.parse(bytes)
        } catch {
            throw TokenRejection.malformed("the \(name) is not JSON: \(error.reason)")
        }
        guard let object = value.objectValue else { throw TokenRejection.malformed("the \(name) is not a JSON object") }
        return object
    }

    /// Fetches a JWKS over HTTP(S) with AsyncHTTPClient.
    static let fetchWithHTTPClient: JWKSFetcher = { url, logger throws(LocalStackError) in
        let response: TransportResponse
        do {
            response = try await AsyncHTTPClientTransport().send(
                TransportRequest(url: url, method: "GET", headers: [(name: "Accept", value: "application/json"), (name: "User-Agent", value: SwiftWIFVersion.userAgent())], body: []),
                timeout: .seconds(5),
                maximumBodyBytes: Self.maximumJWKSBytes,
                logger: logger
            )
        } catch {
            throw LocalStackError("cannot fetch the JWKS at \(url.absoluteString): \(TransportFailure.reason(error))")
        }
        guard response.status == 200 else {
            throw LocalStackError("the JWKS at \(url.absoluteString) answered HTTP \(response.status)")
        }
        return response.body
    }
}
