/// Reads the text of a shared config or credentials file into its raw sections.
///
/// This is the literal, line-level pass. It rejects text that no AWS SDK accepts (a property before
/// any section, an unterminated `[` header, a line without `=`), and it keeps everything else as
/// written: section headers are not yet split into `profile` prefix and name, and neither section
/// names nor property names are validated. ``AWSProfileSet`` applies those rules when it merges the
/// sections, because they differ between the config and the credentials file.
///
/// Rules, as the AWS SDKs apply them:
/// - Whitespace means space and tab only.
/// - A line that is blank, or whose first character is `#` or `;`, is skipped.
/// - A line starting with `[` is a section header; `#` or `;` anywhere in it starts a comment.
/// - A line starting with whitespace continues the previous property. Its trimmed text is appended
///   after a newline, comments included. When the property's own value was empty the continuation
///   lines are sub-properties and each must read `name = value`.
/// - Any other line is `name = value`, split at the first `=`. A `#` or `;` starts a comment only
///   when whitespace precedes it, so `value;x` keeps its `;`. Names are lower-cased (ASCII).
struct AWSConfigFileParser {
    /// One `[…]` section as it appears in the file.
    struct RawSection: Sendable, Hashable {
        /// The text between the brackets, comments removed, untrimmed inside.
        var header: String
        /// The 1-based line of the header.
        var line: Int
        /// The section's properties; a name defined twice keeps its last value.
        var properties: [String: String]
    }

    private enum State {
        case starting
        case inSection(index: Int, property: String?, valueIsSubProperties: Bool)
    }

    /// Why a `name = value` line was rejected.
    private enum PropertyError: Error {
        case noEquals
        case noName
    }

    /// The path named in errors.
    let path: String

    /// Parses `text`.
    /// - Parameter text: The file's contents.
    /// - Returns: The sections in file order. A header that appears twice yields two entries.
    /// - Throws: ``WIFCredentialsError`` with code `profileParse`, naming the file and line.
    func parse(_ text: String) throws -> [RawSection] {
        var sections: [RawSection] = []
        var state = State.starting
        let lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
        for (offset, rawLine) in lines.enumerated() {
            let lineNumber = offset + 1
            let line = rawLine.last == "\r" ? rawLine.dropLast() : rawLine
            guard let first = line.first, !Self.trimmingWhitespace(line).isEmpty, first != "#", first != ";" else {
                continue
            }
            if first == "[" {
                let prepared = Self.removingComment(from: line, commentsNeedWhitespace: false)
                guard prepared.last == "]", prepared.count >= 2 else {
                    throw self.error("Profile definition must end with ']'", line: lineNumber)
                }
                let header = String(String.UnicodeScalarView(prepared.dropFirst().dropLast()))
                sections.append(RawSection(header: header, line: lineNumber, properties: [:]))
                state = .inSection(index: sections.count - 1, property: nil, valueIsSubProperties: false)
            } else if Self.isWhitespace(first) {
                switch state {
                case .starting:
                    throw self.error("Expected a profile definition, found continuation", line: lineNumber)
                case .inSection(_, nil, _):
                    throw self.error("Expected a property definition, found continuation", line: lineNumber)
                case .inSection(let index, let property?, let valueIsSubProperties):
                    if valueIsSubProperties, case .failure(let failure) = Self.splitProperty(line) {
                        throw self.error(failure, context: "sub-property", line: lineNumber)
                    }
                    let continuation = String(String.UnicodeScalarView(Self.trimmingWhitespace(line)))
                    sections[index].properties[property, default: ""] += "\n" + continuation
                }
            } else {
                guard case .inSection(let index, _, _) = state else {
                    throw self.error("Expected a profile definition before this property", line: lineNumber)
                }
                switch Self.splitProperty(line) {
                case .failure(let failure):
                    throw self.error(failure, context: "property", line: lineNumber)
                case .success(let (name, value)):
                    sections[index].properties[name] = value
                    state = .inSection(index: index, property: name, valueIsSubProperties: value.isEmpty)
                }
            }
        }
        return sections
    }

