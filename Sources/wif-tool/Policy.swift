import ArgumentParser

extension WIFTool {
    /// `wif-tool policy`: check IAM policies and decide requests against them, offline.
    struct Policy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "policy",
            abstract: "Validate IAM policies and simulate requests against them, offline.",
            discussion: """
                Policies are read from JSON files; nothing is sent to AWS. 'validate' lists every error and \
                warning with its JSON path; 'simulate' decides one request, or a batch of cases from a file.
                """,
            subcommands: [Validate.self, Simulate.self]
        )
    }
}
