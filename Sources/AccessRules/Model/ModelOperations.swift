/// One operation on a model's records, as a rule's `operations` lists it.
public enum ModelOperation: String, Sendable, Hashable, CaseIterable, Codable {
    /// A new record.
    case create
    /// Changed fields of a stored record.
    case update
    /// A stored record removed.
    case delete
    /// One record by its key.
    case get
    /// Records by a filter.
    case list
    /// Records through a search index.
    case search
    /// Records fetched by DataStore's sync queries.
    case sync
    /// Subscriptions to changes.
    case listen

    /// Whether this operation reads records (so field rules redact rather than refuse).
    public var isRead: Bool {
        switch self {
        case .get, .list, .search, .sync, .listen: return true
        case .create, .update, .delete: return false
        }
    }

    /// The set holding only this operation.
    public var asSet: ModelOperations { ModelOperations(rawValue: 1 << self.bit) }

    private var bit: UInt16 {
        switch self {
        case .create: return 0
        case .update: return 1
        case .delete: return 2
        case .get: return 3
        case .list: return 4
        case .search: return 5
        case .sync: return 6
        case .listen: return 7
        }
    }
}

/// A set of operations, as a rule's `operations` field: `read` stands for get, list, search, sync and
/// listen. A bit set so that a decision tests membership without allocating.
public struct ModelOperations: OptionSet, Sendable, Hashable {
    /// One bit per ``ModelOperation``, in declaration order.
    public let rawValue: UInt16

    /// Creates a set from its bits.
    /// - Parameter rawValue: One bit per ``ModelOperation`` in declaration order.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// Creating records.
    public static let create = ModelOperation.create.asSet
    /// Updating records.
    public static let update = ModelOperation.update.asSet
    /// Deleting records.
    public static let delete = ModelOperation.delete.asSet
    /// Reading one record by its key.
    public static let get = ModelOperation.get.asSet
    /// Listing records.
    public static let list = ModelOperation.list.asSet
    /// Searching records.
    public static let search = ModelOperation.search.asSet
    /// DataStore sync queries.
    public static let sync = ModelOperation.sync.asSet
    /// Subscriptions.
    public static let listen = ModelOperation.listen.asSet
    /// Every way of reading: get, list, search, sync and listen.
    public static let read: ModelOperations = [.get, .list, .search, .sync, .listen]
    /// Every operation: what a rule without `operations` allows.
    public static let all: ModelOperations = [.create, .update, .delete, .read]

    /// Whether the set holds an operation.
    /// - Parameter operation: The operation.
    public func contains(_ operation: ModelOperation) -> Bool {
        self.rawValue & operation.asSet.rawValue != 0
    }

    /// The names accepted in a rule's `operations` list.
    static let names = ["create", "update", "delete", "read", "get", "list", "search", "sync", "listen"]

    /// The set a name in an `operations` list stands for (`read` is five operations), or `nil`.
    static func named(_ name: String) -> ModelOperations? {
        if name == "read" { return .read }
        return ModelOperation(rawValue: name)?.asSet
    }

    /// The operations, in declaration order.
    public var operations: [ModelOperation] { ModelOperation.allCases.filter { self.contains($0) } }
}
