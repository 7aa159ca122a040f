import Foundation
import Testing
import WIFTestSupport

/// `get NAME -o -` writes the file to standard output, for a pipe, and nothing else there.
@Suite(.oneToolRunAtATime) struct StandardOutputGetTests {
    @Test func aFileComesOutOnStandardOutputExactly() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        // Several hundred kilobytes, so the body arrives in many buffers.
        let text = (0..<20_000).map { "line \($0) of the report\n" }.joined()
        try Data(text.utf8).write(to: URL(fileURLWithPath: fixture.path("report.txt")))
        try #require(try fixture.run(["put", fixture.path("report.txt"), "--as", "docs/report.txt"]).status == 0)

        let get = try fixture.run(["get", "docs/report.txt", "-o", "-"])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdout == text)
        #expect(!get.stderr.contains("downloaded"), "\(get.stderr)")
        // No file named '-' and no temporary file was left in the working folders.
        #expect(!FileManager.default.fileExists(atPath: fixture.path("-")))
        #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/-"))
    }

    @Test func aReaderThatStopsEndsTheCommandQuietlyAsCatEnds() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        try fixture.makeFile("big.bin", size: 8 << 20, seed: 2)
        try #require(try fixture.run(["put", fixture.path("big.bin")]).status == 0)
        let process = Process()
        process.executableURL = try #require(ToolRunner.executable)
        process.arguments = ["get", "big.bin", "-o", "-", "--quiet"]
        process.environment = fixture.env()
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read a little, then close the pipe as `| head -c 10` would.
        let first = out.fileHandleForReading.readData(ofLength: 10)
        try out.fileHandleForReading.close()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(first.count == 10)
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGPIPE)
        #expect(stderr.isEmpty, "\(String(decoding: stderr, as: UTF8.self))")
    }

    @Test func aMissingFileWritesNothingToStandardOutput() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        let get = try fixture.run(["get", "nothing-here.txt", "-o", "-"])
        #expect(get.status == 5, "\(get.stderr)")
        #expect(get.stdout.isEmpty)
        #expect(get.stderr.contains("no file named 'nothing-here.txt' in your folder"), "\(get.stderr)")
    }

    @Test(arguments: [
        (["-r", "docs/", "-o", "-"], "cannot be combined with --recursive"),
        (["docs/a.txt", "-o", "-", "--json"], "where --json would go"),
    ])
    func standardOutputRefusesWhatCannotGoThere(arguments: [String], message: String) throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let get = try fixture.run(["get"] + arguments)
        #expect(get.status == 64, "\(get.stderr)")
        #expect(get.stderr.contains(message), "\(get.stderr)")
        #expect(get.stdout.isEmpty)
    }
}
