import ArgumentParser

extension WIFTool {
    /// `wif-tool rules`: check Amplify-style access rules and decide operations on records, offline.
    struct Rules: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rules",
            abstract: "Validate @auth access rules, simulate operations on records, and compile storage rules to IAM, offline.",
            discussion: """
                Rules are Amplify's @auth rules, read from a GraphQL schema (SDL) or from their JSON form \
                ({"semantics"?, "models": {"Todo": {"fields"?, "rules", "fieldRules"?}}}). 'validate' lists \
                every error and warning with its line and column; 'simulate' decides one operation, or a \
                batch of cases from a file. Every decision states its semantics: v2 (deny by default, the \
                default) or v1 (rules protect only the operations they list). 'compile' turns storage rules \
                (Amplify Gen 2's access by path) into the IAM policies of an identity pool's roles and proves \
                that they decide as the rules do.
                """,
            subcommands: [Validate.self, Simulate.self, Compile.self]
        )
    }
}
