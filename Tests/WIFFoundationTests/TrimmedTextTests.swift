import Foundation
import Testing
import WIFFoundation

/// `trimming(_:)` stands in for Foundation's `trimmingCharacters(in:)`, so each set is checked against
/// Foundation's own on this platform.
@Suite struct TrimmedTextTests {
    static let sets: [(TrimmedCharacters, CharacterSet)] = [
        (.whitespaces, .whitespaces), (.newlines, .newlines), (.whitespacesAndNewlines, .whitespacesAndNewlines),
    ]

    @Test func everyScalarOfTheBasicPlaneIsInASetExactlyWhenFoundationsIs() {
        for value in UInt32(0)...0xFFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            for (mine, foundation) in Self.sets {
                #expect(mine.contains(scalar) == foundation.contains(scalar), "U+\(String(value, radix: 16)) in \(mine)")
            }
        }
    }

    @Test func trimsBothEndsAndNothingBetween() {
        #expect(" \t key = value \t ".trimming(.whitespaces) == "key = value")
        #expect("\r\n token\n\r\n".trimming(.whitespacesAndNewlines) == "token")
        #expect("\r\n token\n\r\n".trimming(.newlines) == " token")
        #expect("\u{3000}\u{A0}名前\u{2028}".trimming(.whitespacesAndNewlines) == "名前")
        #expect("\u{200B}x\u{200B}".trimming(.whitespaces) == "x")
        // U+FEFF (a byte-order mark) and U+180E are not white space to Foundation.
        #expect("\u{FEFF}x\u{180E}".trimming(.whitespacesAndNewlines) == "\u{FEFF}x\u{180E}")
        #expect("".trimming(.whitespaces).isEmpty)
        #expect(" \n\t ".trimming(.whitespacesAndNewlines).isEmpty)
        #expect("a b".trimming(.whitespaces) == "a b")
    }

    /// Foundation trims Unicode scalars, not characters: a combining mark after a space stays, though
    /// the two make one character.
    @Test func trimsScalarsNotCharacters() {
        let text = " \u{301}x "
        #expect(text.trimming(.whitespaces).unicodeScalars.map(\.value) == [0x301, 0x78])
        #expect(text.trimming(.whitespaces) == text.trimmingCharacters(in: .whitespaces))
    }

    @Test func substringsTrimAsStrings() {
        let line = "[default]  region = eu-west-1 \n"
        let value = line[line.firstIndex(of: "=")!...].dropFirst()
        #expect(value.trimming(.whitespacesAndNewlines) == "eu-west-1")
    }

    /// Strings of white space, near misses and ordinary text in random order, compared with Foundation.
    @Test func randomTextTrimsAsFoundationTrimsIt() {
        let pool: [Unicode.Scalar] = [
            " ", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{1680}", "\u{2000}", "\u{200A}", "\u{200B}",
            "\u{2028}", "\u{2029}", "\u{202F}", "\u{205F}", "\u{3000}", "\u{FEFF}", "\u{301}", "\u{1F600}", "\u{0}", "\u{1F}",
            "\u{7F}", "\u{180E}", "\u{2060}", "a", "=", "é",
        ]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<20_000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<next(10) { scalars.append(pool[next(pool.count)]) }
            let text = String(scalars)
            for (mine, foundation) in Self.sets {
                let expected = text.trimmingCharacters(in: foundation)
                #expect(text.trimming(mine).unicodeScalars.elementsEqual(expected.unicodeScalars), "\(text.unicodeScalars.map(\.value))")
            }
        }
    }
}
