import ArgumentParser

/// The swift-wif command-line tool.
@main
struct WIFTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wif-tool",
        abstract: "Turn web-identity tokens into AWS credentials and keep files in a private folder.",
        subcommands: []
    )
}
