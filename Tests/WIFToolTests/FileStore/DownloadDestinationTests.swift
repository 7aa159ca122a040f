import Foundation
import Testing
import WIFTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a download does to what is already at its destination: a FIFO or a device is written into,
/// never replaced by a regular file, and a replaced file keeps its permissions.
@Suite(.oneToolRunAtATime) struct DownloadDestinationTests {
    static func mode(_ path: String) -> (type: mode_t, permissions: mode_t)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (info.st_mode & S_IFMT, info.st_mode & 0o777)
    }

    @Test func aFIFOIsWrittenIntoNotReplaced() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        let text = (0..<5_000).map { "row \($0)\n" }.joined()
        try Data(text.utf8).write(to: URL(fileURLWithPath: fixture.path("rows.txt")))
        try #require(try fixture.run(["put", fixture.path("rows.txt")]).status == 0)
        let fifo = fixture.path("pipe")
        try #require(mkfifo(fifo, 0o600) == 0)
        // A reader on the FIFO, as `get rows.txt -o pipe & cat pipe` has.
        let received = ReceivedBytes()
        let reader = Thread {
            if let handle = FileHandle(forReadingAtPath: fifo) {
                received.set(handle.readDataToEndOfFile())
                try? handle.close()
            }
            received.finish()
        }
        reader.start()
        let get = try fixture.run(["get", "rows.txt", "-o", fifo])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdout.contains("downloaded") && get.stdout.contains(fifo), "\(get.stdout)")
        #expect(received.wait(seconds: 60) == Data(text.utf8))
        #expect(Self.mode(fifo)?.type == S_IFIFO)
    }

    @Test func aReplacedFileKeepsItsPermissions() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        try Data("new secret\n".utf8).write(to: URL(fileURLWithPath: fixture.path("upload.txt")))
        try #require(try fixture.run(["put", fixture.path("upload.txt"), "--as", "notes/secret.txt"]).status == 0)
        let destination = fixture.path("secret.txt")
        try Data("old secret\n".utf8).write(to: URL(fileURLWithPath: destination))
        try #require(chmod(destination, 0o600) == 0)
        let get = try fixture.run(["get", "notes/secret.txt", "-o", destination])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(try String(contentsOfFile: destination, encoding: .utf8) == "new secret\n")
        #expect(Self.mode(destination)?.permissions == 0o600)

        // The same in a recursive download, where a FIFO at a file's place is refused and left as it is.
        let folder = fixture.path("out")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("older\n".utf8).write(to: URL(fileURLWithPath: folder + "/secret.txt"))
        try #require(chmod(folder + "/secret.txt", 0o640) == 0)
        try #require(try fixture.run(["put", fixture.path("upload.txt"), "--as", "notes/queue"]).status == 0)
        try #require(mkfifo(folder + "/queue", 0o600) == 0)
        let batch = try fixture.run(["get", "--recursive", "notes/", "-o", folder])
        #expect(batch.status != 0)
        #expect(batch.stderr.contains("out/queue is not a regular file; it is not replaced"), "\(batch.stderr)")
        #expect(try String(contentsOfFile: folder + "/secret.txt", encoding: .utf8) == "new secret\n")
        #expect(Self.mode(folder + "/secret.txt")?.permissions == 0o640)
        #expect(Self.mode(folder + "/queue")?.type == S_IFIFO)
    }
}

/// Bytes a reader thread received, and when it is done.
final class ReceivedBytes: @unchecked Sendable {
    private let lock = NSCondition()
    private var data = Data()
    private var done = false

    func set(_ data: Data) {
        self.lock.withLock { self.data = data }
    }

    func finish() {
        self.lock.withLock {
            self.done = true
            self.lock.broadcast()
        }
    }

    func wait(seconds: Double) -> Data? {
        self.lock.withLock {
            let deadline = Date(timeIntervalSinceNow: seconds)
            while !self.done { guard self.lock.wait(until: deadline) else { return nil } }
            return self.data
        }
    }
}
