/// A rule that object names, user ids and partition templates must follow, named in the error that
/// refuses them (``S3Error/nameRule``).
///
/// Names are refused before any request is sent when they would leave the user's partition or when
/// S3, HTTP stacks or file systems mishandle them. Open-ended: rules may be added.
public struct NameRule: Sendable, Hashable, CustomStringConvertible {
    enum Base: String, Sendable, Hashable {
        case empty
        case leadingSlash
        case trailingSlash
        case emptySegment
        case dotSegment
        case backslash
        case controlCharacter
        case tooLong
        case containsSlash
        case missingPlaceholder
        case missingTrailingSlash
    }

    let base: Base

    /// The name, id or template is empty.
    public static let empty = NameRule(base: .empty)
    /// The name starts with `/` (which would make an empty first segment after the prefix).
    public static let leadingSlash = NameRule(base: .leadingSlash)
    /// An object name ends with `/`: such keys are folder markers, not files.
    public static let trailingSlash = NameRule(base: .trailingSlash)
    /// The name has an empty segment, `a//b`.
    public static let emptySegment = NameRule(base: .emptySegment)
    /// A `/`-separated segment is `.` or `..` (or a user id is), which path-normalising tools resolve
    /// out of the partition.
    public static let dotSegment = NameRule(base: .dotSegment)
    /// The name contains `\`, a path separator on Windows and in some S3 tools.
    public static let backslash = NameRule(base: .backslash)
    /// The name contains a control character: U+0000–U+001F, U+007F (DEL) or U+0080–U+009F.
    public static let controlCharacter = NameRule(base: .controlCharacter)
    /// The full key (partition prefix and name) is longer than S3's 1,024 UTF-8 bytes.
    public static let tooLong = NameRule(base: .tooLong)
    /// A user id contains `/`, which would let it reach into another partition.
    public static let containsSlash = NameRule(base: .containsSlash)
    /// A prefix template does not contain the `{id}` placeholder.
    public static let missingPlaceholder = NameRule(base: .missingPlaceholder)
    /// A prefix template does not end with `/`, so one user's prefix could be the start of another's
    /// (`12` and `123`).
    public static let missingTrailingSlash = NameRule(base: .missingTrailingSlash)

    /// The rule in words, such as `must not contain an empty segment ('//')`.
    public var description: String {
        switch self.base {
        case .empty: return "must not be empty"
        case .leadingSlash: return "must not start with '/'"
        case .trailingSlash: return "must not end with '/'"
        case .emptySegment: return "must not contain an empty segment ('//')"
        case .dotSegment: return "must not contain a '.' or '..' segment"
        case .backslash: return "must not contain a backslash ('\\')"
        case .controlCharacter: return "must not contain control characters (U+0000-U+001F, U+007F-U+009F)"
        case .tooLong: return "must make a key of at most \(NameRules.maximumKeyBytes) UTF-8 bytes"
        case .containsSlash: return "must not contain '/'"
        case .missingPlaceholder: return "must contain the placeholder \(PartitionPrefix.placeholder)"
        case .missingTrailingSlash: return "must end with '/'"
        }
    }
}

/// The checks behind ``NameRule``.
enum NameRules {
    /// S3's longest key, in UTF-8 bytes.
    static let maximumKeyBytes = 1024

    /// Whether a scalar is a C0 or C1 control character or DEL.
    @inline(__always)
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value <= 0x9F)
    }

    /// The first rule `name` breaks as an object name under a prefix of `prefixBytes` UTF-8 bytes.
    /// - Parameters:
    ///   - name: The name.
    ///   - prefixBytes: The partition prefix's length, counted towards the key limit.
    ///   - allowTrailingSlash: Accept a final `/` and an empty name (for listing prefixes, where the
    ///     last segment may also be incomplete, so only complete segments are checked for dots).
    static func firstBroken(in name: String, prefixBytes: Int, allowTrailingSlash: Bool = false) -> NameRule? {
        let utf8 = name.utf8
        if utf8.isEmpty { return allowTrailingSlash ? nil : .empty }
        if prefixBytes + utf8.count > Self.maximumKeyBytes { return .tooLong }
        for scalar in name.unicodeScalars {
            if Self.isControl(scalar) { return .controlCharacter }
            if scalar == "\\" { return .backslash }
        }
        if utf8.first == UInt8(ascii: "/") { return .leadingSlash }
        if utf8.last == UInt8(ascii: "/") && !allowTrailingSlash { return .trailingSlash }
        let segments = utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            if segment.isEmpty {
                // A final empty segment is the trailing slash itself, handled above.
                if isLast { continue }
                return .emptySegment
            }
            // In a listing prefix the last segment is only the start of a name: `..` may begin `..foo`.
            if isLast && allowTrailingSlash { continue }
            if Self.isDotSegment(segment) { return .dotSegment }
        }
        return nil
    }

    /// Whether bytes are exactly `.` or `..`.
    static func isDotSegment<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        let dot = UInt8(ascii: ".")
        switch bytes.count {
        case 1: return bytes.first == dot
        case 2: return bytes.allSatisfy { $0 == dot }
        default: return false
        }
    }
}
