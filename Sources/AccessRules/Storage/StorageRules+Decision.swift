import WIFFoundation

extension StorageRules {
    /// A storage decision and what made it.
    public struct Decision: Sendable, Hashable, CustomStringConvertible {
        /// Whether the request is allowed.
        public var allowed: Bool
        /// The path whose rules decided, `nil` when no path holds the key or prefix.
        public var path: String?
        /// Why, in words.
        public var reason: String

        public var description: String { (self.allowed ? "Allow" : "Deny") + ": " + self.reason }
    }

    /// Decides a request by the rules alone: the most specific path holding the key (or the listing's
    /// prefix) governs it, and one of its rules must give the caller the action. A guest has the guest
    /// rules; a signed-in identity the authenticated rules, and the entity rules where the key's
    /// `{entity_id}` part is its own identity id; a group member its group's rules only.
    /// - Parameters:
    ///   - request: The request.
    ///   - principal: The caller.
    /// - Returns: The decision.
    public func decide(_ request: StorageRequest, as principal: StoragePrincipal) -> Decision {
        let target: String
        let action: StorageAction
        switch request {
        case .get(let key): (target, action) = (key, .get)
        case .put(let key): (target, action) = (key, .write)
        case .delete(let key): (target, action) = (key, .delete)
        case .list(let prefix):
            guard let prefix, !prefix.isEmpty else {
                return Decision(allowed: false, path: nil, reason: "listing without a prefix reaches every path; no rule allows it")
            }
            (target, action) = (prefix, .list)
        }
        guard let path = self.governingPath(of: target) else {
            return Decision(allowed: false, path: nil, reason: "no path holds '\(target)'")
        }
        for grant in path.grants where grant.actions.contains(action) {
            if Self.applies(grant.subject, to: principal, path: path, target: target) {
                return Decision(allowed: true, path: path.pattern, reason: "\(path.pattern) allows \(Self.describe(grant.subject)) to \(action.rawValue)")
            }
        }
        return Decision(allowed: false, path: path.pattern, reason: "\(path.pattern) gives \(principal) no rule to \(action.rawValue)")
    }

    /// The most specific path holding a key or prefix: the longest text before its `{entity_id}`, an
    /// owner path before a plain one of the same text.
    func governingPath(of target: String) -> StoragePath? {
        var best: StoragePath?
        for path in self.paths where path.holds(target) {
            guard let current = best else {
                best = path
                continue
            }
            let length = path.beforeEntity.utf8.count
            let bestLength = current.beforeEntity.utf8.count
            if length > bestLength || (length == bestLength && path.hasEntity && !current.hasEntity) { best = path }
        }
        return best
    }

    static func applies(_ subject: StorageGrant.Subject, to principal: StoragePrincipal, path: StoragePath, target: String) -> Bool {
        switch (subject, principal) {
        case (.guest, .guest): return true
        case (.authenticated, .identity(_, nil)): return true
        case (.entity, .identity(let id, nil)): return path.hasEntity && path.isOwned(target, by: id)
        case (.groups(let names), .identity(_, let group?)): return names.containsSameBytes(as: group)
        default: return false
        }
    }

    static func describe(_ subject: StorageGrant.Subject) -> String {
        switch subject {
        case .guest: return "guests"
        case .authenticated: return "signed-in users"
        case .entity: return "the owner ({entity_id})"
        case .groups(let names): return "the group\(names.count == 1 ? "" : "s") \(names.joined(separator: ", "))"
        }
    }
}

extension StoragePath {
    /// Whether a key or prefix lies under the path: it starts with the text before `{entity_id}` and,
    /// for an owner path, holds the text after it further on (the id may be any text, as any
    /// identity's folder is under the path).
    func holds(_ target: String) -> Bool {
        guard self.hasEntity else { return target.utf8.starts(with: self.folder.utf8) }
        guard target.utf8.starts(with: self.beforeEntity.utf8) else { return false }
        let rest = target.utf8.dropFirst(self.beforeEntity.utf8.count)
        let after = Array(self.afterEntity.utf8)
        guard !after.isEmpty else { return true }
        var index = rest.startIndex
        while index != rest.endIndex {
            if rest[index...].starts(with: after) { return true }
            index = rest.index(after: index)
        }
        return false
    }

    /// Whether a key or prefix lies in `id`'s own folder of an owner path.
    func isOwned(_ target: String, by id: String) -> Bool {
        target.utf8.starts(with: (self.beforeEntity + id + self.afterEntity).utf8)
    }
}
