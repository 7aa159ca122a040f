import ArgumentParser
import Foundation

extension WIFTool {
    /// `wif-tool whoami`: show the stored sign-in.
    struct Whoami: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show who is signed in: provider, subject, role, bucket, folder and credential expiry.",
            discussion: """
                Reads the stored sign-in without contacting any service. Credentials shown as expired are \
                renewed by the next file command while the token is still valid.

                Exit status: 0 signed in; 3 not signed in, or signed in for another endpoint; 6 the session \
                file cannot be read; 64 bad options.
                """
        )

        @OptionGroup var options: GlobalOptions
        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await reportingStoreErrors {
                let configuration = try ToolConfiguration.resolve(
                    store: self.store, region: self.options.region, environment: self.options.environment)
                let session = try StoreRuntime.signedInSession(configuration)
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
            discussion: "Exit status: 0 signed out (also when nobody was signed in); 6 the session file cannot be removed."
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
                let removed = try SessionStore(file: configuration.sessionFile).remove()
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
