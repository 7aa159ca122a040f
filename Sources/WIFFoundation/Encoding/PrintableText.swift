/// Text made safe to show a person on a terminal: every character that would control the terminal or
/// reorder or hide what is shown is written as a `\u{…}` escape, so a name from a bucket or a token
/// cannot change colours, set the window title, move the cursor, end a line or flip text right to left.
///
/// This is the one escaper of the package: error messages that quote names and every line `wif-tool`
/// prints for a person use it. Machine output (JSON) does not: it carries the exact text.
package enum PrintableText {
    /// Whether a scalar is shown as an escape:
    /// - C0 controls U+0000–U+001F (tab and line breaks included), DEL U+007F and C1 controls
    ///   U+0080–U+009F, which terminals act on (ESC starts colour, title and cursor sequences);
    /// - format characters (general category Cf): the bidirectional marks, embeddings, overrides and
    ///   isolates (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), zero-width and invisible
    ///   characters (U+200B, U+2060–U+2064, U+FEFF), soft hyphen and the like, which reorder or hide
    ///   text; except U+200C and U+200D (zero-width non-joiner and joiner), which many scripts and
    ///   emoji need to be spelled right and which move nothing;
    /// - the line and paragraph separators U+2028 and U+2029.
    @inlinable
    package static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x20 || (value >= 0x7F && value <= 0x9F) { return true }
        // Everything else below U+00AD (soft hyphen, the first format character) is printable.
        if value < 0xAD { return false }
        if value == 0x200C || value == 0x200D { return false }
        switch scalar.properties.generalCategory {
        case .format, .lineSeparator, .paragraphSeparator, .control: return true
        default: return false
        }
    }

    /// `text` with every character of ``needsEscape(_:)`` written as `\u{hex}` (lower-case hex, as
    /// Swift writes it), the rest unchanged.
    /// - Parameter text: Text from anywhere: names, paths, messages.
    /// - Returns: Text that shows as itself on a terminal.
    package static func escaping(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: Self.needsEscape) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if Self.needsEscape(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
