import WIFFoundation

/// The key prefix that holds one user's objects in a shared bucket, such as `1001/` or
/// `facebook/1001/`, built from a template and the user's id.
///
/// The template contains `{id}` where the user id goes and ends with `/`, so that one user's prefix is
/// never the beginning of another's (`12/` and `123/`). User ids are inserted literally and must not be
/// able to move the prefix anywhere else: ids that are empty, `.` or `..`, or contain `/`, `\` or
/// control characters are refused.
///
/// ```swift
/// let prefix = try PartitionPrefix.make(template: "facebook/{id}/", userId: "1001")
/// prefix.value                          // "facebook/1001/"
/// try prefix.key(for: "photos/cat.jpg") // "facebook/1001/photos/cat.jpg"
/// prefix.name(forKey: "facebook/1001/photos/cat.jpg") // "photos/cat.jpg"
/// ```
public struct PartitionPrefix: Sendable, Hashable, CustomStringConvertible {
    /// The placeholder a template holds where the user id goes: `{id}`.
    public static let placeholder = "{id}"
    /// The template of the seed article: the user id and a slash, `{id}/`.
    public static let defaultTemplate = "{id}/"

    /// The prefix, such as `facebook/1001/`; always ends with `/`.
    public let value: String
    /// The user id it was built from.
    public let userId: String
    /// The template it was built from.
    public let template: String

    private init(value: String, userId: String, template: String) {
        self.value = value
        self.userId = userId
        self.template = template
    }

    /// Builds a user's prefix from a template.
    /// - Parameters:
    ///   - template: Text containing `{id}` and ending with `/`, such as `{id}/` (the default) or
    ///     `facebook/{id}/`. Its fixed parts follow the object-name rules.
    ///   - userId: The user's id, such as the token's `sub` or the provider's user id.
    /// - Returns: The prefix.
    /// - Throws: ``S3Error`` with code ``S3Error/Code/invalidPrefixTemplate`` for an unusable template,
    ///   or ``S3Error/Code/invalidUserId`` for an unusable id, with ``S3Error/nameRule`` saying which
    ///   rule was broken.
    public static func make(template: String = Self.defaultTemplate, userId: String) throws(S3Error) -> PartitionPrefix {
        try Self.checkTemplate(template)
        try Self.checkUserId(userId)
        let value = template.replacing(Self.placeholder, with: userId)
        if value.utf8.count >= NameRules.maximumKeyBytes {
            throw Self.idError(userId, .tooLong, detail: "the prefix '\(value.prefix(64))…' leaves no room for a name")
        }
        return PartitionPrefix(value: value, userId: userId, template: template)
    }

    /// The key of an object name in this partition: the prefix followed by the name.
    /// - Parameter name: The object's name, such as `photos/cat.jpg`.
    /// - Returns: The key, such as `1001/photos/cat.jpg`.
    /// - Throws: ``S3Error`` with code ``S3Error/Code/invalidObjectName`` naming the broken rule: the
    ///   name is empty, starts or ends with `/`, has an empty, `.` or `..` segment, contains `\` or a
    ///   control character, or makes a key over 1,024 UTF-8 bytes.
    public func key(for name: String) throws(S3Error) -> String {
        if let rule = NameRules.firstBroken(in: name, prefixBytes: self.value.utf8.count) {
            throw Self.nameError(name, rule, prefixBytes: self.value.utf8.count)
        }
        return self.value + name
    }

    /// The key prefix to list for a name prefix: the partition prefix followed by it, never empty.
    /// - Parameter namePrefix: The start of the names to list, such as `photos/` or `photos/2024-`;
    ///   empty lists the whole partition.
    /// - Returns: The key prefix.
    /// - Throws: ``S3Error`` with code ``S3Error/Code/invalidObjectName`` when the name prefix breaks a
    ///   rule (as for names, except that it may be empty or end with `/`, and its last segment may be
    ///   the start of a name such as `..`).
    public func listPrefix(for namePrefix: String) throws(S3Error) -> String {
        let prefixBytes = self.value.utf8.count
        if let rule = NameRules.firstBroken(in: namePrefix, prefixBytes: prefixBytes, allowTrailingSlash: true) {
            throw Self.nameError(namePrefix, rule, prefixBytes: prefixBytes, what: "name prefix")
        }
        return self.value + namePrefix
    }

    /// The name of a key in this partition: the key without the prefix.
    /// - Parameter key: A key, such as `1001/photos/cat.jpg`.
    /// - Returns: The name, or `nil` when the key is not inside this partition.
    public func name(forKey key: String) -> String? {
        guard key.utf8.count > self.value.utf8.count, key.utf8.starts(with: self.value.utf8) else { return nil }
        return String(Substring(key.utf8.dropFirst(self.value.utf8.count)))
    }

    /// The prefix, such as `facebook/1001/`.
    public var description: String { self.value }

    // MARK: Checks

    static func checkTemplate(_ template: String) throws(S3Error) {
        func fail(_ rule: NameRule, _ detail: String? = nil) -> S3Error {
            S3Error(
                code: .invalidPrefixTemplate,
                message: "partition prefix template '\(PrintableText.escaping(template))' is refused: it \(rule)"
                    + (detail.map { " (\($0))" } ?? ""),
                nameRule: rule)
        }
        guard !template.isEmpty else { throw fail(.empty) }
        guard template.contains(Self.placeholder) else { throw fail(.missingPlaceholder) }
        guard template.utf8.last == UInt8(ascii: "/") else {
            throw fail(.missingTrailingSlash, "otherwise one user's prefix could begin another's")
        }
        // The template with a harmless id must itself be a valid listing prefix.
        let sample = template.replacing(Self.placeholder, with: "id")
        if let rule = NameRules.firstBroken(in: sample, prefixBytes: 0, allowTrailingSlash: true) {
            throw fail(rule)
        }
    }

    static func checkUserId(_ userId: String) throws(S3Error) {
        if userId.isEmpty { throw Self.idError(userId, .empty) }
        for scalar in userId.unicodeScalars where NameRules.isControl(scalar) {
            throw Self.idError(userId, .controlCharacter)
        }
        // Bytes, not characters: `/` with a combining mark after it is one Character, yet a separator.
        if userId.utf8.contains(UInt8(ascii: "/")) { throw Self.idError(userId, .containsSlash) }
        if userId.utf8.contains(UInt8(ascii: "\\")) { throw Self.idError(userId, .backslash) }
        if userId == "." || userId == ".." { throw Self.idError(userId, .dotSegment, detail: "the id is '\(userId)'") }
    }

    static func idError(_ userId: String, _ rule: NameRule, detail: String? = nil) -> S3Error {
        let shown = userId.count > 64 ? String(userId.prefix(64)) + "…" : userId
        return S3Error(
            code: .invalidUserId,
            message: "user id '\(PrintableText.escaping(shown))' cannot make a partition prefix: it \(rule)"
                + (detail.map { " (\($0))" } ?? ""),
            nameRule: rule)
    }

    static func nameError(_ name: String, _ rule: NameRule, prefixBytes: Int, what: String = "name") -> S3Error {
        let shown = name.count > 80 ? String(name.prefix(80)) + "…" : name
        var message = "\(what) '\(PrintableText.escaping(shown))' is refused: it \(rule)"
        if rule == .tooLong {
            message += " (the prefix takes \(prefixBytes) bytes and the \(what) \(name.utf8.count))"
        }
        return S3Error(code: .invalidObjectName, message: message, nameRule: rule)
    }
}
