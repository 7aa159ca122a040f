import Foundation
import Testing
import WIFTestSupport

/// An interrupted `get` leaves nothing beside its destination, even when the tool's staging folder is
/// on another file system and the download is written in a hidden folder next to the destination.
@Suite(.oneToolRunAtATime, .enabled(if: FileManager.default.fileExists(atPath: "/dev/shm"), "needs /dev/shm, a file system of its own"))
struct InterruptedGetTests {
    /// A signed-in fixture holding `big.bin` of `size` bytes, and a destination folder on tmpfs, where
    /// the staging folder under WIF_HOME is not.
    struct Place {
        let fixture: StoreFixture
        let out: String

        init(size: Int, seed: UInt64) throws {
            self.fixture = try StoreFixture()
            try #require(try self.fixture.run(["login", "--dev", "alice"]).status == 0)
            try self.fixture.makeFile("big.bin", size: size, seed: seed)
            try #require(try self.fixture.run(["put", self.fixture.path("big.bin")]).status == 0)
            self.out = "/dev/shm/wif-interrupt-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: self.out, withIntermediateDirectories: true)
            var device = stat()
            var homeDevice = stat()
            try #require(stat(self.out, &device) == 0 && stat(self.fixture.root.path, &homeDevice) == 0)
            try #require(device.st_dev != homeDevice.st_dev, "the test needs two file systems")
        }

        func remove() {
            self.fixture.remove()
            try? FileManager.default.removeItem(atPath: self.out)
        }

        /// Starts `get big.bin` into the tmpfs folder, through `prefix` (a program and its arguments
        /// that run the tool, such as a shell that ignores signals first) when given, and returns once
        /// the download has made its hidden folder.
        func startDownload(through prefix: [String] = []) throws -> Process {
            let executable = try #require(ToolRunner.executable)
            let arguments = ["get", "big.bin", "-o", self.out + "/big.bin", "--quiet"]
            let process = Process()
            process.executableURL = URL(fileURLWithPath: prefix.first ?? executable.path)
            process.arguments = prefix.isEmpty ? arguments : Array(prefix.dropFirst()) + [executable.path] + arguments
            process.environment = self.fixture.env()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Bounded by time, not by polls: a busy run can take long to start the tool.
            let deadline = ContinuousClock.now + .seconds(120)
            while process.isRunning, ContinuousClock.now < deadline {
                if ((try? FileManager.default.contentsOfDirectory(atPath: self.out)) ?? []).contains(where: { $0.hasPrefix(".wif-download-") }) {
                    return process
                }
                usleep(500)
            }
            process.terminate()
            throw ToolError("the download never made its hidden folder")
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func controlCMidDownloadRemovesTheHiddenFolder() throws {
        let place = try Place(size: 192 << 20, seed: 4)
        defer { place.remove() }
        let process = try place.startDownload()
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGINT, "\(process.terminationStatus)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: place.out).isEmpty)
    }

    @Test(.timeLimit(.minutes(5)))
    func aSignalTheShellIgnoresStaysIgnored() throws {
        let place = try Place(size: 96 << 20, seed: 5)
        defer { place.remove() }
        // As `nohup` or a background job of a script starts it: SIGINT and SIGHUP ignored.
        let process = try place.startDownload(through: ["/bin/sh", "-c", "trap '' INT HUP; exec \"$@\"", "sh"])
        process.interrupt()
        kill(process.processIdentifier, SIGHUP)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: place.out) == ["big.bin"])
        #expect(try StoreFixture.sha256(place.out + "/big.bin") == StoreFixture.sha256(place.fixture.path("big.bin")))
    }
}
