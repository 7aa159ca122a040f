/// Where each user's folder lives in the bucket: text around one `{id}`, such as `{id}/`,
/// `private/{id}/` or `facebook/{id}/`.
///
/// ```swift
/// let template = try PartitionTemplate("private/{id}/")
/// template.folder(for: "alice")  // "private/alice/"
/// ```
public struct PartitionTemplate: Sendable, Hashable, CustomStringConvertible {
    /// The text before the id.
    public let prefix: String
    /// The text after the id.
    public let suffix: String

    /// Parses a template.
    /// - Parameter text: Text containing `{id}` exactly once.
    /// - Throws: ``PolicyEngineError/Code/invalidRequest`` when `{id}` is missing or repeated.
    public init(_ text: String) throws(PolicyEngineError) {
        let parts = text.split(separator: "{id}", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw PolicyEngineError(
                code: .invalidRequest,
                reason: "partition template '\(text)' must contain {id} exactly once, as in '{id}/' or 'private/{id}/'")
        }
        self.prefix = String(parts[0])
        self.suffix = String(parts[1])
    }

    /// The folder of the user `id`.
    public func folder(for id: String) -> String { self.prefix + id + self.suffix }

    /// The template as written.
    public var description: String { self.prefix + "{id}" + self.suffix }

    /// Whether one user's folder can lie inside another's: ids `b` and `b + t` whose folders share keys.
    ///
    /// `prefix + b + suffix` is a prefix of `prefix + b + t + suffix` exactly when `suffix` is a prefix of
    /// `t + suffix`, that is when `suffix` is empty or `t` is a non-empty prefix of `suffix` whose length is
    /// a period of `suffix` (every character equals the one `|t|` further on), or `t` starts with the whole
    /// suffix. Equal-length ids with comparable folders are equal, so these are all the cases.
    /// - Parameter alphabet: The characters ids may contain.
    /// - Returns: The extension `t` that nests a folder inside another, or `nil` if folders never nest.
    func nestingExtension(over alphabet: IdentifierAlphabet) -> String? {
        let suffix = Array(self.suffix.unicodeScalars)
        if suffix.isEmpty {
            return alphabet.sampleCharacters(preferring: []).first.map { String($0) }
        }
        for period in 1...suffix.count {
            let periodic = (0..<(suffix.count - period)).allSatisfy { suffix[$0] == suffix[$0 + period] }
            let extensionScalars = suffix[0..<period]
            if periodic, extensionScalars.allSatisfy(alphabet.contains) {
                var text = ""
                text.unicodeScalars.append(contentsOf: extensionScalars)
                return text
            }
        }
        return nil
    }
}
