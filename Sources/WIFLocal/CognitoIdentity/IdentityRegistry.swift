import Crypto
import Foundation
import Synchronization
import WIFFoundation

/// The identities of the stack's identity pools and the logins linked to them.
///
/// An identity first created from a login gets an id derived from (pool, logins key, subject) with the
/// stack's identity key, so the same user gets the same identity id after a restart; a guest identity's
/// id is random. A registry opened with ``opened(key:journalPath:maximumIdentities:)`` writes every
/// change to an ``IdentityJournal`` and reads it back when the stack starts again, so guests and the
/// logins linked to them outlive restarts; one made with ``init(key:maximumIdentities:)`` keeps them in
/// memory only, and a forgotten identity's holder is told `ResourceNotFoundException`, as when AWS
/// deletes one.
final class IdentityRegistry: Sendable {
    /// One identity.
    struct Identity: Sendable, Hashable {
        var id: String
        var poolId: String
        /// The linked logins: logins key → subject.
        var logins: [String: String]
        /// Seconds since 1970.
        var created: Int64
        var modified: Int64
    }

    /// A login: the logins key of its provider and the user's subject there.
    struct Login: Sendable, Hashable {
        var key: String
        var subject: String
    }

    private struct State {
        var identities: [String: Identity] = [:]
        /// `pool \n key \n subject` → identity id.
        var linked: [String: String] = [:]
        /// Identity ids by pool, in creation order, for listing.
        var byPool: [String: [String]] = [:]
    }

    /// The file under `keys/` of the key that derives identity ids.
    static let keyFileName = "identity-pool.key"

    /// The most identities kept, so callers that create guests in a loop cannot exhaust the stack's memory.
    static let defaultMaximumIdentities = 100_000

    private let key: SymmetricKey
    private let maximumIdentities: Int
    private let state: Mutex<State>
    private let journal: IdentityJournal?

    /// A registry kept in memory only.
    convenience init(key: SymmetricKey, maximumIdentities: Int = IdentityRegistry.defaultMaximumIdentities) {
        self.init(key: key, maximumIdentities: maximumIdentities, journal: nil, state: State())
    }

    private init(key: SymmetricKey, maximumIdentities: Int, journal: IdentityJournal?, state: State) {
        self.key = key
        self.maximumIdentities = maximumIdentities
        self.journal = journal
        self.state = Mutex(state)
    }

    /// A registry with the identities of the journal at `journalPath`, which records every later change.
    /// - Throws: ``LocalStackError`` when the journal cannot be read or opened, or a line of it is not an entry.
    static func opened(
        key: SymmetricKey, journalPath: String, maximumIdentities: Int = IdentityRegistry.defaultMaximumIdentities
    ) throws(LocalStackError) -> IdentityRegistry {
        var state = State()
        let (entries, length) = try IdentityJournal.read(path: journalPath)
        for entry in entries {
            switch entry {
            case .create(let id, let poolId, let at):
                guard state.identities[id] == nil else { continue }
                state.identities[id] = Identity(id: id, poolId: poolId, logins: [:], created: at, modified: at)
                state.byPool[poolId, default: []].append(id)
            case .link(let id, let key, let subject, let at):
                _ = Self.link([Login(key: key, subject: subject)], to: id, in: &state, now: at)
            }
        }
        let journal = try IdentityJournal(path: journalPath, keeping: length)
        return IdentityRegistry(key: key, maximumIdentities: maximumIdentities, journal: journal, state: state)
    }

    /// Records changes made under the lock.
    private func record(_ entries: [IdentityJournal.Entry]) throws(AWSErrorResponse) {
        do {
            try self.journal?.append(entries)
        } catch {
            throw AWSErrorResponse("InternalErrorException", "The identity could not be saved: \(error.message)", status: .internalServerError)
        }
    }

    /// An identity by id.
    func identity(_ id: String) -> Identity? {
        self.state.withLock { $0.identities[id] }
    }

    /// A new guest identity in a pool.
    /// - Throws: `LimitExceededException` when the registry is full.
    func newGuest(poolId: String, now: Int64) throws(AWSErrorResponse) -> Identity {
        let bytes = SecureRandom.bytes(16)
        let identity = Identity(id: Self.identityId(poolId: poolId, bytes: bytes), poolId: poolId, logins: [:], created: now, modified: now)
        try self.state.withLock { state throws(AWSErrorResponse) in
            guard state.identities.count < self.maximumIdentities else { throw self.full }
            state.identities[identity.id] = identity
            state.byPool[poolId, default: []].append(identity.id)
            try self.record([.create(id: identity.id, poolId: poolId, at: now)])
        }
        return identity
    }

