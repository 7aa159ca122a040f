import Foundation
import Testing
import WIFTestSupport

/// Names that would drive a terminal (ESC sequences, BEL, CR, NUL, bidirectional overrides) are escaped
/// in every line printed for a person, and exact in `--json`.
@Suite(.oneToolRunAtATime) struct FileStoreOutputTests {
    /// Characters that must never reach the terminal from a name.
    static func isRaw(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            scalar.value < 0x20 && scalar != "\n" || (0x7F...0x9F).contains(scalar.value) || [0x202E, 0x200F, 0x2066].contains(scalar.value)
        }
    }

    @Test func aRightToLeftOverrideInANameIsEscapedEverywhereButJSON() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        let file = try fixture.makeFile("report.txt", size: 10)
        let name = "report\u{202E}fdp.exe"
        let shown = "report\\u{202e}fdp.exe"

        let put = try fixture.run(["put", file, "--as", name])
        #expect(put.status == 0, "\(put.stderr)")
        #expect(put.stdout.contains("s3://wif-personal/google/alice/\(shown) (10 B)"), "\(put.stdout)")
        #expect(!Self.isRaw(put.stdout))

        let list = try fixture.run(["list"])
        #expect(list.stdout == shown + "\n")
        let long = try fixture.run(["list", "--long"])
        #expect(long.stdout.hasSuffix("  \(shown)\n"), "\(long.stdout)")
        #expect(!Self.isRaw(long.stdout))
        let json = try #require(try StoreFixture.object(try fixture.run(["list", "--json"]))["objects"] as? [[String: Any]])
        #expect(json.first?["name"] as? String == name)

        let get = try fixture.run(["get", name, "-o", fixture.path("copy.txt")])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdout.hasPrefix("downloaded s3://wif-personal/google/alice/\(shown) -> "), "\(get.stdout)")
        #expect(!Self.isRaw(get.stdout))
        let recursive = try fixture.run(["get", "-r", "report", "-o", fixture.path("all")])
        #expect(recursive.status == 0, "\(recursive.stderr)")
        #expect(recursive.stdout.contains("/all/\(shown) ("), "\(recursive.stdout)")
        #expect(!Self.isRaw(recursive.stdout))
        let downloaded = try #require(
            try StoreFixture.object(try fixture.run(["get", name, "-o", fixture.path("copy2.txt"), "--json"]))["downloaded"] as? [[String: Any]])
        #expect(downloaded.first?["name"] as? String == name)

        let missing = try fixture.run(["get", "gone\u{202E}txt", "-o", fixture.path("gone")])
        #expect(missing.status == 5)
        #expect(missing.stderr.contains("no file named 'gone\\u{202e}txt' in your folder"), "\(missing.stderr)")
        #expect(!Self.isRaw(missing.stderr))

        let rm = try fixture.run(["rm", name, "gone\u{202E}2"])
        #expect(rm.status == 5)
        #expect(rm.stdout == "deleted s3://wif-personal/google/alice/\(shown)\n")
        #expect(rm.stderr.contains("no file named 'gone\\u{202e}2' in your folder"), "\(rm.stderr)")
        #expect(!Self.isRaw(rm.stderr))
    }

    /// `login --quiet` signs in and prints nothing; `--json` still prints the summary, since it was asked for.
    @Test func aQuietSignInPrintsNothing() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let login = try fixture.run(["login", "--dev", "quinn", "-q"])
        try #require(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.isEmpty, "\(login.stdout)")
        let whoami = try fixture.run(["whoami"])
        #expect(whoami.stdout.contains("quinn"), "\(whoami.stdout)")
        let json = try fixture.run(["login", "--dev", "quinn", "--quiet", "--json"])
        #expect(try StoreFixture.object(json)["subject"] as? String == "quinn")
    }

    /// A file name that starts with `-` is refused with the ways to give it, instead of being read as
    /// options: `-dash.txt` held `-h`, so it printed the help and exited 0. After `--` it is a file.
    @Test func aFileNameThatStartsWithADashIsRefusedWithTheWaysToGiveIt() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "dana", "-q"]).status == 0)
        let file = try fixture.makeFile("-dash.txt", size: 3, seed: 1)
        for arguments in [["put", "-dash.txt"], ["put", "-file.txt"], ["rm", "-old.txt"]] {
            let refused = try fixture.run(arguments)
            #expect(refused.status == 64, "\(arguments): \(refused.stdout) \(refused.stderr)")
            #expect(refused.stdout.isEmpty)
            #expect(refused.stderr.contains("'\(arguments[1])' starts with '-', so it is read as options"), "\(refused.stderr)")
            #expect(refused.stderr.contains("after '--' (a local file also as ./\(arguments[1]))"), "\(refused.stderr)")
        }
        // After `--` such a name is a file (here one that is not there, so reading it fails); options and
        // help are as before.
        let missing = try fixture.run(["put", "--", "-missing.txt"])
        #expect(missing.status == 6, "\(missing.stderr)")
        #expect(missing.stderr.contains("-missing.txt") && !missing.stderr.contains("read as options"), "\(missing.stderr)")
        let put = try fixture.run(["put", "-q", "--as", "kept.txt", "--", file])
        #expect(put.status == 0, "\(put.stderr)")
        #expect(try fixture.run(["list"]).stdout == "kept.txt\n")
        #expect(try fixture.run(["put", "-h"]).stdout.contains("USAGE: wif-tool put"))
        // A short option with its value joined by '=' is not a file name.
        let joined = fixture.path("joined.txt")
        let get = try fixture.run(["get", "kept.txt", "-o=\(joined)"])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(FileManager.default.fileExists(atPath: joined))
    }

    @Test func aSubjectWithABidiOverrideIsEscapedByWhoami() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let login = try fixture.run(["login", "--dev", "eve\u{202E}nimda"])
        try #require(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.hasPrefix("Signed in as eve\\u{202e}nimda (google).\n"), "\(login.stdout)")
        #expect(!Self.isRaw(login.stdout))
        let whoami = try fixture.run(["whoami"])
        let subject = whoami.stdout.split(separator: "\n").first { $0.hasPrefix("subject ") }
        #expect(subject?.hasSuffix("  eve\\u{202e}nimda") == true, "\(whoami.stdout)")
        #expect(!Self.isRaw(whoami.stdout))
        #expect(try StoreFixture.object(try fixture.run(["whoami", "--json"]))["subject"] as? String == "eve\u{202E}nimda")
    }
}

