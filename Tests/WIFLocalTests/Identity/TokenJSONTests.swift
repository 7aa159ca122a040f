import Testing

@testable import WIFLocal

@Suite("Token JSON reader")
struct TokenJSONTests {
    private func parse(_ text: String) throws(TokenJSON.SyntaxError) -> TokenJSON {
        try TokenJSON.parse(Array(text.utf8))
    }

    @Test("Reads every kind of value")
    func values() throws {
        let value = try self.parse(#" {"s":"a\"b\\c\/d\u00e9\ud83d\ude00\n","n":-12.5e1,"z":0,"t":true,"f":false,"x":null,"a":[1,"two",[]],"o":{}} "#)
        #expect(
            value
                == .object([
                    "s": .string("a\"b\\c/dé😀\n"), "n": .number(-125), "z": .number(0), "t": .bool(true), "f": .bool(false), "x": .null,
                    "a": .array([.number(1), .string("two"), .array([])]), "o": .object([:]),
                ])
        )
        #expect(try self.parse(#"{"exp":1750000000}"#).objectValue?["exp"]?.numberValue == 1_750_000_000)
        #expect(try self.parse(#""plain""#).stringValue == "plain")
    }

    @Test("Refuses what is not strict JSON", arguments: [
        "", "{", "}", "{\"a\":1,}", "[1,]", "{\"a\" 1}", "{a:1}", "'x'", "01", "1.", ".5", "-", "1e", "+1", "tru", "nul",
        "{\"a\":1} x", "\"unterminated", "\"tab\there\"", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "1e999", "NaN",
        "{\"a\":1,\"a\":2}", "{\"a\":{\"b\":1,\"b\":1}}",
    ])
    func refuses(text: String) {
        #expect(throws: TokenJSON.SyntaxError.self) { try self.parse(text) }
    }

    @Test("Refuses invalid UTF-8 in strings")
    func invalidUTF8() {
        #expect(throws: TokenJSON.SyntaxError.self) { try TokenJSON.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: TokenJSON.SyntaxError.self) { try TokenJSON.parse([0x22, 0x5C, 0x6E, 0xFF, 0x22]) }
    }

    @Test("Accepts nesting up to the limit and refuses deeper")
    func depth() throws {
        let limit = TokenJSON.maximumDepth
        _ = try self.parse(String(repeating: "[", count: limit) + String(repeating: "]", count: limit))
        #expect(throws: TokenJSON.SyntaxError.self) {
            try self.parse(String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1))
        }
        #expect(throws: TokenJSON.SyntaxError.self) {
            try self.parse(String(repeating: #"{"a":"#, count: limit + 1) + "1" + String(repeating: "}", count: limit + 1))
        }
    }

    @Test("A duplicate member's error names it but no value")
    func duplicateMessage() {
        let error = #expect(throws: TokenJSON.SyntaxError.self) { try self.parse(#"{"sub":"secret-1","sub":"secret-2"}"#) }
        #expect(error?.reason.contains("'sub'") == true)
        #expect(error?.reason.contains("secret") == false)
    }
}
