import Foundation
import JWTKit
import WIFCredentials

extension JWKSKeyRing {
    /// The ring of the development issuer's key.
    static func stack(_ key: IssuerSigningKey) async throws -> JWKSKeyRing {
        let collection = JWTKeyCollection()
        let identifier = JWKIdentifier(string: key.keyId)
        await collection.add(rsa: try Insecure.RSA.PublicKey(backing: key.publicKey), digestAlgorithm: .sha256, kid: identifier)
        let algorithm = try await collection.getKey(for: identifier, alg: "RS256")
        return JWKSKeyRing(keys: [key.keyId: Key(algorithmName: "RS256", algorithm: algorithm)])
    }

    /// The ring of an external issuer's JWKS, with the algorithms STS accepts.
    /// - Throws: ``LocalStackError`` naming the source when the set is unusable.
    static func external(_ document: Document, source: String) async throws(LocalStackError) -> JWKSKeyRing {
        do {
            return try await Self.ring(document, source: source, algorithms: Self.stsAlgorithms)
        } catch {
            throw LocalStackError(error.reason)
        }
    }

    /// Reads an external issuer's JWKS document.
    /// - Throws: ``LocalStackError`` naming the source when it is not a JWKS.
    static func externalDocument(_ bytes: [UInt8], source: String) throws(LocalStackError) -> Document {
        do {
            return try Self.document(bytes, source: source)
        } catch {
            throw LocalStackError(error.reason)
        }
    }
}
