import Testing
import WIFFoundation

/// The escaper of names shown on a terminal: what is escaped and what is left alone.
@Suite("Printable text")
struct PrintableTextTests {
    /// Characters that control a terminal or reorder or hide text, and how each is written.
    static let escaped: [(String, String)] = [
        ("\u{1B}[31mred", "\\u{1b}[31mred"),
        ("\u{1B}]0;title\u{07}", "\\u{1b}]0;title\\u{7}"),
        ("a\rb", "a\\u{d}b"),
        ("a\nb", "a\\u{a}b"),
        ("a\tb", "a\\u{9}b"),
        ("a\u{0}b", "a\\u{0}b"),
        ("a\u{7F}b", "a\\u{7f}b"),
        ("a\u{9B}31m", "a\\u{9b}31m"),
        ("a\u{85}b", "a\\u{85}b"),
        ("invoice\u{202E}fdp.exe", "invoice\\u{202e}fdp.exe"),
        ("\u{202A}\u{202B}\u{202C}\u{202D}", "\\u{202a}\\u{202b}\\u{202c}\\u{202d}"),
        ("\u{200E}x\u{200F}", "\\u{200e}x\\u{200f}"),
        ("\u{2066}\u{2067}\u{2068}\u{2069}", "\\u{2066}\\u{2067}\\u{2068}\\u{2069}"),
        ("\u{061C}", "\\u{61c}"),
        ("zero\u{200B}width", "zero\\u{200b}width"),
        ("\u{FEFF}bom", "\\u{feff}bom"),
        ("soft\u{AD}hyphen", "soft\\u{ad}hyphen"),
        ("line\u{2028}para\u{2029}", "line\\u{2028}para\\u{2029}"),
    ]

    @Test("control, bidirectional and invisible characters are escaped", arguments: Self.escaped)
    func escapes(text: String, shown: String) {
        #expect(PrintableText.escaping(text) == shown)
        #expect(!PrintableText.escaping(text).unicodeScalars.contains(where: PrintableText.needsEscape))
    }

    @Test(
        "printable text is unchanged",
        arguments: [
            "notes.txt", "photos/2024/café.jpg", "日本語のファイル", "שלום.txt", "emoji 👩‍👩‍👧.png", "می‌خواهم", "a\\u{1b}b", "",
        ])
    func keeps(text: String) {
        #expect(PrintableText.escaping(text) == text)
    }
}
