extension EncryptedStore: OAuthAccountStorage {
    /// The key under which ``OAuthAccounts`` keeps its accounts in the store's document.
    public static let oauthAccountsKey = "oauth.accounts"

    /// Reads the OAuth accounts kept in the store.
    ///
    /// The file is read (and, for a passphrase, the key derived on first use) synchronously.
    /// - Returns: The stored set; an empty set when the store or the entry does not exist.
    /// - Throws: ``WIFCredentialsError`` as ``load(logger:)`` throws; `storeDamaged` when the entry is
    ///   not an account set.
    public func loadAccounts() async throws -> OAuthAccountSet {
        try self.load().value(OAuthAccountSet.self, forKey: Self.oauthAccountsKey) ?? OAuthAccountSet()
    }

    /// Replaces the OAuth accounts kept in the store, keeping every other entry; an empty set removes
    /// the entry.
    /// - Parameter accounts: The set to keep.
    /// - Throws: ``WIFCredentialsError`` as ``update(logger:_:)`` throws; the store is then unchanged.
    public func saveAccounts(_ accounts: OAuthAccountSet) async throws {
        try self.update { document in
            if accounts.accounts.isEmpty && accounts.defaultAccountName == nil {
                document.removeValue(forKey: Self.oauthAccountsKey)
            } else {
                try document.setValue(accounts, forKey: Self.oauthAccountsKey)
            }
        }
    }
}
