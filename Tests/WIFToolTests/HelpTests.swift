import Foundation
import Testing
import WIFFoundation
import WIFTestSupport

/// The help text is part of the interface: commands and exit codes are documented there.
@Suite(.oneToolRunAtATime) struct HelpTests {
    @Test func rootHelpListsCommandsAndExitCodes() throws {
        let home = try ToolRunner.temporaryDirectory()
        let result = try ToolRunner.run(["--help"], environment: ToolRunner.cleanEnvironment(home: home))
        #expect(result.status == 0)
        // The help wraps its lines; the codes are read with the breaks taken out.
        let text = result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for phrase in [
            "credentials", "request", "Exit codes", "2 'policy prove-isolation' could neither prove nor refute",
            "7 network or service failure", "8 the encrypted store is damaged", "64 usage error",
        ] {
            #expect(text.contains(phrase), "missing \(phrase)")
        }
    }

    /// `--version` prints the package's version alone, as scripts that check it expect.
    @Test func versionPrintsThePackageVersion() throws {
        let home = try ToolRunner.temporaryDirectory()
        let result = try ToolRunner.run(["--version"], environment: ToolRunner.cleanEnvironment(home: home))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == SwiftWIFVersion.current + "\n")
        let parts = SwiftWIFVersion.current.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
    }

    /// Every command sets its name rather than have it derived from its type (a start-up cost); a
    /// name set wrong would move the command, so each is reached by the name the README documents.
    @Test(arguments: [
        "demo", "login", "whoami", "put", "list", "get", "rm", "logout", "accounts", "credentials", "request",
        "policy", "policy validate", "policy simulate", "rules", "rules validate", "rules simulate", "local", "local serve", "local token",
        "engine", "engine seaweedfs", "engine seaweedfs setup", "engine ceph-rgw", "engine ceph-rgw setup",
        "engine ceph-rgw remove", "engine ceph-rgw credentials",
    ])
    func everyCommandAnswersToItsDocumentedName(path: String) throws {
        let home = try ToolRunner.temporaryDirectory()
        let words = path.split(separator: " ").map(String.init)
        let result = try ToolRunner.run(words + ["--help"], environment: ToolRunner.cleanEnvironment(home: home))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("USAGE: wif-tool \(path)"), "\(result.stdout.prefix(300))")
    }

    @Test func requestHelpDocumentsDryRunFormat() throws {
        let home = try ToolRunner.temporaryDirectory()
        let result = try ToolRunner.run(["request", "--help"], environment: ToolRunner.cleanEnvironment(home: home))
        #expect(result.status == 0)
        for text in ["--dry-run", "--presign", "--service", "'METHOD URL'"] {
            #expect(result.stdout.contains(text), "missing \(text)")
        }
    }
}