    /// The identity of a set of logins (`GetId`): the one they are linked to, with every login linked;
    /// a new one when none is.
    /// - Throws: `ResourceConflictException` when the logins are linked to different identities,
    ///   `LimitExceededException` when a new identity is needed and the registry is full.
    func resolve(poolId: String, logins: [Login], now: Int64) throws(AWSErrorResponse) -> Identity {
        guard let first = logins.first else { return try self.newGuest(poolId: poolId, now: now) }
        let derived = Self.identityId(poolId: poolId, bytes: self.derivedBytes(poolId: poolId, login: first))
        return try self.state.withLock { state throws(AWSErrorResponse) -> Identity in
            let linked = Set(logins.compactMap { state.linked[Self.linkKey(poolId, $0)] })
            guard linked.count <= 1 else { throw Self.conflict }
            let id = linked.first ?? derived
            var entries: [IdentityJournal.Entry] = []
            if state.identities[id] == nil {
                guard state.identities.count < self.maximumIdentities else { throw self.full }
                state.identities[id] = Identity(id: id, poolId: poolId, logins: [:], created: now, modified: now)
                state.byPool[poolId, default: []].append(id)
                entries.append(.create(id: id, poolId: poolId, at: now))
            }
            entries += Self.link(logins, to: id, in: &state, now: now)
            try self.record(entries)
            return state.identities[id] ?? Identity(id: id, poolId: poolId, logins: [:], created: now, modified: now)
        }
    }

    /// Links logins to an existing identity (`GetCredentialsForIdentity` and `GetOpenIdToken` with
    /// logins), which turns a guest into a signed-in identity that keeps its id.
    /// - Throws: `ResourceConflictException` when a login is linked to another identity.
    func link(_ logins: [Login], to id: String, now: Int64) throws(AWSErrorResponse) -> Identity? {
        try self.state.withLock { state throws(AWSErrorResponse) -> Identity? in
            guard let identity = state.identities[id] else { return nil }
            for login in logins {
                if let other = state.linked[Self.linkKey(identity.poolId, login)], other != id { throw Self.conflict }
            }
            try self.record(Self.link(logins, to: id, in: &state, now: now))
            return state.identities[id]
        }
    }

    /// A page of a pool's identities, in creation order, after the identity `after`.
    func list(poolId: String, maximum: Int, after: String?) -> (identities: [Identity], next: String?) {
        self.state.withLock { state in
            let ids = state.byPool[poolId] ?? []
            let start = after.flatMap { ids.firstIndex(of: $0).map { $0 + 1 } } ?? 0
            let page = ids.dropFirst(start).prefix(maximum)
            let next = start + page.count < ids.count ? page.last : nil
            return (page.compactMap { state.identities[$0] }, next)
        }
    }

    private static let conflict = AWSErrorResponse("ResourceConflictException", "The provided login is already linked to another identity.")

    private var full: AWSErrorResponse {
        AWSErrorResponse("LimitExceededException", "The stack keeps at most \(self.maximumIdentities) identities; restart it to forget guest identities.")
    }

    /// Links logins to an identity, returning the journal entries of the links that changed.
    private static func link(_ logins: [Login], to id: String, in state: inout State, now: Int64) -> [IdentityJournal.Entry] {
        guard var identity = state.identities[id] else { return [] }
        var entries: [IdentityJournal.Entry] = []
        for login in logins where identity.logins[login.key] != login.subject {
            if let previous = identity.logins[login.key] {
                // One login per provider: a new user of the same provider replaces the earlier one.
                state.linked[Self.linkKey(identity.poolId, Login(key: login.key, subject: previous))] = nil
            }
            identity.logins[login.key] = login.subject
            state.linked[Self.linkKey(identity.poolId, login)] = id
            entries.append(.link(id: id, key: login.key, subject: login.subject, at: now))
        }
        if !entries.isEmpty { identity.modified = now }
        state.identities[id] = identity
        return entries
    }

    private static func linkKey(_ poolId: String, _ login: Login) -> String {
        "\(poolId)\n\(login.key)\n\(login.subject)"
    }

    private func derivedBytes(poolId: String, login: Login) -> [UInt8] {
        let mac = HMAC<SHA256>.authenticationCode(for: Array(Self.linkKey(poolId, login).utf8), using: self.key)
        return Array(Array(mac).prefix(16))
    }

    /// `REGION:UUID` with the pool's region and a version-4 UUID of the bytes.
    private static func identityId(poolId: String, bytes: [UInt8]) -> String {
        var bytes = bytes
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = TokenEncoding.hex(bytes)
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        let region = poolId.split(separator: ":").first.map(String.init) ?? "us-east-1"
        return "\(region):" + parts.joined(separator: "-")
    }
}
