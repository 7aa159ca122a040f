import Foundation

/// Where ``OAuthAccounts`` keeps its accounts: an encrypted file for the command line, a keychain, a
/// database, or memory in tests.
///
/// Calls come one at a time from the ``OAuthAccounts`` actor, which reads the whole set, changes it
/// and writes it back. An implementation must write atomically: after a failed ``saveAccounts(_:)`` the
/// previous set must still load.
public protocol OAuthAccountStorage: Sendable {
    /// Reads every account.
    /// - Returns: The stored set; an empty set when nothing was stored yet.
    /// - Throws: When the storage cannot be read (it is never silently replaced).
    func loadAccounts() async throws -> OAuthAccountSet

    /// Replaces the stored set.
    /// - Parameter accounts: The set to keep.
    /// - Throws: When it cannot be written; the previous set is then left as it was.
    func saveAccounts(_ accounts: OAuthAccountSet) async throws
}

/// Accounts kept in memory only, for tests and for applications that keep nothing on disk.
public actor InMemoryOAuthAccountStorage: OAuthAccountStorage {
    private var accounts: OAuthAccountSet
    /// How many times the set was saved.
    public private(set) var saveCount = 0

    /// Creates a storage holding `accounts`.
    /// - Parameter accounts: The initial set; empty by default.
    public init(_ accounts: OAuthAccountSet = OAuthAccountSet()) {
        self.accounts = accounts
    }

    /// Returns the set held.
    public func loadAccounts() async throws -> OAuthAccountSet {
        self.accounts
    }

    /// Replaces the set held.
    /// - Parameter accounts: The set to keep.
    public func saveAccounts(_ accounts: OAuthAccountSet) async throws {
        self.accounts = accounts
        self.saveCount += 1
    }
}
