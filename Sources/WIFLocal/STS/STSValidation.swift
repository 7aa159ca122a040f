/// Collects constraint violations of a call's parameters and reports them the way AWS's service framework
/// does: `ValidationError` with "2 validation errors detected: Value … at 'roleArn' failed to satisfy
/// constraint: …; Value … at 'roleSessionName' …".
struct STSValidation: Sendable {
    private(set) var messages: [String] = []

    /// What AWS prints in place of a sensitive member's value.
    static let redacted = "*** Sensitive Data Redacted ***"

    /// Records a violation.
    /// - Parameters:
    ///   - member: The member's name as the model spells it (`roleSessionName`).
    ///   - value: The value given, `nil` for a missing one.
    ///   - sensitive: Whether the value is a secret and must not be printed.
    ///   - constraint: The constraint broken (`Member must not be null`).
    mutating func violation(_ member: String, value: String?, sensitive: Bool = false, _ constraint: String) {
        let shown: String
        if let value {
            shown = "'\(sensitive ? Self.redacted : value)'"
        } else {
            shown = "null"
        }
        self.messages.append("Value \(shown) at '\(member)' failed to satisfy constraint: \(constraint)")
    }

    /// Checks a string member: present when required, its length (in UTF-16 code units, as AWS counts) and
    /// its characters.
    mutating func check(
        _ member: String, _ value: String?, required: Bool, length: ClosedRange<Int>, sensitive: Bool = false,
        pattern: CharacterPattern? = nil
    ) {
        guard let value else {
            if required { self.violation(member, value: nil, "Member must not be null") }
            return
        }
        let count = value.utf16.count
        if count < length.lowerBound {
            self.violation(member, value: value, sensitive: sensitive, "Member must have length greater than or equal to \(length.lowerBound)")
        } else if count > length.upperBound {
            self.violation(member, value: value, sensitive: sensitive, "Member must have length less than or equal to \(length.upperBound)")
        }
        if let pattern, !value.unicodeScalars.allSatisfy(pattern.allows) {
            self.violation(member, value: value, sensitive: sensitive, "Member must satisfy regular expression pattern: \(pattern.description)")
        }
    }

    /// The `ValidationError`, if anything was recorded.
    var error: AWSErrorResponse? {
        guard !self.messages.isEmpty else { return nil }
        let count = self.messages.count
        return AWSErrorResponse(
            "ValidationError",
            "\(count) validation error\(count == 1 ? "" : "s") detected: \(self.messages.joined(separator: "; "))")
    }

    // MARK: STS's patterns

    /// `[\w+=,.@-]*`, the characters of a session name.
    static let sessionNamePattern = CharacterPattern(
        #"[\w+=,.@-]*"#,
        { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "_", "+", "=", ",", ".", "@", "-": return true
            default: return false
            }
        }
    )

    /// The characters of an ARN: tab, line breaks and printable characters.
    static let arnPattern = CharacterPattern(
        #"[\u0009\u000A\u000D\u0020-\u007E\u0085\u00A0-\uD7FF\uE000-\uFFFD\u10000-\u10FFFF]+"#,
        { scalar in
            switch scalar.value {
            case 0x09, 0x0A, 0x0D, 0x20...0x7E, 0x85, 0xA0...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
            default: return false
            }
        }
    )

    /// The characters of a session policy: tab, line breaks and U+0020–U+00FF.
    static let policyPattern = CharacterPattern(
        #"[\u0009\u000A\u000D\u0020-\u00FF]+"#,
        { scalar in
            switch scalar.value {
            case 0x09, 0x0A, 0x0D, 0x20...0xFF: return true
            default: return false
            }
        }
    )
}

/// The characters a member may hold: the pattern as AWS prints it and a test for each scalar.
struct CharacterPattern: Sendable {
    /// The pattern, as in AWS's messages.
    let description: String
    /// Whether a scalar is allowed.
    let allows: @Sendable (Unicode.Scalar) -> Bool

    init(_ description: String, _ allows: @escaping @Sendable (Unicode.Scalar) -> Bool) {
        self.description = description
        self.allows = allows
    }
}
