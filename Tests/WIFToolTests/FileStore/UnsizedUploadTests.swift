import Foundation
import Testing
import WIFTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files whose size says nothing of their content are read to their end: a FIFO (`put <(command)`),
/// and on Linux the files of /proc, which say they hold nothing.
@Suite(.oneToolRunAtATime) struct UnsizedUploadTests {
    @Test func aFIFOIsUploadedToItsEnd() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        let fifo = fixture.path("feed")
        try #require(mkfifo(fifo, 0o600) == 0)
        let text = (0..<3_000).map { "entry \($0)\n" }.joined()
        let writer = Thread {
            if let handle = FileHandle(forWritingAtPath: fifo) {
                handle.write(Data(text.utf8))
                try? handle.close()
            }
        }
        writer.start()
        let put = try fixture.run(["put", fifo, "--as", "feed.txt"])
        #expect(put.status == 0, "\(put.stderr)")
        #expect(put.stdout.contains("(\(text.utf8.count) B)") || put.stdout.contains("KiB"), "\(put.stdout)")
        let get = try fixture.run(["get", "feed.txt", "-o", "-"])
        #expect(get.stdout == text)
    }

    #if os(Linux)
    @Test func aProcFileIsUploadedWithItsContent() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        let expected = try String(contentsOfFile: "/proc/version", encoding: .utf8)
        try #require(!expected.isEmpty)
        let put = try fixture.run(["put", "/proc/version", "--as", "version.txt"])
        #expect(put.status == 0, "\(put.stderr)")
        #expect(!put.stdout.contains("(0 B)"), "\(put.stdout)")
        let get = try fixture.run(["get", "version.txt", "-o", "-"])
        #expect(get.stdout == expected)
    }
    #endif
}
