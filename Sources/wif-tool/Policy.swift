import ArgumentParser

extension WIFTool {
    /// `wif-tool policy`: check IAM policies and decide requests against them, offline.
    struct Policy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "policy",
            abstract: "Validate IAM policies and simulate requests against them, offline.",
            discussion: """
                Policies are read from JSON files; nothing is sent to AWS. 'validate' lists every error and \
                warning with its JSON path; 'simulate' decides one request, or a batch of cases from a file; 'prove-isolation' proves that \
                per-user folder policies keep every user out of every other user's folder, for all ids.
                """,
            subcommands: [Validate.self, Simulate.self, ProveIsolation.self]
        )
    }
}
