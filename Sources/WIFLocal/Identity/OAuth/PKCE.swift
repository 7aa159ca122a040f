import Crypto
import Foundation
import WIFFoundation

/// Proof Key for Code Exchange (RFC 7636) with the S256 method only: `plain` would send the secret in
/// the authorization request itself.
enum PKCE {
    /// The one method supported.
    static let method = "S256"

    /// Whether text is 43 to 128 characters of `A-Z a-z 0-9 - . _ ~` (the form of both verifiers and
    /// challenges, RFC 7636 §4.1–4.2).
    static func isWellFormed(_ text: String) -> Bool {
        (43...128).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                true
            default:
                false
            }
        }
    }

    /// The S256 challenge of a verifier: `BASE64URL(SHA256(verifier))`.
    static func challenge(of verifier: String) -> String {
        TokenEncoding.base64URL(Array(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// Whether a verifier matches a challenge, compared in constant time.
    static func verify(_ verifier: String, challenge: String) -> Bool {
        guard self.isWellFormed(verifier) else { return false }
        return OAuthSecrets.constantTimeEqual(self.challenge(of: verifier), challenge)
    }
}

/// Random tokens and their digests.
enum OAuthSecrets {
    /// A random token: 32 random bytes, base64url (43 characters).
    static func randomToken() -> String {
        TokenEncoding.base64URL(SecureRandom.bytes(32))
    }

    /// The SHA-256 of a token, in hexadecimal: what is kept instead of the token, so that neither memory
    /// dumps of the tables nor the data directory hold a usable token.
    static func digest(_ token: String) -> String {
        TokenEncoding.hex(Array(SHA256.hash(data: Data(token.utf8))))
    }

    /// Compares two strings in time that depends only on their lengths, by comparing their SHA-256 digests.
    static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(SHA256.hash(data: Data(lhs.utf8)))
        let right = Array(SHA256.hash(data: Data(rhs.utf8)))
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
