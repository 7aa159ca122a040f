import Foundation
import Testing
import WIFTestSupport

/// Control-C during a multipart upload cancels it, so the upload is aborted on the server instead of
/// leaving its parts there, and the process still ends by the signal.
@Suite(.oneToolRunAtATime) struct InterruptedPutTests {
    /// The multipart uploads the embedded stack holds open (folders in its `uploads` folder), each with
    /// the names of the files in it.
    static func openUploads(in home: URL) -> [String: [String]] {
        let uploads = home.appendingPathComponent("local/uploads").path
        var found: [String: [String]] = [:]
        for upload in (try? FileManager.default.contentsOfDirectory(atPath: uploads)) ?? [] where !upload.hasPrefix(".") {
            found[upload] = (try? FileManager.default.contentsOfDirectory(atPath: uploads + "/" + upload)) ?? []
        }
        return found
    }

    @Test(.timeLimit(.minutes(5)))
    func controlCDuringAMultipartUploadAbortsIt() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        try fixture.makeFile("big.bin", size: 256 << 20, seed: 6)

        let process = Process()
        process.executableURL = try #require(ToolRunner.executable)
        process.arguments = ["put", fixture.path("big.bin"), "--quiet"]
        process.environment = fixture.env()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var started = false
        // Bounded by time, not by polls: a busy run can take long to start the tool.
        let deadline = ContinuousClock.now + .seconds(120)
        while process.isRunning, ContinuousClock.now < deadline {
            // Interrupt once a part has arrived, mid-upload.
            if Self.openUploads(in: fixture.wifHome).values.contains(where: { $0.count >= 2 }) {
                started = true
                break
            }
            usleep(500)
        }
        try #require(started, "the multipart upload never started")
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGINT, "\(process.terminationStatus)")
        #expect(Self.openUploads(in: fixture.wifHome).isEmpty)
        let list = try fixture.run(["list"])
        #expect(list.status == 0 && list.stdout.isEmpty, "\(list.stdout) \(list.stderr)")
    }
}
