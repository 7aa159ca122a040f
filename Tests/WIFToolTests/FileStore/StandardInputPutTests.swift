import Foundation
import Testing
import WIFTestSupport

/// `put - --as NAME` stores standard input, read to its end, on the embedded local stack: nothing, a few
/// bytes and more than one part (32 MiB, the tool's part size) come back byte for byte.
@Suite(.oneToolRunAtATime) struct StandardInputPutTests {
    @Test(.timeLimit(.minutes(10)), arguments: [(0, 1), (11, 1), (32 * 1024 * 1024 + 1_000, 2)])
    func standardInputGoesUpAndComesBackIdentical(size: Int, parts: Int) throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        let source = try fixture.makeFile("source.bin", size: size, seed: UInt64(size + 1))
        let input = try Data(contentsOf: URL(fileURLWithPath: source))

        let put = try fixture.run(["put", "-", "--as", "piped/stream.bin", "--json"], stdin: input)
        #expect(put.status == 0, "\(put.stderr)")
        let uploaded = try #require((try StoreFixture.object(put)["uploaded"] as? [[String: Any]])?.first)
        #expect(uploaded["name"] as? String == "piped/stream.bin")
        #expect(uploaded["file"] as? String == "-")
        #expect((uploaded["size"] as? NSNumber)?.intValue == size)
        #expect((uploaded["parts"] as? NSNumber)?.intValue == parts)

        let copy = fixture.path("copy.bin")
        let get = try fixture.run(["get", "piped/stream.bin", "-o", copy])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(try StoreFixture.sha256(copy) == StoreFixture.sha256(source))
    }

    @Test func theUploadIsAnnouncedAsStandardInput() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        let put = try fixture.run(["put", "-", "--as", "notes.txt"], stdin: Data("hello\n".utf8))
        #expect(put.status == 0, "\(put.stderr)")
        #expect(put.stdout.hasPrefix("uploaded standard input -> "), "\(put.stdout)")
        #expect(put.stdout.hasSuffix("notes.txt (6 B)\n"), "\(put.stdout)")
    }
}
