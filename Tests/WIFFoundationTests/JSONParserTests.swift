import Testing
import WIFFoundation

// Moved from PolicyEngine with the reader, which policies, configuration files and token claims share.

@Suite("JSON reader")
struct JSONParserTests {
    private func parse(_ text: String) throws(JSONParser.SyntaxError) -> JSONNode {
        try JSONParser.parse(Array(text.utf8))
    }

    @Test func keepsKeyOrderAndDuplicates() throws {
        let node = try self.parse(#"{"b": 1, "a": [true, null, "x"], "b": 2.50}"#)
        guard case .object(let members) = node.kind else {
            Issue.record("expected an object")
            return
        }
        #expect(members.map(\.key) == ["b", "a", "b"])
        guard case .number(let text) = members[2].value.kind else {
            Issue.record("expected a number")
            return
        }
        #expect(text == "2.50")
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let node = try self.parse(#""a\"b\\c\/d\n\u00e9\ud83d\ude00""#)
        #expect(node.stringValue == "a\"b\\c/d\né😀")
    }

    @Test(arguments: [
        ("", "the document is empty"),
        ("{", "unexpected end of input inside an object"),
        (#"{"a": 1,}"#, "trailing comma before '}'"),
        ("[1,]", "trailing comma before ']'"),
        (#"{"a" 1}"#, "expected ':' after key \"a\""),
        ("[01]", "invalid number: leading zero"),
        ("[1.]", "invalid number: expected a digit after '.'"),
        ("tru", "invalid literal, expected 'true'"),
        (#""\ud800""#, "unpaired UTF-16 surrogate in \\u escape"),
        (#""\x""#, "invalid escape sequence in string"),
        ("\"a\nb\"", "unescaped control character in string"),
        ("{} {}", "unexpected character '{' after the end of the document"),
        ("// comment\n{}", "unexpected character '/', expected a value"),
    ])
    func rejectsMalformedInput(text: String, message: String) {
        #expect(throws: JSONParser.SyntaxError.self) { try self.parse(text) }
        do {
            _ = try self.parse(text)
        } catch {
            #expect(error.message == message)
        }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func limitsNestingDepth() {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        do {
            _ = try self.parse(deep)
            Issue.record("expected an error")
        } catch {
            #expect(error.message == "nesting deeper than 64 levels")
        }
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try self.parse(ok) }
    }

    @Test func locatorReportsLinesAndCharacterColumns() {
        let bytes = Array("{\n  \"é\": [1,\n   x]}".utf8)
        var locator = SourceLocator(bytes: bytes)
        let offset = bytes.firstIndex(of: UInt8(ascii: "x")) ?? 0
        let location = locator.location(of: offset)
        #expect(location?.line == 3)
        #expect(location?.column == 4)
        let afterAccent = bytes.firstIndex(of: UInt8(ascii: "[")) ?? 0
        #expect(locator.location(of: afterAccent)?.column == 8)
    }

    @Test func rejectsDuplicateKeysWhenAsked() throws {
        let text = Array(#"{"a": 1, "b": {"sub": "x", "sub": "y"}}"#.utf8)
        #expect(throws: Never.self) { try JSONParser.parse(text) }
        let error = #expect(throws: JSONParser.SyntaxError.self) {
            try JSONParser.parse(text, options: JSONParser.Options(rejectsDuplicateKeys: true))
        }
        #expect(error?.message == "the key 'sub' appears twice in the same object")
        #expect(error?.offset == 27)
    }

    @Test func keysInMessagesAreShortenedAndEscaped() throws {
        let long = String(repeating: "k", count: 100)
        let options = JSONParser.Options(rejectsDuplicateKeys: true)
        let twice = #expect(throws: JSONParser.SyntaxError.self) {
            try JSONParser.parse(Array(#"{"\#(long)": 1, "\#(long)": 2}"#.utf8), options: options)
        }
        #expect(twice?.message == "the key '\(String(repeating: "k", count: 64))…' appears twice in the same object")
        // A key read from a token cannot start a new line or a terminal sequence in a log.
        let control = #expect(throws: JSONParser.SyntaxError.self) {
            try JSONParser.parse(Array(#"{"a\nb\u001b[31m" 1}"#.utf8))
        }
        #expect(control?.message == #"expected ':' after key "a\u{a}b\u{1b}[31m""#)
    }

    @Test func depthIsAnOption() throws {
        let nested = Array((String(repeating: "[", count: 3) + String(repeating: "]", count: 3)).utf8)
        _ = try JSONParser.parse(nested, options: JSONParser.Options(maximumDepth: 3))
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse(nested, options: JSONParser.Options(maximumDepth: 2)) }
    }

    @Test func valuesKnowTheBytesTheyCameFrom() throws {
        let text = Array(#"{"policy": {"Version": "2012-10-17"}, "n": 1.50}"#.utf8)
        guard case .object(let members) = try JSONParser.parse(text).kind else {
            Issue.record("not an object")
            return
        }
        #expect(String(decoding: text[members[0].value.range], as: UTF8.self) == #"{"Version": "2012-10-17"}"#)
        #expect(String(decoding: text[members[1].value.range], as: UTF8.self) == "1.50")
    }

    @Test("reads whole numbers of 64 bits exactly, and nothing else as one")
    func wholeNumbers() throws {
        let node = try JSONParser.parse(Array(#"[0, -7, 9223372036854775807, -9223372036854775808, 9223372036854775808, 1.0, 1e3, "5", null]"#.utf8))
        let values = try #require(node.arrayValue).map(\.int64Value)
        #expect(values == [0, -7, .max, .min, nil, nil, nil, nil, nil])
        #expect(node.arrayValue?.first?.intValue == 0)
    }
}
