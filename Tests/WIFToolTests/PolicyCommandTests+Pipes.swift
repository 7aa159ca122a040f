import Foundation
import Testing
import WIFTestSupport

extension PolicyCommandTests {
    // MARK: Files that are pipes or devices

    /// `policy validate <(command)`: the shell passes a pipe, which has no size and is read once.
    @Test func validateReadsAPolicyFromAPipe() throws {
        let pipe = try NamedPipe(at: self.folder.appendingPathComponent("policy.fifo").path, feeding: Array(Self.denyDeletes.utf8))
        let result = try self.run(["policy", "validate", pipe.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(pipe.path): valid identity policy\n")
    }

    /// An empty device is an empty document, not a file the system refused.
    @Test func validateOfAnEmptyDeviceSaysTheDocumentIsEmpty() throws {
        let result = try self.run(["policy", "validate", "/dev/null"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout == "/dev/null:1:1: error: the document is empty\n/dev/null: invalid policy, 1 error, 0 warnings\n")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }

    /// An endless input stops at the limit with a reason.
    @Test func validateRefusesAnEndlessInput() throws {
        let result = try self.run(["policy", "validate", "/dev/zero"])
        #expect(result.status == 6, "\(result.stderr)")
        #expect(result.stderr == "error: cannot read '/dev/zero': it holds more than \(64 << 20) bytes\n")
    }

    /// Standard input (`-`) is read under the same limit as a named file.
    @Test func validateRefusesAnEndlessStandardInput() throws {
        let result = try ToolRunner.run(
            ["policy", "validate", "-"], environment: ToolRunner.cleanEnvironment(home: self.folder), stdinPath: "/dev/zero")
        #expect(result.status == 6, "\(result.stderr)")
        #expect(result.stderr == "error: cannot read standard input: it holds more than \(64 << 20) bytes\n")
    }
}
