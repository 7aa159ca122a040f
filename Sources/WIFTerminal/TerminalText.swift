import WIFFoundation

/// Text for a person on a terminal, written as a string literal: the literal parts are the program's
/// own and are kept as written (line breaks included), while every interpolated value — a name, a
/// path, a message — is escaped (``PrintableText``), so it cannot move the cursor, colour the
/// terminal, start a new line or turn text right to left.
///
/// ```swift
/// let line: TerminalText = "deleted \(url)\n"   // a control character in url shows as \u{1b}
/// ```
///
/// A `TerminalText` interpolated into another is kept as it is: it is already safe.
package struct TerminalText: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The text to write.
    package private(set) var description: String

    /// Literal text, kept as written.
    package init(stringLiteral value: String) {
        self.description = value
    }

    /// Text built by interpolation.
    package init(stringInterpolation: StringInterpolation) {
        self.description = stringInterpolation.text
    }

    /// Builds text with literals kept and values escaped.
    package struct StringInterpolation: StringInterpolationProtocol {
        var text: String

        package init(literalCapacity: Int, interpolationCount: Int) {
            self.text = ""
            self.text.reserveCapacity(literalCapacity + 16 * interpolationCount)
        }

        package mutating func appendLiteral(_ literal: String) {
            self.text += literal
        }

        /// A value, escaped.
        package mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            self.text += PrintableText.escaping(value.description)
        }

        /// Text that is already safe, kept.
        package mutating func appendInterpolation(_ value: TerminalText) {
            self.text += value.description
        }
    }

    /// One line per element, each ended by a line break.
    /// - Parameter lines: The lines, without their line breaks.
    /// - Returns: The lines joined.
    package static func lines(_ lines: [TerminalText]) -> TerminalText {
        TerminalText(stringLiteral: lines.map { $0.description + "\n" }.joined())
    }

    /// Text of several lines from elsewhere, such as an error message that lists problems one a line:
    /// each line escaped, the line breaks (`\n`) kept.
    /// - Parameter text: The text.
    /// - Returns: The text, safe to show.
    package static func lines(of text: String) -> TerminalText {
        TerminalText(
            stringLiteral: text.split(separator: "\n", omittingEmptySubsequences: false)
                .map { PrintableText.escaping(String($0)) }.joined(separator: "\n"))
    }

    /// `label  value` lines, the values lined up after the longest label.
    /// - Parameter rows: The labels and values; both are escaped.
    /// - Returns: One line per row.
    package static func table(_ rows: [(label: String, value: String)]) -> TerminalText {
        let labels = rows.map { PrintableText.escaping($0.label) }
        let width = labels.map(\.count).max() ?? 0
        return Self.lines(
            zip(labels, rows).map { label, row in
                let padding = TerminalText(stringLiteral: String(repeating: " ", count: width - label.count))
                return "\(TerminalText(stringLiteral: label))\(padding)  \(row.value)"
            })
    }
}
