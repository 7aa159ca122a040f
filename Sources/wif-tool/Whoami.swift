import ArgumentParser
import Foundation

extension WIFTool {
    /// `wif-tool whoami`: show the stored sign-in.
    struct Whoami: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show who is signed in: provider, subject, role, bucket, folder and credential expiry.",
            discussion: """
                Reads the stored sign-in from the encrypted store $WIF_HOME/secrets.enc without contacting \
                any service (a store protected by a passphrase needs WIF_PASSPHRASE or the terminal). \
                Credentials shown as expired are renewed by the next file command while the token is still \
                valid.

                Exit status: 0 signed in; 3 not signed in, signed in for another endpoint, or the store's \
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
                    printOut(summary.text)
                }
            }
        }
    }

    /// `wif-tool logout`: forget the stored sign-in.
    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forget the stored sign-in (token and credentials).",
            discussion: """
                Removes the account's sign-in from the encrypted store $WIF_HOME/secrets.enc (the store and \
                its key stay for the other accounts).

                Exit status: 0 signed out (also when nobody was signed in); 3 the store's passphrase or key \
                file is wrong; 6 the store cannot be written; 8 the store is damaged or from a newer wif-tool.
                """
        )

        @OptionGroup var options: GlobalOptions
        @OptionGroup var store: StoreOptions

        struct Output: Encodable {
            var account: String
            var signedOut: Bool
        }

        func run() async throws {
            try await reportingStoreErrors {
                let configuration = try ToolConfiguration.resolve(
                    store: self.store, region: self.options.region, environment: self.options.environment)
                let removed = try configuration.sessionStore(environment: self.options.environment).remove()
                let account = configuration.account ?? "default"
                if self.options.json {
                    try printJSON(Output(account: account, signedOut: removed))
                } else {
                    printOut(removed ? "Signed out (account \(account)).\n" : "Nobody was signed in (account \(account)).\n")
                }
            }
        }
    }
}