/// The same against moto, where objects with control characters in their names can be stored (the
/// tool refuses to write such names, but a bucket may hold them).
@Suite(.enabled(if: MotoPeer.isAvailable, MotoPeer.skipReason), .oneToolRunAtATime)
struct MotoOutputTests {
    @Test(.timeLimit(.minutes(10)))
    func controlCharactersInListedNamesAreEscaped() async throws {
        try await MotoPeer.withServer(bucket: MotoFileStoreTests.bucket) { server in
            var fixture = try StoreFixture()
            defer { fixture.remove() }
            _ = try MotoFileStoreTests.signIn(&fixture, server: server, subject: "alice")
            let names = [
                "colour\u{1B}[31mred\u{1B}[0m.txt", "title\u{1B}]0;owned\u{07}.txt", "return\rhidden.txt", "nul\u{0}byte.txt",
                "csi\u{9B}2J.txt", "rtl\u{202E}fdp.exe",
            ]
            for name in names {
                try await server.putObject(bucket: MotoFileStoreTests.bucket, key: "alice/" + name, body: Data("x".utf8))
            }
            let list = try fixture.run(["list"])
            #expect(list.status == 0, "\(list.stderr)")
            #expect(!FileStoreOutputTests.isRaw(list.stdout), "\(list.stdout.debugDescription)")
            for shown in ["colour\\u{1b}[31mred\\u{1b}[0m.txt", "title\\u{1b}]0;owned\\u{7}.txt", "return\\u{d}hidden.txt", "nul\\u{0}byte.txt", "csi\\u{9b}2J.txt", "rtl\\u{202e}fdp.exe"] {
                #expect(list.stdout.contains(shown + "\n"), "\(shown) in \(list.stdout.debugDescription)")
            }
            let long = try fixture.run(["list", "--long"])
            #expect(!FileStoreOutputTests.isRaw(long.stdout), "\(long.stdout.debugDescription)")
            #expect(long.stdout.split(separator: "\n").count == names.count)
            let json = try #require(try StoreFixture.object(try fixture.run(["list", "--json"]))["objects"] as? [[String: Any]])
            #expect(Set(json.compactMap { $0["name"] as? String }) == Set(names))
        }
    }
}
