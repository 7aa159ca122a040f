import ArgumentParser
import Foundation
import WIFFileStore
import WIFTerminal

extension WIFTool {
    /// `wif-tool whoami`: show the stored sign-in.
    struct Whoami: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "whoami",
            abstract: "Show who is signed in: provider, subject, role, bucket, folder and credential expiry.",
            discussion: """
                Reads the stored sign-in from the encrypted store $WIF_HOME/secrets.enc without contacting \
                any service (a store protected by a passphrase needs WIF_PASSPHRASE or the terminal). \
                Credentials shown as expired are renewed by the next file command while the token is still \
                valid.

                It runs where the sign-in was made (its endpoint, STS endpoint, region and bucket) unless \
                --endpoint, WIF_ENDPOINT or the config file names an endpoint; a different one is refused \
                (exit status 3).

                Exit status: 0 signed in; 3 not signed in, signed in for another endpoint than the one named, or the store's \
                passphrase or key file is wrong; 6 the store cannot be read; 8 the store is damaged, \
                truncated, not a store, or from a newer wif-tool; 64 bad options.
                """
        )

        @OptionGroup var options: GlobalOptions
        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await reportingStoreErrors {
                let configuration = try ToolConfiguration.resolve(
                    store: self.store, region: self.options.region, environment: self.options.environment)
                let session = try StoreRuntime.signedInSession(configuration, environment: self.options.environment).session
                let summary = SessionSummary(session, account: configuration.account, now: Date())
                if self.options.json {
                    try printJSON(summary)
                } else {
                    printOut(.table(summary.rows))
                }
            }
        }
    }

    /// `wif-tool logout`: forget the stored sign-in.
    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "logout",
            abstract: "Forget the stored sign-in (token and credentials).",
            discussion: """
                Removes the account's sign-in from the encrypted store $WIF_HOME/secrets.enc (the store and \
                its key stay for the other accounts), with its OAuth account for a sign-in made with \
                --issuer. With --revoke, the OAuth account's refresh token is first revoked at the issuer \
                (RFC 7009), so a copy of it no longer works; when the issuer cannot be reached the sign-in is \
                kept and the command fails with status 7.

                Exit status: 0 signed out (also when nobody was signed in); 3 the store's passphrase or key \
                file is wrong; 6 the store cannot be written; 8 the store is damaged or from a newer wif-tool.
                """
        )

        @OptionGroup var options: GlobalOptions
        @OptionGroup var store: StoreOptions

        @Flag(name: .long, help: "Revoke the refresh token at the issuer before forgetting an OpenID Connect sign-in.")
        var revoke = false

        struct Output: Encodable {
            var account: String
            var signedOut: Bool
            var revoked: Bool?
        }

        func run() async throws {
            try await reportingStoreErrors {
                let configuration = try ToolConfiguration.resolve(
                    store: self.store, region: self.options.region, environment: self.options.environment)
                let sessions = try configuration.sessionStore(environment: self.options.environment)
                let account = configuration.account ?? "default"
                let oauthName = try sessions.load().flatMap { $0.token.kind == .oidc ? $0.token.account : nil }
                    ?? OIDCSignIn.accountName(configuration.account)
                var revoked: Bool?
                if sessions.secrets.store.exists {
                    revoked = try await StoreRuntime.withHTTPClient { httpClient in
                        let accounts = OIDCSignIn.accounts(sessions.secrets, httpClient: httpClient)
                        guard try await accounts.accounts().accounts[oauthName] != nil else { return Bool?.none }
                        try await accounts.remove(oauthName, revoke: self.revoke, logger: self.options.makeLogger())
                        return self.revoke
                    }
                }
                let removed = try sessions.remove() || revoked != nil
                if self.options.json {
                    try printJSON(Output(account: account, signedOut: removed, revoked: revoked))
                } else if removed {
                    printOut("Signed out (account \(account))\(revoked == true ? "; the refresh token was revoked at the issuer" : "").\n")
                } else {
                    printOut("Nobody was signed in (account \(account)).\n")
                }
            }
        }
    }
}
