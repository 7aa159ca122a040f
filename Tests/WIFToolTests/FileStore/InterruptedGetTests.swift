import Foundation
import Testing
import WIFTestSupport

/// An interrupted `get` leaves nothing beside its destination, even when the tool's staging folder is
/// on another file system and the download is written in a hidden folder next to the destination.
@Suite(.oneToolRunAtATime, .enabled(if: FileManager.default.fileExists(atPath: "/dev/shm"), "needs /dev/shm, a file system of its own"))
struct InterruptedGetTests {
    @Test(.timeLimit(.minutes(5)))
    func controlCMidDownloadRemovesTheHiddenFolder() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        try fixture.makeFile("big.bin", size: 192 << 20, seed: 4)
        try #require(try fixture.run(["put", fixture.path("big.bin")]).status == 0)

        // The destination is on tmpfs; the staging folder under WIF_HOME is not.
        let out = "/dev/shm/wif-interrupt-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: out) }
        var device = stat()
        var homeDevice = stat()
        try #require(stat(out, &device) == 0 && stat(fixture.root.path, &homeDevice) == 0)
        try #require(device.st_dev != homeDevice.st_dev, "the test needs two file systems")

        let executable = try #require(ToolRunner.executable)
        let process = Process()
        process.executableURL = executable
        process.arguments = ["get", "big.bin", "-o", out + "/big.bin", "--quiet"]
        process.environment = fixture.env()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Interrupt as soon as the download has its hidden folder.
        var sawFolder = false
        for _ in 0..<20_000 where process.isRunning {
            if ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).contains(where: { $0.hasPrefix(".wif-download-") }) {
                sawFolder = true
                break
            }
            usleep(500)
        }
        try #require(sawFolder, "the download never made its hidden folder")
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGINT, "\(process.terminationStatus)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty)
    }

    @Test(.timeLimit(.minutes(5)))
    func aSignalTheShellIgnoresStaysIgnored() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        try fixture.makeFile("big.bin", size: 96 << 20, seed: 5)
        try #require(try fixture.run(["put", fixture.path("big.bin")]).status == 0)
        let out = "/dev/shm/wif-nohup-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: out) }

        // As `nohup` or a background job of a script starts it: SIGINT and SIGHUP ignored.
        let executable = try #require(ToolRunner.executable)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "trap '' INT HUP; exec \"$0\" get big.bin -o \"$1\" --quiet", executable.path, out + "/big.bin"]
        process.environment = fixture.env()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var sawFolder = false
        for _ in 0..<20_000 where process.isRunning {
            if ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).contains(where: { $0.hasPrefix(".wif-download-") }) {
                sawFolder = true
                break
            }
            usleep(500)
        }
        try #require(sawFolder, "the download never made its hidden folder")
        process.interrupt()
        kill(process.processIdentifier, SIGHUP)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["big.bin"])
        #expect(try StoreFixture.sha256(out + "/big.bin") == StoreFixture.sha256(fixture.path("big.bin")))
    }
}