    /// Splits `name = value` text into its trimmed parts, the name lower-cased.
    private static func splitProperty(_ line: Substring.UnicodeScalarView) -> Result<(String, String), PropertyError> {
        let prepared = Self.removingComment(from: line, commentsNeedWhitespace: true)
        guard let equals = prepared.firstIndex(of: "=") else { return .failure(.noEquals) }
        let name = Self.trimmingWhitespace(prepared[..<equals])
        let value = Self.trimmingWhitespace(prepared[prepared.index(after: equals)...])
        guard !name.isEmpty else { return .failure(.noName) }
        return .success((Self.asciiLowercased(name), String(String.UnicodeScalarView(value))))
    }

    private func error(_ failure: PropertyError, context: String, line: Int) -> WIFCredentialsError {
        switch failure {
        case .noEquals:
            return self.error("Expected an '=' sign defining a \(context)", line: line)
        case .noName:
            let capitalised = context.prefix(1).uppercased() + context.dropFirst()
            return self.error("\(capitalised) did not have a name", line: line)
        }
    }

    private func error(_ message: String, line: Int) -> WIFCredentialsError {
        // The offending line is not quoted: it may hold a secret key.
        .profileParse("error parsing \(self.path) on line \(line): \(message)")
    }

    // MARK: Character rules

    /// Space and tab: the only whitespace the file format knows.
    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t"
    }

    /// `text` without leading and trailing spaces and tabs.
    static func trimmingWhitespace(_ text: Substring.UnicodeScalarView) -> Substring.UnicodeScalarView {
        guard let start = text.firstIndex(where: { !isWhitespace($0) }),
            let last = text.lastIndex(where: { !isWhitespace($0) })
        else {
            return text[text.endIndex...]
        }
        return text[start...last]
    }

    /// `text` without leading and trailing spaces and tabs.
    static func trimmingWhitespace(_ text: String) -> String {
        String(String.UnicodeScalarView(Self.trimmingWhitespace(Substring(text).unicodeScalars)))
    }

    /// Trims `line`, cuts it at the first comment character, and trims again.
    ///
    /// - Parameter commentsNeedWhitespace: When `true`, `#` and `;` start a comment only after
    ///   whitespace (property lines); when `false`, anywhere (section headers).
    static func removingComment(
        from line: Substring.UnicodeScalarView,
        commentsNeedWhitespace: Bool
    ) -> Substring.UnicodeScalarView {
        let trimmed = Self.trimmingWhitespace(line)
        var previousIsWhitespace = false
        var end = trimmed.endIndex
        for index in trimmed.indices {
            let scalar = trimmed[index]
            if scalar == "#" || scalar == ";", previousIsWhitespace || !commentsNeedWhitespace {
                end = index
                break
            }
            previousIsWhitespace = scalar.properties.isWhitespace
        }
        return Self.trimmingWhitespace(trimmed[..<end])
    }

    /// Lower-cases ASCII letters only, as the SDKs do for property names.
    static func asciiLowercased(_ text: Substring.UnicodeScalarView) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text {
            if ("A"..."Z").contains(scalar), let lower = Unicode.Scalar(scalar.value + 32) {
                result.append(lower)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// Lower-cases ASCII letters only.
    static func asciiLowercased(_ text: String) -> String {
        Self.asciiLowercased(Substring(text).unicodeScalars)
    }

    /// Whether `text` is a valid profile, section or property name: one or more of
    /// `A-Z a-z 0-9 - / . % @ _ : +`.
    static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy { scalar in
                switch scalar {
                case "A"..."Z", "a"..."z", "0"..."9", "-", "/", ".", "%", "@", "_", ":", "+": true
                default: false
                }
            }
    }

    /// Reads a sub-property block (`"\nname = value\nother = x"`) into a dictionary.
    ///
    /// Lines without `=` are skipped; names are trimmed and lower-cased (ASCII), values trimmed.
    static func subProperties(of value: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in Substring(value).unicodeScalars.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let name = Self.trimmingWhitespace(line[..<equals])
            guard !name.isEmpty else { continue }
            let value = Self.trimmingWhitespace(line[line.index(after: equals)...])
            result[Self.asciiLowercased(name)] = String(String.UnicodeScalarView(value))
        }
        return result
    }
}
