/// Who may do what under which paths of one bucket, in the vocabulary of Amplify Gen 2's storage
/// access (`defineStorage`):
///
/// ```json
/// {"bucket": "wif-personal",
///  "paths": {"public/*": [{"allow": "guest", "to": ["read"]},
///                         {"allow": "authenticated", "to": ["read", "write", "delete"]}],
///            "private/{entity_id}/*": [{"allow": "entity", "entity": "identity", "to": ["read", "write", "delete"]}]}}
/// ```
///
/// A key is governed by the most specific path that holds it: the rules of `media/*` do not reach
/// `media/albums/x` when `media/albums/*` is a path of its own. A signed-in user who belongs to a group
/// gets that group's role and with it only the group's rules, as an identity pool gives the group's
/// role instead of the authenticated one.
public struct StorageRules: Sendable, Hashable {
    /// The bucket.
    public var bucket: String
    /// The paths, in the file's order.
    public var paths: [StoragePath]

    /// Creates rules.
    public init(bucket: String, paths: [StoragePath]) {
        self.bucket = bucket
        self.paths = paths
    }

    /// The groups named by any rule, sorted.
    public var groups: [String] {
        Array(Set(self.paths.flatMap { $0.grants.flatMap { grant -> [String] in
            if case .groups(let names) = grant.subject { return names }
            return []
        } })).sorted()
    }
}

/// One path of a bucket and its rules.
public struct StoragePath: Sendable, Hashable {
    /// The token standing for the owner's identity id, as the last part of a path.
    public static let entityToken = "{entity_id}"

    /// The path as written: `public/*`, `protected/{entity_id}/*`.
    public var pattern: String
    /// The rules.
    public var grants: [StorageGrant]

    /// Creates a path.
    public init(pattern: String, grants: [StorageGrant]) {
        self.pattern = pattern
        self.grants = grants
    }

    /// The path without its final `*`: `public/`, `protected/{entity_id}/`.
    public var folder: String { String(self.pattern.dropLast()) }

    /// Whether the path has the `{entity_id}` token.
    public var hasEntity: Bool { self.pattern.contains(Self.entityToken) }

    /// The text before `{entity_id}` (`protected/`), or the whole folder when there is no token.
    var beforeEntity: String {
        guard let range = self.folder.range(of: Self.entityToken) else { return self.folder }
        return String(self.folder[..<range.lowerBound])
    }

    /// The text after `{entity_id}` (`/`), or empty when there is no token.
    var afterEntity: String {
        guard let range = self.folder.range(of: Self.entityToken) else { return "" }
        return String(self.folder[range.upperBound...])
    }
}

/// One rule of a path: a subject and the actions it may take.
public struct StorageGrant: Sendable, Hashable {
    /// Who the rule is for.
    public enum Subject: Sendable, Hashable {
        /// Callers who are not signed in (the identity pool's unauthenticated role).
        case guest
        /// Every signed-in caller outside the groups (the authenticated role).
        case authenticated
        /// The owner: the signed-in caller whose identity id is the path's `{entity_id}`.
        case entity
        /// Members of these groups (each group's role).
        case groups([String])
    }

    /// Who the rule is for.
    public var subject: Subject
    /// What they may do.
    public var actions: Set<StorageAction>

    /// Creates a rule.
    public init(_ subject: Subject, _ actions: Set<StorageAction>) {
        self.subject = subject
        self.actions = actions
    }
}

/// What a rule allows. `read` in a rules file is `get` and `list`.
public enum StorageAction: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Read an object.
    case get
    /// List keys under the path.
    case list
    /// Write an object (whole, or in parts).
    case write
    /// Delete an object.
    case delete

    private var order: Int {
        switch self {
        case .get: return 0
        case .list: return 1
        case .write: return 2
        case .delete: return 3
        }
    }

    public static func < (lhs: StorageAction, rhs: StorageAction) -> Bool { lhs.order < rhs.order }
}

/// A caller of the storage rules.
public enum StoragePrincipal: Sendable, Hashable, CustomStringConvertible {
    /// Not signed in.
    case guest
    /// A signed-in identity and the group whose role it has, if any.
    case identity(String, group: String? = nil)

    public var description: String {
        switch self {
        case .guest: return "guest"
        case .identity(let id, nil): return "identity \(id)"
        case .identity(let id, let group?): return "identity \(id) in group \(group)"
        }
    }
}

/// A request the storage rules decide.
public enum StorageRequest: Sendable, Hashable, CustomStringConvertible {
    /// Read the object at a key.
    case get(key: String)
    /// Write the object at a key.
    case put(key: String)
    /// Delete the object at a key.
    case delete(key: String)
    /// List the bucket with a prefix; `nil` lists it all.
    case list(prefix: String?)

    public var description: String {
        switch self {
        case .get(let key): return "get \(key)"
        case .put(let key): return "put \(key)"
        case .delete(let key): return "delete \(key)"
        case .list(let prefix?): return "list prefix '\(prefix)'"
        case .list(nil): return "list the whole bucket"
        }
    }
}

extension StorageRules {
    /// The group of the default layout's administrators.
    public static let adminGroup = "admin"

    /// Amplify's storage layout, as its Gen 1 CLI set it up and its Gen 2 documentation starts from, with
    /// an administrators' group: guests read `public/`; signed-in users read and write it, read every
    /// `protected/` folder, and own their `protected/{entity_id}/` and `private/{entity_id}/` folders;
    /// the `admin` group reads, writes and deletes under all three. `policies/storage/amplify-default.rules.json`
    /// is this layout for the bucket `wif-personal`.
    /// - Parameter bucket: The bucket.
    public static func amplifyDefault(bucket: String) -> StorageRules {
        let all: Set<StorageAction> = [.get, .list, .write, .delete]
        let read: Set<StorageAction> = [.get, .list]
        let admin = StorageGrant(.groups([Self.adminGroup]), all)
        return StorageRules(
            bucket: bucket,
            paths: [
                StoragePath(pattern: "public/*", grants: [StorageGrant(.guest, read), StorageGrant(.authenticated, all), admin]),
                StoragePath(
                    pattern: "protected/{entity_id}/*", grants: [StorageGrant(.authenticated, read), StorageGrant(.entity, all), admin]),
                StoragePath(pattern: "private/{entity_id}/*", grants: [StorageGrant(.entity, all), admin]),
            ])
    }
}
