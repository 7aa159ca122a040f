import Crypto
import Foundation
import WIFFoundation

/// A PKCE pair (RFC 7636): a secret code verifier kept by the client and its S256 code challenge sent
/// in the authorization request.
///
/// The verifier never appears in `description`.
public struct OAuth2PKCE: Sendable, Hashable, CustomStringConvertible {
    /// The code verifier: 43–128 characters of `[A-Za-z0-9-._~]`. Sent only to the token endpoint.
    public let verifier: String
    /// `BASE64URL(SHA256(verifier))`, sent in the authorization request.
    public let challenge: String
    /// The challenge method; always `S256`.
    public var method: String { "S256" }

    /// The shortest verifier RFC 7636 §4.1 allows.
    public static let minimumVerifierLength = 43
    /// The longest verifier RFC 7636 §4.1 allows.
    public static let maximumVerifierLength = 128

    /// Derives the challenge of a given verifier.
    /// - Parameter verifier: The code verifier.
    /// - Throws: ``WIFCredentialsError`` with code `invalidParameter` when the verifier is not 43–128
    ///   unreserved characters.
    public init(verifier: String) throws(WIFCredentialsError) {
        let length = verifier.utf8.count
        guard (Self.minimumVerifierLength...Self.maximumVerifierLength).contains(length) else {
            throw .invalidParameter(
                "a PKCE code verifier is \(Self.minimumVerifierLength)–\(Self.maximumVerifierLength) characters; this one is \(length)")
        }
        guard verifier.utf8.allSatisfy({ PercentEncoding.isUnreserved($0) }) else {
            throw .invalidParameter("a PKCE code verifier may hold only letters, digits and - . _ ~ (RFC 7636 §4.1)")
        }
        self.verifier = verifier
        self.challenge = TokenEncoding.base64URL(Array(SHA256.hash(data: Array(verifier.utf8))))
    }

    /// A new pair from 32 random bytes (a 43-character verifier), as RFC 7636 §7.1 recommends.
    /// - Returns: The pair.
    public static func generate() -> OAuth2PKCE {
        let verifier = OAuth2Random.token()
        // A 43-character base64url string always satisfies the verifier rules.
        return OAuth2PKCE(checkedVerifier: verifier)
    }

    private init(checkedVerifier verifier: String) {
        self.verifier = verifier
        self.challenge = TokenEncoding.base64URL(Array(SHA256.hash(data: Array(verifier.utf8))))
    }

    /// The method and challenge; never the verifier.
    public var description: String { "OAuth2PKCE(method: S256, challenge: \(self.challenge))" }
}

/// Random values for `state`, `nonce` and PKCE verifiers.
enum OAuth2Random {
    /// `bytes` bytes from the system's cryptographically secure generator, base64url-encoded.
    static func token(bytes: Int = 32) -> String {
        TokenEncoding.base64URL(SecureRandom.bytes(bytes))
    }
}
