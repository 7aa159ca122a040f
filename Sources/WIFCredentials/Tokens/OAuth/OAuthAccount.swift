import Foundation

/// One signed-in account: a name, the issuer and client it signed in with, and its tokens.
///
/// `Codable` so a store can keep it; the tokens and the client secret never appear in `description`.
public struct OAuthAccount: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The account's name, such as `work` or `google`: 1–64 of letters, digits, `.`, `_`, `-` and `@`.
    public var name: String
    /// The issuer and client the account signed in with.
    public var configuration: OAuth2ClientConfiguration
    /// The sign-in's tokens.
    public var tokens: OAuth2Tokens

    /// Creates an account.
    /// - Parameters:
    ///   - name: The account's name.
    ///   - configuration: The issuer and client.
    ///   - tokens: The sign-in's tokens.
    public init(name: String, configuration: OAuth2ClientConfiguration, tokens: OAuth2Tokens) {
        self.name = name
        self.configuration = configuration
        self.tokens = tokens
    }

    /// The longest account name.
    public static let maximumNameLength = 64

    /// Checks an account name.
    /// - Parameter name: The name.
    /// - Throws: ``WIFCredentialsError`` `invalidParameter` naming the rule it breaks.
    public static func validate(name: String) throws(WIFCredentialsError) {
        let length = name.unicodeScalars.count
        guard (1...Self.maximumNameLength).contains(length) else {
            throw .invalidParameter("an account name is 1–\(Self.maximumNameLength) characters; '\(name.prefix(80))' is \(length)")
        }
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", ".", "_", "-", "@": true
            default: false
            }
        }
        guard allowed else {
            throw .invalidParameter("the account name '\(name)' may hold only letters, digits, '.', '_', '-' and '@'")
        }
    }

    /// The name, the issuer, the client id and the subject; never a token or secret.
    public var description: String {
        var parts = ["name: \(self.name)"]
        if let issuer = self.tokens.issuer ?? self.configuration.issuer { parts.append("issuer: \(issuer)") }
        parts.append("clientId: \(self.configuration.clientId)")
        if let subject = self.tokens.subject { parts.append("subject: \(subject)") }
        return "OAuthAccount(\(parts.joined(separator: ", ")))"
    }
}

/// Every account a store holds, and which one is the default.
public struct OAuthAccountSet: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The accounts, by name.
    public var accounts: [String: OAuthAccount]
    /// The default account's name, used when no account is named.
    public var defaultAccountName: String?

    /// Creates a set.
    /// - Parameters:
    ///   - accounts: The accounts, by name.
    ///   - defaultAccountName: The default account's name.
    public init(accounts: [String: OAuthAccount] = [:], defaultAccountName: String? = nil) {
        self.accounts = accounts
        self.defaultAccountName = defaultAccountName
    }

    /// The accounts sorted by name.
    public var sortedAccounts: [OAuthAccount] {
        self.accounts.values.sorted { $0.name < $1.name }
    }

    /// The names and the default; never a token.
    public var description: String {
        let names = self.accounts.keys.sorted().joined(separator: ", ")
        return "OAuthAccountSet(accounts: [\(names)], default: \(self.defaultAccountName ?? "none"))"
    }
}
