import Foundation
import JWTKit
import Logging

/// The signing keys of one issuer, by key id, each with the one algorithm it verifies: read from a
/// JSON Web Key Set by the OIDC client (ID tokens) and by the local stack's STS (web-identity tokens).
///
/// Built once and then only read, so verification takes no lock.
package struct JWKSKeyRing: Sendable {
    /// One public key and its algorithm.
    package struct Key: Sendable {
        /// The JWS `alg` this key verifies; a token naming another is refused, so a public key can
        /// never be used as an HMAC secret, with another padding or with a weaker algorithm.
        package let algorithmName: String
        /// jwt-kit's verifier for the key.
        package let algorithm: any JWTAlgorithm

        package init(algorithmName: String, algorithm: any JWTAlgorithm) {
            self.algorithmName = algorithmName
            self.algorithm = algorithm
        }

        /// Whether `signature` is the key's signature of `signingInput`.
        package func verifies(_ signature: [UInt8], signingInput: ArraySlice<UInt8>) -> Bool {
            (try? self.algorithm.verify(signature, signs: signingInput)) ?? false
        }
    }

    /// The algorithms an OpenID Connect ID token may be signed with.
    package static let idTokenAlgorithms: Set<String> = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"]
    /// The algorithms AWS STS accepts for web-identity tokens.
    package static let stsAlgorithms: Set<String> = ["RS256", "RS384", "RS512", "ES256", "ES384", "ES512"]

    /// The keys by key id.
    package let keys: [String: Key]
    /// The key of a set with exactly one key, for tokens without `kid`.
    package let onlyKey: Key?

    package init(keys: [String: Key]) {
        self.keys = keys
        self.onlyKey = keys.count == 1 ? keys.first?.value : nil
    }

    /// The number of keys.
    package var count: Int { self.keys.count }

    /// The key a token's `kid` names; without `kid`, the set's key when it has exactly one.
    package func key(for keyId: String?) -> Key? {
        guard let keyId else { return self.onlyKey }
        return self.keys[keyId]
    }

    /// Why a key set cannot be used, in words that name its source.
    package struct Problem: Error, Sendable {
        package var reason: String
    }

    /// A JWKS document as read, before its keys are checked: keys jwt-kit cannot read (symmetric
    /// `oct` keys, unknown types) are left out rather than failing the whole set.
    package struct Document: Sendable {
        package var keys: [(jwk: JWK, use: String?)]
    }

    /// Reads a JWKS document.
    /// - Throws: ``Problem`` when it is not an object with a `keys` array.
    package static func document(_ bytes: [UInt8], source: String) throws(Problem) -> Document {
        struct LenientKey: Decodable {
            let jwk: JWK?
            let use: String?
            enum CodingKeys: String, CodingKey { case use }
            init(from decoder: any Decoder) throws {
                self.jwk = try? JWK(from: decoder)
                self.use = try? decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .use)
            }
        }
        struct LenientSet: Decodable {
            let keys: [LenientKey]
        }
        do {
            let set = try JSONDecoder().decode(LenientSet.self, from: Data(bytes))
            return Document(keys: set.keys.compactMap { entry in entry.jwk.map { (jwk: $0, use: entry.use) } })
        } catch {
            throw Problem(reason: "\(source) is not a JSON Web Key Set (an object with a 'keys' array)")
        }
    }

    /// The ring of a document's RSA and elliptic-curve signing keys. A key's algorithm is its `alg`,
    /// else RS256 for RSA keys and the curve's for EC keys; keys for encryption, of other algorithms
    /// or outside `algorithms` are left out. A key without `kid` is kept under a name no token header
    /// can carry, so it serves only tokens without `kid`, and only when it is the set's only key.
    /// - Throws: ``Problem`` when a key is invalid or none is usable.
    package static func ring(_ document: Document, source: String, algorithms: Set<String>) async throws(Problem) -> JWKSKeyRing {
        let collection = JWTKeyCollection()
        var keys: [String: Key] = [:]
        for (index, entry) in document.keys.enumerated() {
            var jwk = entry.jwk
            guard entry.use == nil || entry.use == "sig", let algorithm = Self.algorithm(of: jwk, among: algorithms) else { continue }
            let keyId = jwk.keyIdentifier?.string ?? "\u{0}key-\(index)"
            jwk.keyIdentifier = JWKIdentifier(string: keyId)
            do {
                try await collection.add(jwk: jwk)
                let verifier = try await collection.getKey(for: JWKIdentifier(string: keyId), alg: algorithm)
                keys[keyId] = Key(algorithmName: algorithm, algorithm: verifier)
            } catch {
                throw Problem(reason: "key \(index + 1) of \(source) is not a valid \(algorithm) public key")
            }
        }
        guard !keys.isEmpty else {
            throw Problem(reason: "\(source) holds no RSA or EC signing key")
        }
        return JWKSKeyRing(keys: keys)
    }

    /// The key's algorithm: its `alg`, else RS256 for RSA and the curve's for EC keys.
    private static func algorithm(of jwk: JWK, among algorithms: Set<String>) -> String? {
        if let declared = jwk.algorithm?.rawValue {
            return algorithms.contains(declared) ? declared : nil
        }
        if jwk.keyType == .rsa { return "RS256" }
        if jwk.keyType == .ecdsa {
            switch jwk.curve?.rawValue {
            case "P-256": return "ES256"
            case "P-384": return "ES384"
            case "P-521": return "ES512"
            default: return nil
            }
        }
        return nil
    }
}

/// Loads an issuer's keys once and again when a token names a key the ring lacks (the issuer rotated
/// its keys), at most once per ``minimumReloadInterval``.
package actor IDTokenKeyCache {
    /// Fetches the JWKS document.
    package typealias Load = @Sendable (Logger) async throws -> [UInt8]

    /// How long after a load another one may be made for an unknown `kid`, so a stream of forged
    /// tokens cannot make the client hammer the issuer.
    static let minimumReloadInterval: TimeInterval = 60

    private let load: Load
    private let source: String
    private let timeSource: TimeSource
    private var ring: JWKSKeyRing?
    private var loadedAt: Date?

    package init(source: String, timeSource: TimeSource, load: @escaping Load) {
        self.source = source
        self.timeSource = timeSource
        self.load = load
    }

    /// The keys, loading them on first use.
    package func keys(logger: Logger) async throws -> JWKSKeyRing {
        if let ring { return ring }
        return try await self.reload(logger: logger)
    }

    /// Loads the keys again unless they were loaded less than ``minimumReloadInterval`` ago.
    /// - Returns: The keys, and whether they were loaded now.
    package func reloadIfAllowed(logger: Logger) async throws -> (JWKSKeyRing, reloaded: Bool) {
        if let ring, let loadedAt, self.timeSource.now().timeIntervalSince(loadedAt) < Self.minimumReloadInterval {
            return (ring, false)
        }
        return (try await self.reload(logger: logger), true)
    }

    private func reload(logger: Logger) async throws -> JWKSKeyRing {
        let bytes = try await self.load(logger)
        let ring: JWKSKeyRing
        do {
            ring = try await JWKSKeyRing.ring(
                try JWKSKeyRing.document(bytes, source: self.source), source: self.source, algorithms: JWKSKeyRing.idTokenAlgorithms)
        } catch {
            throw WIFCredentialsError.malformedResponse(error.reason)
        }
        self.ring = ring
        self.loadedAt = self.timeSource.now()
        logger.debug("loaded the issuer's signing keys", metadata: ["wif.oauth.jwks": "\(self.source)", "wif.oauth.jwks.keys": "\(ring.keys.count)"])
        return ring
    }
}
