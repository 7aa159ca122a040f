/// The value of one key in a request context: a single string, or a set of strings for multi-valued keys
/// such as `cognito-identity.amazonaws.com:amr` or `aws:TagKeys`.
///
/// A multi-valued key whose set is empty is *present*, which differs from an absent key: `…IfExists`
/// operators evaluate it instead of skipping it. (`Null` and the set qualifiers treat an empty set as null,
/// as AWS documents.)
public struct ContextValue: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral,
    ExpressibleByArrayLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral
{
    final class Storage: Sendable {
        let values: [String]
        let isMultiValued: Bool
        /// The values as UTF-8, prepared once so matching does not re-encode.
        let utf8: [[UInt8]]

        init(values: [String], isMultiValued: Bool) {
            self.values = values
            self.isMultiValued = isMultiValued
            self.utf8 = values.map { Array($0.utf8) }
        }
    }

    let storage: Storage

    /// The values; exactly one for a single-valued key.
    public var values: [String] { self.storage.values }
    /// Whether the key is multi-valued (a set), even if the set has one element or none.
    public var isMultiValued: Bool { self.storage.isMultiValued }
    /// The values as UTF-8.
    var utf8: [[UInt8]] { self.storage.utf8 }

    /// A single-valued key.
    /// - Parameter value: The value.
    public init(_ value: String) {
        self.storage = Storage(values: [value], isMultiValued: false)
    }

    /// A multi-valued key.
    /// - Parameter values: The set of values (order is kept for explanations; duplicates are allowed).
    public init(multiple values: [String]) {
        self.storage = Storage(values: values, isMultiValued: true)
    }

    /// A single-valued key.
    /// - Parameter value: The value.
    public static func single(_ value: String) -> ContextValue { ContextValue(value) }

    /// A multi-valued key.
    /// - Parameter values: The set of values.
    public static func multiple(_ values: [String]) -> ContextValue { ContextValue(multiple: values) }

    /// A boolean key such as `aws:SecureTransport`, stored as `true` or `false`.
    /// - Parameter value: The value.
    public static func bool(_ value: Bool) -> ContextValue { ContextValue(value ? "true" : "false") }

    /// Creates a value from a string literal.
    public init(stringLiteral value: String) { self.init(value) }
    /// Creates a multi-valued key from an array literal.
    public init(arrayLiteral elements: String...) { self.init(multiple: elements) }
    /// Creates `true` or `false` from a boolean literal.
    public init(booleanLiteral value: Bool) { self.init(value ? "true" : "false") }
    /// Creates a value from an integer literal.
    public init(integerLiteral value: Int) { self.init(String(value)) }

    /// The value of a single-valued key, or `nil` for a multi-valued one.
    public var singleValue: String? { self.isMultiValued ? nil : self.values.first }

    /// A short textual form.
    public var description: String {
        self.isMultiValued ? "[" + self.values.map { "\"\($0)\"" }.joined(separator: ", ") + "]" : "\"\(self.values[0])\""
    }

    /// Compares by the identifying value only (see the type documentation).
    public static func == (lhs: ContextValue, rhs: ContextValue) -> Bool {
        lhs.isMultiValued == rhs.isMultiValued && lhs.values == rhs.values
    }

    /// Hashes the same value equality compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.isMultiValued)
        hasher.combine(self.values)
    }
}
