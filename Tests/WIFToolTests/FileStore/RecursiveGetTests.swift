import Foundation
import Testing
import WIFTestSupport

/// `get --recursive` writes only inside its output folder: symbolic links there are refused, not
/// followed, and every name of the batch is checked before anything is written.
@Suite(.oneToolRunAtATime) struct RecursiveGetTests {
    @Test func aSymlinkedFolderInTheOutputFolderIsRefusedAndTheRestDownloaded() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        try fixture.makeFile("docs/a.txt", size: 10, seed: 1)
        try fixture.makeFile("docs/sub/b.txt", size: 20, seed: 2)
        try fixture.makeFile("docs/z.txt", size: 30, seed: 3)
        try #require(try fixture.run(["put", "-r", fixture.path("docs")]).status == 0)

        let out = fixture.path("out")
        let outside = fixture.path("outside")
        for folder in [out, outside] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        try FileManager.default.createSymbolicLink(atPath: out + "/sub", withDestinationPath: outside)

        let get = try fixture.run(["get", "--recursive", "docs/", "-o", out])
        #expect(get.status == 6, "\(get.stderr)")
        #expect(get.stderr.contains("error: not downloaded: docs/sub/b.txt: \(out)/sub is a symbolic link"), "\(get.stderr)")
        #expect(get.stderr.contains("error: 1 of 3 files were not downloaded"), "\(get.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
        #expect(try StoreFixture.sha256(out + "/a.txt") == StoreFixture.sha256(fixture.path("docs/a.txt")))
        #expect(try StoreFixture.sha256(out + "/z.txt") == StoreFixture.sha256(fixture.path("docs/z.txt")))
    }

    @Test func aLinkAtAFilesPlaceIsNeitherFollowedNorReplaced() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        try fixture.makeFile("docs/a.txt", size: 10, seed: 1)
        try #require(try fixture.run(["put", "-r", fixture.path("docs")]).status == 0)
        let out = fixture.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let victim = fixture.path("victim.txt")
        try Data("keep".utf8).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.createSymbolicLink(atPath: out + "/a.txt", withDestinationPath: victim)

        let get = try fixture.run(["get", "-r", "docs/", "-o", out, "--json"])
        #expect(get.status == 6, "\(get.stderr)")
        #expect(get.stderr.contains("\(out)/a.txt is a symbolic link"), "\(get.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: out + "/a.txt") == victim)
        let refused = try #require(try StoreFixture.object(get)["refused"] as? [[String: Any]])
        #expect(refused.first?["name"] as? String == "docs/a.txt")
        #expect((refused.first?["reason"] as? String)?.contains("is a symbolic link") == true)
    }
}

extension RecursiveGetTests {
    /// Swift reads `/` and a combining mark after it as one character; the kernel reads a separator. A
    /// name cut or split as characters would lose the mark with the `/` and land above the folder.
    @Test func namesWithACombiningMarkAfterASlashStayInsideTheFolder() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        try fixture.makeFile("a.txt", size: 10, seed: 1)
        try fixture.makeFile("b.txt", size: 20, seed: 2)
        let tricky = "dir/\u{301}../\u{301}escaped.txt"
        try #require(try fixture.run(["put", fixture.path("a.txt"), "--as", "dir/a.txt"]).status == 0)
        let put = try fixture.run(["put", fixture.path("b.txt"), "--as", tricky])
        try #require(put.status == 0, "\(put.stderr)")

        let work = fixture.path("work")
        let out = work + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let get = try fixture.run(["get", "-r", "dir/", "-o", out])
        #expect(get.status == 0, "\(get.stderr)")
        // Nothing beside the output folder; the file is in a folder named `\u{301}..` inside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: work) == ["out"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["a.txt", "\u{301}.."].sorted())
        #expect(try StoreFixture.sha256(out + "/\u{301}../\u{301}escaped.txt") == StoreFixture.sha256(fixture.path("b.txt")))
    }
}

/// Names the tool refuses, stored by another client, in the middle of a recursive download.
@Suite(.enabled(if: MotoPeer.isAvailable, MotoPeer.skipReason), .oneToolRunAtATime)
struct MotoRecursiveGetTests {
    /// An object S3 will not hand over (moto answers 403 for one in GLACIER) fails its download; the
    /// folder it would have gone in is not made.
    @Test(.timeLimit(.minutes(10)))
    func aFailedDownloadLeavesNoFolderBehind() async throws {
        try await MotoPeer.withServer(bucket: MotoFileStoreTests.bucket) { server in
            var fixture = try StoreFixture()
            defer { fixture.remove() }
            _ = try MotoFileStoreTests.signIn(&fixture, server: server, subject: "alice")
            try await server.putObject(
                bucket: MotoFileStoreTests.bucket, key: "alice/dir/sub/cold.txt", body: Data("cold".utf8),
                headers: ["x-amz-storage-class": "GLACIER"])
            let out = fixture.path("out")
            let get = try fixture.run(["get", "-r", "dir/", "-o", out, "--jobs", "1"])
            #expect(get.status != 0, "\(get.stdout)")
            #expect(!FileManager.default.fileExists(atPath: out + "/sub"), "an empty folder was left: \(get.stderr)")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func everyRefusedNameIsReportedAndTheOthersAreDownloaded() async throws {
        try await MotoPeer.withServer(bucket: MotoFileStoreTests.bucket) { server in
            var fixture = try StoreFixture()
            defer { fixture.remove() }
            _ = try MotoFileStoreTests.signIn(&fixture, server: server, subject: "alice")
            let stored = ["dir/a.txt", "dir/bell\u{07}/c.txt", "dir/m.txt", "dir/esc\u{1B}[2J/d.txt", "dir/z.txt"]
            for name in stored {
                try await server.putObject(bucket: MotoFileStoreTests.bucket, key: "alice/" + name, body: Data(name.utf8))
            }
            let out = fixture.path("out")
            let get = try fixture.run(["get", "-r", "dir/", "-o", out])
            #expect(get.status == 64, "\(get.stderr)")
            #expect(get.stderr.contains("error: not downloaded: dir/bell\\u{7}/c.txt: "), "\(get.stderr)")
            #expect(get.stderr.contains("error: not downloaded: dir/esc\\u{1b}[2J/d.txt: "), "\(get.stderr)")
            #expect(get.stderr.contains("must not contain control characters"), "\(get.stderr)")
            #expect(get.stderr.contains("error: 2 of 5 files were not downloaded"), "\(get.stderr)")
            #expect(!get.stderr.contains("\u{1B}") && !get.stderr.contains("\u{07}"))
            // The others came down; no folder was made for a refused name.
            #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["a.txt", "m.txt", "z.txt"])
            for name in ["a.txt", "m.txt", "z.txt"] {
                #expect(try String(contentsOfFile: out + "/" + name, encoding: .utf8) == "dir/" + name)
            }
        }
    }
}
