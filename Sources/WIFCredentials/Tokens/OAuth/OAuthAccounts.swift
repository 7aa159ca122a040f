import AsyncHTTPClient
import Foundation
import Logging
import WIFHTTP

/// Named OAuth 2.0 / OpenID Connect accounts, one of them the default, kept in an ``OAuthAccountStorage``.
///
/// Sign in with an ``OAuth2Client``, ``save(_:makeDefault:)`` the result under a name, and later get an
/// ``OIDCTokenSource`` for it with ``tokenSource(for:configuration:)``: it renews the account's tokens
/// as needed and writes the renewed tokens back to the storage.
///
/// Every change reads the stored set, changes it and writes it back, one change at a time, so changes
/// made through another manager on the same storage are kept.
///
/// ```swift
/// let accounts = OAuthAccounts(storage: store)
/// let client = try OAuth2Client(configuration: configuration)
/// let tokens = try await client.authorizeWithDevice { print("Go to \($0.verificationURI) and enter \($0.userCode)") }
/// try await accounts.save(OAuthAccount(name: "work", configuration: configuration, tokens: tokens))
/// let source = try await accounts.tokenSource()   // the default account
/// ```
public actor OAuthAccounts {
    /// Where the accounts are kept.
    public nonisolated let storage: any OAuthAccountStorage
    private let makeTransport: @Sendable () -> any HTTPTransport
    private let timeSource: TimeSource
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Creates a manager over `storage`.
    /// - Parameters:
    ///   - storage: Where the accounts are kept.
    ///   - httpClient: The HTTP client that reaches the issuers.
    ///   - timeSource: The clock of the clients and token sources it creates.
    public init(storage: some OAuthAccountStorage, httpClient: HTTPClient = .wifShared, timeSource: TimeSource = .system) {
        self.init(storage: storage, transport: { AsyncHTTPClientTransport(httpClient: httpClient) }, timeSource: timeSource)
    }

    /// Creates a manager whose clients reach issuers through the transports `transport` makes.
    package init(storage: some OAuthAccountStorage, transport: @escaping @Sendable () -> any HTTPTransport, timeSource: TimeSource) {
        self.storage = storage
        self.makeTransport = transport
        self.timeSource = timeSource
    }

    /// Every stored account and the default's name.
    /// - Returns: The stored set.
    /// - Throws: What the storage throws.
    public func accounts() async throws -> OAuthAccountSet {
        try await self.exclusively { try await self.storage.loadAccounts() }
    }

    /// One account.
    /// - Parameter name: The account's name; `nil` for the default account.
    /// - Returns: The account.
    /// - Throws: ``WIFCredentialsError`` `noCredentials` when there is no such account (or no default),
    ///   listing the accounts there are; what the storage throws.
    public func account(named name: String? = nil) async throws -> OAuthAccount {
        try await self.exclusively {
            try Self.find(name, in: try await self.storage.loadAccounts())
        }
    }

    /// Adds an account or replaces the one with its name. The first account becomes the default.
    /// - Parameters:
    ///   - account: The account.
    ///   - makeDefault: Whether it becomes the default even when there is one.
    /// - Throws: ``WIFCredentialsError`` `invalidParameter` for a bad name; what the storage throws.
    public func save(_ account: OAuthAccount, makeDefault: Bool = false) async throws {
        try OAuthAccount.validate(name: account.name)
        try await self.exclusively {
            var set = try await self.storage.loadAccounts()
            set.accounts[account.name] = account
            if makeDefault || set.defaultAccountName.map({ set.accounts[$0] == nil }) ?? true {
                set.defaultAccountName = account.name
            }
            try await self.storage.saveAccounts(set)
        }
    }

    /// Makes an account the default.
    /// - Parameter name: The account's name.
    /// - Throws: ``WIFCredentialsError`` `noCredentials` when there is no such account; what the
    ///   storage throws.
    public func setDefault(_ name: String) async throws {
        try await self.exclusively {
            var set = try await self.storage.loadAccounts()
            _ = try Self.find(name, in: set)
            set.defaultAccountName = name
            try await self.storage.saveAccounts(set)
        }
    }

    /// Stores renewed tokens for an account (what its token source calls after a refresh).
    /// - Parameters:
    ///   - tokens: The renewed tokens.
    ///   - name: The account's name.
    /// - Throws: ``WIFCredentialsError`` `noCredentials` when the account was removed meanwhile; what
    ///   the storage throws.
    public func updateTokens(_ tokens: OAuth2Tokens, forAccount name: String) async throws {
        try await self.exclusively {
            var set = try await self.storage.loadAccounts()
            guard set.accounts[name] != nil else {
                throw WIFCredentialsError.noCredentials("the account '\(name)' was removed, so its renewed tokens were not kept")
            }
            set.accounts[name]?.tokens = tokens
            try await self.storage.saveAccounts(set)
        }
    }

    /// Removes an account, first revoking its sign-in at the issuer when asked. When the removed
    /// account was the default, the first remaining account by name becomes the default.
    /// - Parameters:
    ///   - name: The account's name; `nil` for the default account.
    ///   - revoke: Whether to revoke the refresh token at the issuer first (RFC 7009).
    ///   - logger: Where to log.
    /// - Returns: The removed account.
    /// - Throws: ``WIFCredentialsError`` `noCredentials` when there is no such account; the revocation's
    ///   error, in which case the account is kept; what the storage throws.
    @discardableResult
    public func remove(
        _ name: String? = nil,
        revoke: Bool = false,
        logger: Logger = .noop
    ) async throws -> OAuthAccount {
        try await self.exclusively {
            var set = try await self.storage.loadAccounts()
            let account = try Self.find(name, in: set)
            if revoke {
                try await self.makeClient(account.configuration).revoke(account.tokens, logger: logger)
            }
            set.accounts[account.name] = nil
            if set.defaultAccountName == account.name {
                set.defaultAccountName = set.accounts.keys.sorted().first
            }
            try await self.storage.saveAccounts(set)
            return account
        }
    }

    /// A client for an account's issuer.
    /// - Parameter name: The account's name; `nil` for the default account.
    /// - Returns: The client.
    /// - Throws: `noCredentials` when there is no such account; `invalidConfiguration` when its
    ///   configuration is unusable; what the storage throws.
    public func client(for name: String? = nil) async throws -> OAuth2Client {
        let account = try await self.account(named: name)
        return try self.makeClient(account.configuration)
    }

    /// A token source for an account that renews its tokens and stores the renewed ones.
    /// - Parameters:
    ///   - name: The account's name; `nil` for the default account.
    ///   - configuration: When tokens are renewed.
    /// - Returns: The source.
    /// - Throws: `noCredentials` when there is no such account; `invalidConfiguration` when its
    ///   configuration is unusable; what the storage throws.
    public func tokenSource(for name: String? = nil, configuration: OIDCTokenSource.Configuration = .init()) async throws -> OIDCTokenSource {
        let account = try await self.account(named: name)
        let client = try self.makeClient(account.configuration)
        let accountName = account.name
        return OIDCTokenSource(client: client, tokens: account.tokens, configuration: configuration) { [weak self] tokens in
            guard let self else { return }
            try await self.updateTokens(tokens, forAccount: accountName)
        }
    }

    private func makeClient(_ configuration: OAuth2ClientConfiguration) throws(WIFCredentialsError) -> OAuth2Client {
        try OAuth2Client(configuration: configuration, transport: self.makeTransport(), timeSource: self.timeSource)
    }

    private static func find(_ name: String?, in set: OAuthAccountSet) throws(WIFCredentialsError) -> OAuthAccount {
        let names = set.accounts.keys.sorted()
        let known = names.isEmpty ? "there are no accounts; sign in first" : "accounts: \(names.joined(separator: ", "))"
        guard let wanted = name ?? set.defaultAccountName else {
            throw .noCredentials("no account was named and there is no default account; \(known)")
        }
        guard let account = set.accounts[wanted] else {
            throw .noCredentials("there is no account named '\(wanted)'; \(known)")
        }
        return account
    }

    /// Runs `body` with no other change of this manager running, so each read-change-write of the
    /// storage is whole.
    private func exclusively<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        if self.busy {
            await withCheckedContinuation { self.waiting.append($0) }
        } else {
            self.busy = true
        }
        defer {
            if self.waiting.isEmpty {
                self.busy = false
            } else {
                self.waiting.removeFirst().resume()
            }
        }
        return try await body()
    }
}
