import ArgumentParser
import Foundation
import CWIFMemory
import WIFFoundation

/// The swift-wif command-line tool.
///
/// Every command names itself in its configuration. A command without a name is named at run time
/// from its type, by `String(describing:)`, and each of those asks the runtime about protocol
/// conformances it has not seen yet, which scans every conformance record in the binary: over the
/// whole command tree that was about a third of the start-up time of every invocation.
@main
struct WIFTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wif-tool",
        abstract: "Turn web-identity tokens into AWS credentials and keep files in a private folder.",
        discussion: """
            Exit codes: 0 success; 1 the command ran but its answer is a failure (an HTTP error status, \
            a failed policy check, a counterexample to isolation); \(ExitStatus.undecided.rawValue) 'policy \
            prove-isolation' could neither prove nor refute; \(ExitStatus.auth.rawValue) no usable \
            credentials or token; \(ExitStatus.denied.rawValue) access denied; \
            \(ExitStatus.notFound.rawValue) not found; \(ExitStatus.io.rawValue) local file error; \
            \(ExitStatus.network.rawValue) network or service failure; \(ExitStatus.store.rawValue) the \
            encrypted store is damaged or from a newer wif-tool; \(ExitStatus.usage.rawValue) usage error.
            """,
        version: SwiftWIFVersion.current,
        subcommands: [
            Demo.self, Login.self, Whoami.self, Put.self, List.self, Get.self, Remove.self, Logout.self, Accounts.self,
            Credentials.self, Request.self, Policy.self, Rules.self, Local.self, Engine.self,
        ]
    )

    /// Tunes the C allocator for large transfers, then runs the command. With glibc's adaptive
    /// thresholds a 1 GiB download spent about two fifths of its kernel time zero-filling pages the
    /// allocator had just given back; `Benchmarks/run files` measures the transfers.
    static func main() async {
        c_wif_tune_allocator()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let argument = DashedArguments.fileLike(in: arguments) {
            printError(DashedArguments.message(argument))
            Foundation.exit(ExitStatus.usage.rawValue)
        }
        await Self.main(arguments)
    }
}
