import Foundation
import Synchronization
import Testing

@testable import WIFTerminal

/// Text for a person: the program's literals are kept, every value from elsewhere is escaped.
@Suite struct TerminalTextTests {
    @Test func interpolatedValuesAreEscapedAndLiteralsKept() {
        let name = "evil\u{1B}]0;owned\u{07}\u{202E}txt.exe\r"
        let size = 12
        let text: TerminalText = "downloaded \(name) (\(size) B)\n"
        #expect(text.description == "downloaded evil\\u{1b}]0;owned\\u{7}\\u{202e}txt.exe\\u{d} (12 B)\n")
    }

    @Test func safeTextInterpolatedIsKept() {
        let inner: TerminalText = "a\tb"
        let outer: TerminalText = "[\(inner)] [\("a\tb")]"
        #expect(outer.description == "[a\tb] [a\\u{9}b]")
    }

    @Test func aNameWithALineBreakStaysOnItsLine() {
        let listing = TerminalText.lines(["\("first\nerror: forged line")", "\("second")"])
        #expect(listing.description == "first\\u{a}error: forged line\nsecond\n")
    }

    @Test func multiLineMessagesKeepTheirLinesAndEscapeTheRest() {
        let message = "the configuration has 2 problems:\n  roles[0].name: '\u{1B}[2J'\n  port: bad"
        #expect(TerminalText.lines(of: message).description == "the configuration has 2 problems:\n  roles[0].name: '\\u{1b}[2J'\n  port: bad")
    }

    @Test func tableAlignsValuesAndEscapesThem() {
        let table = TerminalText.table([(label: "subject", value: "al\u{202E}ice"), (label: "prefix", value: "google/x/")])
        #expect(table.description == "subject  al\\u{202e}ice\nprefix   google/x/\n")
    }

    @Test func progressBarLabelIsEscaped() {
        let drawn = Mutex<[String]>([])
        let time = Mutex<Duration>(.zero)
        let bar = ProgressBar(
            label: "clip\u{1B}]0;owned\u{07}.mp4", total: 100, enabled: true, width: 120,
            now: { time.withLock { $0 } }, output: { text in drawn.withLock { $0.append(text) } })
        time.withLock { $0 = .seconds(2) }
        bar.update(bytes: 50)
        bar.relabel("next\u{202E}.mp4")
        time.withLock { $0 = .seconds(3) }
        bar.update(bytes: 60)
        let lines = drawn.withLock { $0 }
        #expect(lines.count == 2)
        #expect(lines.first?.contains("clip\\u{1b}]0;owned\\u{7}.mp4") == true, "\(lines)")
        #expect(lines.last?.contains("next\\u{202e}.mp4") == true, "\(lines)")
        // The only ESC drawn is the bar's own erase-to-end-of-line.
        #expect(lines.allSatisfy { !$0.replacingOccurrences(of: "\u{1B}[K", with: "").contains("\u{1B}") })
        #expect(lines.allSatisfy { !$0.contains("\u{07}") && !$0.contains("\u{202E}") })
    }
}
