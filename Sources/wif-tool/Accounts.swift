import ArgumentParser
import Foundation
import WIFCredentials
import WIFFileStore
import WIFTerminal

extension WIFTool {
    /// `wif-tool accounts`: the OpenID Connect sign-ins kept in the encrypted store.
    struct Accounts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "accounts",
            abstract: "List the OpenID Connect accounts signed in with 'login --issuer'.",
            discussion: """
                Shows each account kept in the encrypted store $WIF_HOME/secrets.enc: its name, issuer, \
                subject, whether it is the default, and when its ID token expires (it is renewed with the \
                refresh token when used). No token is ever printed.

                Exit status: 0 listed (also when there are none); 3 the store's passphrase or key file is \
                wrong; 8 the store is damaged or from a newer wif-tool.
                """
        )

        @OptionGroup var options: GlobalOptions
        @OptionGroup var store: StoreOptions

        /// One account as listed.
        struct Row: Encodable {
            var name: String
            var issuer: String
            var subject: String?
            var clientId: String
            var isDefault: Bool
            var idTokenExpiration: Date
            var idTokenExpired: Bool
            var canRefresh: Bool
        }

        func run() async throws {
            try await reportingStoreErrors {
                let configuration = try ToolConfiguration.resolve(
                    store: self.store, region: self.options.region, environment: self.options.environment)
                let secrets = try configuration.sessionStore(environment: self.options.environment).secrets
                var rows: [Row] = []
                if secrets.store.exists {
                    rows = try await StoreRuntime.withHTTPClient { httpClient in
                        let set = try await OIDCSignIn.accounts(secrets, httpClient: httpClient).accounts()
                        let now = Date()
                        return set.sortedAccounts.map { account in
                            Row(
                                name: account.name,
                                issuer: account.tokens.issuer ?? account.configuration.issuer
                                    ?? account.configuration.discoveryURL?.absoluteString ?? "",
                                subject: account.tokens.subject,
                                clientId: account.configuration.clientId,
                                isDefault: account.name == set.defaultAccountName,
                                idTokenExpiration: account.tokens.idTokenExpiresAt,
                                idTokenExpired: account.tokens.isIDTokenExpired(at: now),
                                canRefresh: account.tokens.refreshToken != nil)
                        }
                    }
                }
                if self.options.json {
                    try printJSON(rows)
                    return
                }
                guard !rows.isEmpty else {
                    printOut("No accounts; sign in with 'wif-tool login --issuer URL --client-id ID'.\n")
                    return
                }
                let lines: [TerminalText] = rows.map { row in
                    let marker: TerminalText = row.isDefault ? "* " : "  "
                    let expiry = (row.idTokenExpired ? "expired " : "expires ") + row.idTokenExpiration.formatted(.iso8601)
                    return "\(marker)\(row.name)  \(row.issuer)  \(row.subject ?? "-")  ID token \(expiry)"
                }
                printOut(.lines(lines))
            }
        }
    }
}
