import Testing
@testable import WIFFoundation

/// RFC 2047 encoded-words, the form S3 gives user metadata outside printable US-ASCII.
@Suite struct EncodedWordsTests {
    @Test func printableASCIIIsSentAsItIsAndEverythingElseAsOneUTF8Word() {
        #expect(EncodedWords.encodeIfNeeded("plain text\twith tab") == "plain text\twith tab")
        #expect(EncodedWords.encodeIfNeeded("caf\u{E9}") == "=?UTF-8?B?Y2Fmw6k=?=")
        #expect(EncodedWords.encodeIfNeeded("a\r\nb") == "=?UTF-8?B?YQ0KYg==?=")
        #expect(EncodedWords.encodeIfNeeded("") == "")
    }

    @Test(arguments: [
        ("=?UTF-8?B?Y2Fmw6k=?=", "caf\u{E9}"),
        ("=?utf-8?b?Y2Fmw6k=?=", "caf\u{E9}"),
        ("=?UTF-8?Q?caf=C3=A9_au_lait?=", "caf\u{E9} au lait"),
        ("=?ISO-8859-1?Q?caf=E9?=", "caf\u{E9}"),
        ("=?UTF-8*en?B?Y2Fmw6k=?=", "caf\u{E9}"),
        // Whitespace between adjacent words is dropped (RFC 2047 §6.2).
        ("=?UTF-8?B?Y2Fm?= =?UTF-8?B?w6k=?=", "caf\u{E9}"),
        ("=?US-ASCII?Q?abc?=", "abc"),
    ])
    func wordsAreDecoded(encoded: String, text: String) {
        #expect(EncodedWords.decode(encoded) == text)
    }

    @Test(arguments: [
        "plain", "", "=?UTF-8?B?Y2Fmw6k=?= trailing", "=?KOI8-R?B?Y2Fm?=", "=?UTF-8?X?abc?=", "=?UTF-8?B?not base64!?=",
        "=?UTF-8?B?/w==?=", "=?US-ASCII?Q?caf=E9?=", "=?UTF-8?Q?bad=G1?=", "=?UTF-8?Q?a?b?=", "=??B?YQ==?=",
    ])
    func anythingElseIsNotAnEncodedWord(value: String) {
        #expect(EncodedWords.decode(value) == nil)
    }

    @Test func everyTextSurvivesTheRoundTrip() {
        for text in ["caf\u{E9}", "\u{1F600} emoji", "tab\tand\nnewline", "\u{0}nul", "plain"] {
            let header = EncodedWords.encodeIfNeeded(text)
            #expect(header.utf8.allSatisfy { $0 == 0x09 || (0x20..<0x7F).contains($0) }, "\(header)")
            #expect((EncodedWords.decode(header) ?? header) == text)
        }
    }
}
