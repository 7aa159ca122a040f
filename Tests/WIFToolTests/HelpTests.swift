import Foundation
import Testing

/// The help text is part of the interface: commands and exit codes are documented there.
@Suite struct HelpTests {
    @Test func rootHelpListsCommandsAndExitCodes() throws {
        let home = try ToolRunner.temporaryDirectory()
        let result = try ToolRunner.run(["--help"], environment: ToolRunner.cleanEnvironment(home: home))
        #expect(result.status == 0)
        for text in ["credentials", "request", "Exit codes", "64 usage error"] {
            #expect(result.stdout.contains(text), "missing \(text)")
        }
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
