import Crypto
import Foundation
import WIFFoundation

/// Seals sessions into session tokens and opens them again, with AES-GCM under a key kept in the data
/// directory. A token cannot be read, forged or altered without the key; the access key id and secret are
/// random per session.
struct SessionCodec: Sendable {
    private static let version: UInt8 = 1
    private let key: SymmetricKey

    init(key: SymmetricKey) {
        self.key = key
    }

    /// A new random access key id, `ASIA` and 16 upper-case letters and digits.
    static func makeAccessKeyId(prefix: String = "ASIA") -> String {
        // 32 symbols, so the low five bits of a random byte pick one uniformly; one draw of 128 bits
        // serves all sixteen.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)
        var id = Array(prefix.utf8)
        id.reserveCapacity(id.count + 16)
        for byte in SecureRandom.bytes(16) { id.append(alphabet[Int(byte & 31)]) }
        return String(decoding: id, as: UTF8.self)
    }

    /// A new random secret access key of 40 characters.
    static func makeSecretAccessKey() -> String {
        let encoded = Data(SecureRandom.bytes(30)).base64EncodedString()
        return String(decoding: encoded.utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: "A") : $0 }, as: UTF8.self)
    }

    /// Seals a session into its session token.
    func seal(_ session: LocalSession) throws -> String {
        let plaintext = session.sealedJSON()
        let box = try AES.GCM.seal(
            plaintext, using: self.key, nonce: try AES.GCM.Nonce(data: SecureRandom.bytes(12)), authenticating: [Self.version])
        guard let combined = box.combined else { throw LocalStackError("cannot seal a session") }
        var token = Data([Self.version])
        token.append(combined)
        return token.base64EncodedString()
    }

    /// Opens a session token.
    /// - Returns: The session, or `nil` when the token is not one of this stack's (malformed, altered, or
    ///   sealed under another key).
    func open(_ token: String) -> LocalSession? {
        guard let data = Data(base64Encoded: token), data.count > 29, data.first == Self.version,
            let box = try? AES.GCM.SealedBox(combined: data.dropFirst()),
            let plaintext = try? AES.GCM.open(box, using: self.key, authenticating: [Self.version])
        else { return nil }
        return try? JSONDecoder().decode(LocalSession.self, from: plaintext)
    }
}
