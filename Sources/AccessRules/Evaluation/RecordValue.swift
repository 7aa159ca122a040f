import WIFFoundation

/// The value of one field of a record, as far as rules read it: owner and group fields hold a string or
/// a list of strings; anything else only counts as present.
public enum RecordValue: Sendable, Hashable {
    /// A string, such as one owner.
    case string(String)
    /// A list of strings, such as several owners or groups.
    case strings([String])
    /// Null or absent.
    case null
    /// A value of another type (a number, a boolean, an object), described as text.
    case other(String)

    /// Whether the value is, or lists, `name`, compared as bytes as AppSync compares them.
    func contains(_ name: String) -> Bool {
        switch self {
        case .string(let value): return value.hasSameBytes(as: name)
        case .strings(let values): return values.containsSameBytes(as: name)
        case .null, .other: return false
        }
    }

    /// Whether the value names nobody: null, an empty string or an empty list.
    var isEmpty: Bool {
        switch self {
        case .string(let value): return value.isEmpty
        case .strings(let values): return values.isEmpty
        case .null: return true
        case .other: return false
        }
    }

    /// Whether any element satisfies `predicate`.
    func contains(where predicate: (String) -> Bool) -> Bool {
        switch self {
        case .string(let value): return predicate(value)
        case .strings(let values): return values.contains(where: predicate)
        case .null, .other: return false
        }
    }
}

extension RecordValue: ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral {
    /// A string value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A list of strings.
    public init(arrayLiteral elements: String...) { self = .strings(elements) }
    /// Null.
    public init(nilLiteral: ()) { self = .null }
}

/// A record's fields by name: the stored record, the record to create, or an update's changed fields.
public typealias Record = [String: RecordValue]
