import ArgumentParser

extension WIFTool {
    /// `wif-tool local`: the local federation stack.
    struct Local: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "local",
            abstract: "Run the local federation stack (OIDC issuer, STS and S3 on one port) and make development tokens.",
            discussion: """
                The stack keeps its keys, objects and uploads in a data directory: --data-dir, else \
                $WIF_HOME/local, else ~/.wif/local. With no --config it serves the default configuration: the \
                bucket wif-personal and, for each provider profile (facebook, amazon, google, cognito, oidc), the \
                role arn:aws:iam::000000000000:role/personal-store-<profile> that keeps each user under \
                <profile>/<user id>/. --config FILE reads a JSON configuration file that changes the defaults \
                (see the README's 'Local stack' section).
                """,
            subcommands: [Serve.self, Token.self]
        )
    }
}
