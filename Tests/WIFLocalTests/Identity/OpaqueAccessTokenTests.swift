import Crypto
import Testing
import WIFFoundation

@testable import WIFLocal

@Suite("Opaque access tokens")
struct OpaqueAccessTokenTests {
    let key = SymmetricKey(size: .bits256)

    private func token(_ provider: OpaqueAccessToken.Provider, user: String = "1001", app: String = "app") -> OpaqueAccessToken {
        OpaqueAccessToken(provider: provider, userId: user, appId: app, issuedAt: 1_750_000_000, expiresAt: 1_750_003_600)
    }

    @Test("Tokens round-trip with their provider and key", arguments: [OpaqueAccessToken.Provider.facebook, .amazon])
    func roundTrip(provider: OpaqueAccessToken.Provider) throws {
        let original = self.token(provider, user: "ü-user", app: String(repeating: "a", count: 255))
        let text = try original.encoded(key: self.key)
        #expect(text.hasPrefix(provider.prefix))
        #expect(try OpaqueAccessToken(token: text, provider: provider, key: self.key) == original)
    }

    @Test("A token does not open under another key")
    func otherKey() throws {
        let text = try self.token(.facebook).encoded(key: self.key)
        #expect(throws: OpaqueAccessToken.Rejection.badAuthenticationCode) {
            try OpaqueAccessToken(token: text, provider: .facebook, key: SymmetricKey(size: .bits256))
        }
    }

    @Test("Every altered byte is detected")
    func everyByte() throws {
        let text = try self.token(.facebook).encoded(key: self.key)
        let bytes = try #require(TokenEncoding.decodeHex(Array(text.dropFirst(3).utf8)))
        for index in bytes.indices {
            var altered = bytes
            altered[index] ^= 0x40
            #expect(throws: OpaqueAccessToken.Rejection.self) {
                try OpaqueAccessToken(token: "EAA" + TokenEncoding.hex(altered), provider: .facebook, key: self.key)
            }
        }
    }

    @Test("A Facebook token's bytes in Amazon's shape are refused although their code is genuine")
    func providerBinding() throws {
        let text = try self.token(.facebook).encoded(key: self.key)
        let bytes = try #require(TokenEncoding.decodeHex(Array(text.dropFirst(3).utf8)))
        #expect(throws: OpaqueAccessToken.Rejection.malformed) {
            try OpaqueAccessToken(token: "Atza|" + TokenEncoding.base64URL(bytes), provider: .amazon, key: self.key)
        }
        #expect(throws: OpaqueAccessToken.Rejection.malformed) {
            try OpaqueAccessToken(token: text, provider: .amazon, key: self.key)
        }
    }

    @Test("Empty and oversized ids are refused when encoding")
    func idBounds() {
        #expect(throws: LocalStackError.self) { try self.token(.amazon, user: "").encoded(key: self.key) }
        #expect(throws: LocalStackError.self) { try self.token(.amazon, app: String(repeating: "a", count: 256)).encoded(key: self.key) }
    }
}
