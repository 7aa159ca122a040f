import Foundation
import Testing
import WIFTestSupport

/// `samples/personal-file-store.sh` runs through with the built tool.
@Suite(.oneToolRunAtATime) struct SampleScriptTests {
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("samples/personal-file-store.sh")

    @Test(.timeLimit(.minutes(10)))
    func personalFileStoreSampleBehavesAsItSays() throws {
        let executable = try #require(ToolRunner.executable)
        let bash = try #require(MotoPeer.onPath("bash"))
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let process = Process()
        process.executableURL = bash
        process.arguments = [Self.script.path]
        process.environment = ToolRunner.cleanEnvironment(home: home, extra: ["WIF_TOOL": executable.path, "TMPDIR": home.path])
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output)")
        #expect(output.contains("behaved as expected"))
        #expect(!output.contains("UNEXPECTED"), "\(output)")
        #expect(output.contains("AccessDenied"))
        // The sample cleans up after itself.
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).filter { $0.hasPrefix("wif-personal-store") }.isEmpty)
    }
}
