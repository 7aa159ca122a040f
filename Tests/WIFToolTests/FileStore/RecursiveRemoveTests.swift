import Foundation
import Testing
import WIFTestSupport

/// `rm --recursive` deletes the files whose names start with a prefix, and only those.
@Suite(.oneToolRunAtATime) struct RecursiveRemoveTests {
    @Test func deletesEveryFileUnderThePrefixAndNothingElse() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        let file = try fixture.makeFile("f.txt", size: 10, seed: 1)
        for name in ["docs/a.txt", "docs/sub/b.txt", "docs2.txt", "other/c.txt"] {
            try #require(try fixture.run(["put", file, "--as", name]).status == 0)
        }

        let removed = try fixture.run(["rm", "-r", "docs/"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout.contains("deleted s3://wif-personal/google/alice/docs/a.txt\n"), "\(removed.stdout)")
        #expect(removed.stdout.contains("deleted s3://wif-personal/google/alice/docs/sub/b.txt\n"), "\(removed.stdout)")
        #expect(try fixture.run(["list"]).stdout == "docs2.txt\nother/c.txt\n")

        let again = try fixture.run(["rm", "--recursive", "docs/"])
        #expect(again.status == 5)
        #expect(again.stderr == "error: no file whose name starts with 'docs/' in your folder\n", "\(again.stderr)")
        #expect(try fixture.run(["rm", "-r", "--force", "docs/"]).status == 0)

        let json = try fixture.run(["rm", "-r", "other/", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try StoreFixture.object(json)
        #expect(object["deleted"] as? [String] == ["other/c.txt"])
        #expect(object["missing"] as? [String] == [])
        #expect(try fixture.run(["list"]).stdout == "docs2.txt\n")
    }

    @Test func anEmptyPrefixIsRefusedBeforeAnythingIsListed() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let result = try fixture.run(["rm", "-r", ""])
        #expect(result.status == 64)
        #expect(result.stderr.contains("rm --recursive needs a non-empty PREFIX"), "\(result.stderr)")
    }
}

/// Names the tool refuses, stored by another client, under the prefix of a recursive delete.
@Suite(.enabled(if: MotoPeer.isAvailable, MotoPeer.skipReason), .oneToolRunAtATime)
struct MotoRecursiveRemoveTests {
    @Test(.timeLimit(.minutes(10)))
    func refusedNamesAreReportedAndLeftAndTheOthersDeleted() async throws {
        try await MotoPeer.withServer(bucket: MotoFileStoreTests.bucket) { server in
            var fixture = try StoreFixture()
            defer { fixture.remove() }
            _ = try MotoFileStoreTests.signIn(&fixture, server: server, subject: "alice")
            for name in ["dir/a.txt", "dir/bell\u{07}.txt", "dir/z.txt", "keep.txt"] {
                try await server.putObject(bucket: MotoFileStoreTests.bucket, key: "alice/" + name, body: Data(name.utf8))
            }
            let removed = try fixture.run(["rm", "-r", "dir/"])
            #expect(removed.status == 64, "\(removed.stderr)")
            #expect(removed.stderr.contains("error: not deleted: dir/bell\\u{7}.txt: "), "\(removed.stderr)")
            #expect(removed.stderr.contains("error: 1 of 3 files were not deleted"), "\(removed.stderr)")
            #expect(!removed.stderr.contains("\u{07}"))
            let listed = try StoreFixture.object(try fixture.run(["list", "--json"]))
            let names = (listed["objects"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
            #expect(names?.sorted() == ["dir/bell\u{07}.txt", "keep.txt"])
        }
    }
}
