import Foundation
import JWTKit

/// One public key that verifies ID tokens, with the only algorithm it accepts.
struct VerificationKey: Sendable {
    /// The JWS `alg` the key verifies (`RS256`, `ES256`, …); a token naming another is refused, so a
    /// public key can never be used as an HMAC secret or with a weaker algorithm.
    let algorithmName: String
    /// jwt-kit's verifier for the key.
    let algorithm: any JWTAlgorithm

    /// Whether `signature` is the key's signature of `signingInput`.
    func verifies(_ signature: [UInt8], signingInput: ArraySlice<UInt8>) -> Bool {
        (try? self.algorithm.verify(signature, signs: signingInput)) ?? false
    }
}

/// The keys of one issuer, by key id. Built once and then only read, so verification takes no lock.
struct VerificationKeyRing: Sendable {
    /// The algorithms AWS STS accepts for OpenID Connect ID tokens.
    static let supportedAlgorithms: Set<String> = ["RS256", "RS384", "RS512", "ES256", "ES384", "ES512"]

    private let keys: [String: VerificationKey]
    private let onlyKey: VerificationKey?

    init(keys: [String: VerificationKey]) {
        self.keys = keys
        self.onlyKey = keys.count == 1 ? keys.first?.value : nil
    }

    /// The number of keys.
    var count: Int { self.keys.count }

    /// The key a token's `kid` names; a token without `kid` gets the issuer's key when it has exactly one.
    func key(for keyId: String?) -> VerificationKey? {
        guard let keyId else { return self.onlyKey }
        return self.keys[keyId]
    }

    /// The ring of the development issuer's key.
    static func stack(_ key: IssuerSigningKey) async throws -> VerificationKeyRing {
        let collection = JWTKeyCollection()
        let identifier = JWKIdentifier(string: key.keyId)
        await collection.add(rsa: try Insecure.RSA.PublicKey(backing: key.publicKey), digestAlgorithm: .sha256, kid: identifier)
        let algorithm = try await collection.getKey(for: identifier, alg: "RS256")
        return VerificationKeyRing(keys: [key.keyId: VerificationKey(algorithmName: "RS256", algorithm: algorithm)])
    }

    /// Decodes a JWKS document. Keys of types jwt-kit does not read (symmetric `oct` keys, unknown
    /// types) are left out rather than failing the whole set.
    /// - Throws: ``LocalStackError`` naming the source when the document is not a JWKS.
    static func decodeJWKS(_ bytes: [UInt8], source: String) throws(LocalStackError) -> JWKS {
        struct LenientKey: Decodable {
            let jwk: JWK?
            init(from decoder: any Decoder) throws { self.jwk = try? JWK(from: decoder) }
        }
        struct LenientSet: Decodable {
            let keys: [LenientKey]
        }
        do {
            let set = try JSONDecoder().decode(LenientSet.self, from: Data(bytes))
            return JWKS(keys: set.keys.compactMap(\.jwk))
        } catch {
            throw LocalStackError("\(source) is not a JSON Web Key Set: \(error)")
        }
    }

    /// The ring of a JWKS: its RSA and elliptic-curve signing keys. A key's algorithm is its `alg`, or
    /// else `RS256` for RSA keys and the curve's for EC keys; keys for encryption or other algorithms are
    /// left out. A key without `kid` is kept under a name no token can carry, so it serves only tokens
    /// without `kid`, and only when it is the issuer's only key.
    /// - Throws: ``LocalStackError`` when the set holds no usable key or a key is invalid.
    static func jwks(_ set: JWKS, source: String) async throws(LocalStackError) -> VerificationKeyRing {
        let collection = JWTKeyCollection()
        var keys: [String: VerificationKey] = [:]
        for (index, original) in set.keys.enumerated() {
            var jwk = original
            guard let algorithm = Self.algorithm(of: jwk) else { continue }
            let keyId = jwk.keyIdentifier?.string ?? "\u{0}unnamed-\(index)"
            jwk.keyIdentifier = JWKIdentifier(string: keyId)
            do {
                try await collection.add(jwk: jwk)
                let verifier = try await collection.getKey(for: JWKIdentifier(string: keyId), alg: algorithm)
                keys[keyId] = VerificationKey(algorithmName: algorithm, algorithm: verifier)
            } catch {
                throw LocalStackError("key \(index + 1) of \(source) is not a valid \(algorithm) public key: \(error)")
            }
        }
        guard !keys.isEmpty else {
            throw LocalStackError("\(source) holds no RSA or EC signing key")
        }
        return VerificationKeyRing(keys: keys)
    }

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
