import Foundation
import JWTKit
import Logging

/// The signing keys of one issuer, by key id, each with the one algorithm it verifies.
struct IDTokenKeyRing: Sendable {
    /// One public key and its algorithm.
    struct Key: Sendable {
        /// The JWS `alg` this key verifies; a token naming another is refused, so an RSA key can never
        /// be used as an HMAC secret or with another padding.
        var algorithmName: String
        var algorithm: any JWTAlgorithm
    }

    /// The algorithms an ID token may be signed with.
    static let supportedAlgorithms: Set<String> = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"]

    let keys: [String: Key]
    /// The key of a set with exactly one key, for tokens without `kid`.
    let onlyKey: Key?

    /// The key a token's `kid` names; without `kid`, the set's key when it has exactly one.
    func key(for keyId: String?) -> Key? {
        guard let keyId else { return self.onlyKey }
        return self.keys[keyId]
    }

    /// Reads a JWKS document. Keys of types or algorithms that cannot sign ID tokens (encryption keys,
    /// symmetric keys) are skipped.
    /// - Parameters:
    ///   - bytes: The JWKS JSON.
    ///   - source: Where it came from, for messages.
    /// - Throws: ``WIFCredentialsError`` `malformedResponse` when the document is not a key set, holds
    ///   an invalid key, or no usable key.
    static func decode(_ bytes: [UInt8], source: String) async throws(WIFCredentialsError) -> IDTokenKeyRing {
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
        let set: LenientSet
        do {
            set = try JSONDecoder().decode(LenientSet.self, from: Data(bytes))
        } catch {
            throw .malformedResponse("\(source) is not a JSON Web Key Set (an object with a 'keys' array)")
        }
        let collection = JWTKeyCollection()
        var keys: [String: Key] = [:]
        for (index, entry) in set.keys.enumerated() {
            guard var jwk = entry.jwk, entry.use == nil || entry.use == "sig", let algorithm = Self.algorithm(of: jwk) else { continue }
            // A key without kid gets a name no token header can carry: it serves tokens without kid only.
            let keyId = jwk.keyIdentifier?.string ?? "\u{0}key-\(index)"
            jwk.keyIdentifier = JWKIdentifier(string: keyId)
            do {
                try await collection.add(jwk: jwk)
                let verifier = try await collection.getKey(for: JWKIdentifier(string: keyId), alg: algorithm)
                keys[keyId] = Key(algorithmName: algorithm, algorithm: verifier)
            } catch {
                throw .malformedResponse("key \(index + 1) of \(source) is not a valid \(algorithm) public key")
            }
        }
        guard !keys.isEmpty else {
            throw .malformedResponse("\(source) holds no RSA or EC signing key")
        }
        return IDTokenKeyRing(keys: keys, onlyKey: keys.count == 1 ? keys.first?.value : nil)
    }

    /// The key's algorithm: its `alg`, else RS256 for RSA and the curve's for EC keys.
    private static func algorithm(of jwk: JWK) -> String? {
        if let declared = jwk.algorithm?.rawValue {
            return Self.supportedAlgorithms.contains(declared) ? declared : nil
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
actor IDTokenKeyCache {
    /// Fetches the JWKS document.
    typealias Load = @Sendable (Logger) async throws -> [UInt8]

    /// How long after a load another one may be made for an unknown `kid`, so a stream of forged
    /// tokens cannot make the client hammer the issuer.
    static let minimumReloadInterval: TimeInterval = 60

    private let load: Load
    private let source: String
    private let timeSource: TimeSource
    private var ring: IDTokenKeyRing?
    private var loadedAt: Date?

    init(source: String, timeSource: TimeSource, load: @escaping Load) {
        self.source = source
        self.timeSource = timeSource
        self.load = load
    }

    /// The keys, loading them on first use.
    func keys(logger: Logger) async throws -> IDTokenKeyRing {
        if let ring { return ring }
        return try await self.reload(logger: logger)
    }

    /// Loads the keys again unless they were loaded less than ``minimumReloadInterval`` ago.
    /// - Returns: The keys, and whether they were loaded now.
    func reloadIfAllowed(logger: Logger) async throws -> (IDTokenKeyRing, reloaded: Bool) {
        if let ring, let loadedAt, self.timeSource.now().timeIntervalSince(loadedAt) < Self.minimumReloadInterval {
            return (ring, false)
        }
        return (try await self.reload(logger: logger), true)
    }

    private func reload(logger: Logger) async throws -> IDTokenKeyRing {
        let bytes = try await self.load(logger)
        let ring = try await IDTokenKeyRing.decode(bytes, source: self.source)
        self.ring = ring
        self.loadedAt = self.timeSource.now()
        logger.debug("loaded the issuer's signing keys", metadata: ["wif.oauth.jwks": "\(self.source)", "wif.oauth.jwks.keys": "\(ring.keys.count)"])
        return ring
    }
}
