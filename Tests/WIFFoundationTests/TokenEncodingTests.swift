import Foundation
import Testing

@testable import WIFFoundation

@Suite("Token encodings")
struct TokenEncodingTests {
    @Test("base64url round-trips every length and matches Foundation's alphabet swap")
    func base64URLRoundTrip() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = TokenEncoding.base64URL(bytes)
            let foundation = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(encoded == foundation)
            #expect(TokenEncoding.decodeBase64URL(Array(encoded.utf8)) == bytes)
        }
    }

    @Test("base64url decoding refuses padding, foreign characters, impossible lengths and stray bits", arguments: [
        "e30=", "e3+0", "e3/0", "e 30", "a", "abcde", "e31",
    ])
    func base64URLRefusals(text: String) {
        #expect(TokenEncoding.decodeBase64URL(Array(text.utf8)) == nil)
    }

    @Test("Collections without contiguous storage encode and decode as their bytes do")
    func nonContiguousInputs() {
        let bytes: [UInt8] = Array(0...255)
        let encoded = TokenEncoding.base64URL(bytes)
        #expect(TokenEncoding.base64URL(bytes.lazy.map { $0 }) == encoded)
        #expect(TokenEncoding.decodeBase64URL(Array(encoded.utf8).lazy.map { $0 }) == bytes)
        #expect(TokenEncoding.decodeBase64URL(encoded.utf8.dropFirst(0)) == bytes)
        #expect(TokenEncoding.hex(bytes.lazy.map { $0 }) == TokenEncoding.hex(bytes))
    }

    @Test("Hex round-trips and refuses upper case, odd lengths and other characters")
    func hex() {
        let bytes: [UInt8] = [0x00, 0x7F, 0x80, 0xAB, 0xFF]
        #expect(TokenEncoding.hex(bytes) == "007f80abff")
        #expect(TokenEncoding.decodeHex(Array("007f80abff".utf8)) == bytes)
        for text in ["0", "AB", "0g", "0x"] {
            #expect(TokenEncoding.decodeHex(Array(text.utf8)) == nil)
        }
    }
}
