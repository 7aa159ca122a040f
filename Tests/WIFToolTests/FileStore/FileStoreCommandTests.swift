import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
import WIFTestSupport
#endif

/// `login`, `whoami`, `put`, `list`, `get`, `rm` and `logout` on the embedded local stack, run as a user
/// would run them: each test has its own `WIF_HOME`, so its own stack data.
@Suite(.oneToolRunAtATime) struct FileStoreCommandTests {
    @Test func loginStoresAPrivateSessionThatWhoamiShows() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let login = try fixture.run(["login", "--dev", "alice", "--json"])
        #expect(login.status == 0, "\(login.stderr)")
        let signedIn = try StoreFixture.object(login)
        #expect(signedIn["subject"] as? String == "alice")
        #expect(signedIn["provider"] as? String == "google")

        // The session is in the encrypted store, whose key file is made beside it; both private.
        #expect(!FileManager.default.fileExists(atPath: fixture.wifHome.appendingPathComponent("session.json").path))
        #expect(try StoreFixture.mode(fixture.secretsFile) == 0o600)
        #expect(try StoreFixture.mode(fixture.secretsKeyFile) == 0o600)
        #expect(login.stderr.contains("note: the store \(fixture.secretsFile.path) is protected only by file permissions"), "\(login.stderr)")
        let stored = try #require(try fixture.storedSession())
        let credentials = try #require(stored["credentials"] as? [String: Any])
        let secret = try #require(credentials["secretAccessKey"] as? String)
        #expect((stored["token"] as? [String: Any])?["kind"] as? String == "development")
        #expect(try Data(contentsOf: fixture.secretsFile).range(of: Data(secret.utf8)) == nil)
        // No temporary file is left beside the store.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.wifHome.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)

        let whoami = try fixture.run(["whoami", "--json"])
        #expect(whoami.status == 0, "\(whoami.stderr)")
        let identity = try StoreFixture.object(whoami)
        #expect(identity["subject"] as? String == "alice")
        #expect(identity["provider"] as? String == "google")
        #expect(identity["bucket"] as? String == "wif-personal")
        #expect(identity["prefix"] as? String == "google/alice/")
        #expect(identity["role"] as? String == "arn:aws:iam::000000000000:role/personal-store-google")
        #expect(identity["credentialsExpired"] as? Bool == false)
        #expect(identity["credentialsExpiration"] is String)

        let text = try fixture.run(["whoami"])
        #expect(text.status == 0)
        for expected in ["alice", "google/alice/", "s3://wif-personal/google/alice/", "valid until"] {
            #expect(text.stdout.contains(expected), "missing \(expected) in \(text.stdout)")
        }
        #expect(!text.stdout.contains(secret) && !whoami.stdout.contains(secret) && !login.stdout.contains(secret))
    }

    @Test func smallFilesGoUpAndComeBackIdentical() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        let first = try fixture.makeFile("first.txt", size: 1234, seed: 1)
        let second = try fixture.makeFile("second.bin", size: 70_000, seed: 2)
        let empty = try fixture.makeFile("empty", size: 0)

        let put = try fixture.run(["put", first, second, "--json"])
        #expect(put.status == 0, "\(put.stderr)")
        let uploaded = try #require(try StoreFixture.object(put)["uploaded"] as? [[String: Any]])
        #expect(uploaded.compactMap { $0["name"] as? String } == ["first.txt", "second.bin"])
        #expect(uploaded.compactMap { ($0["size"] as? NSNumber)?.intValue } == [1234, 70_000])
        let named = try fixture.run(["put", empty, "--as", "docs/nothing.txt"])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.stdout.contains("s3://wif-personal/google/alice/docs/nothing.txt"))
        let intoFolder = try fixture.run(["put", first, "--as", "docs/"])
        #expect(intoFolder.status == 0, "\(intoFolder.stderr)")

        let list = try fixture.run(["list"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout == "docs/first.txt\ndocs/nothing.txt\nfirst.txt\nsecond.bin\n")
        let filtered = try fixture.run(["list", "docs/", "--long"])
        let lines = filtered.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasSuffix("docs/first.txt") == true)
        #expect(lines.first?.contains("1234  ") == true)
        let listed = try #require(try StoreFixture.object(try fixture.run(["list", "--json"]))["objects"] as? [[String: Any]])
        #expect(listed.count == 4)
        #expect(listed.first { $0["name"] as? String == "second.bin" }?["size"] as? NSNumber == 70_000)

        let copy = fixture.path("copy.bin")
        let get = try fixture.run(["get", "second.bin", "-o", copy])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(try StoreFixture.sha256(copy) == StoreFixture.sha256(second))
        let folder = fixture.work.appendingPathComponent("downloads")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let intoDirectory = try fixture.run(["get", "docs/first.txt", "-o", folder.path, "--json"])
        #expect(intoDirectory.status == 0, "\(intoDirectory.stderr)")
        let downloaded = try #require(try StoreFixture.object(intoDirectory)["downloaded"] as? [[String: Any]])
        #expect(downloaded.first?["path"] as? String == folder.appendingPathComponent("first.txt").path)
        #expect(try StoreFixture.sha256(folder.appendingPathComponent("first.txt").path) == StoreFixture.sha256(first))
        // A folder named with a final '/' is made when missing, and taken away again when nothing came.
        let missingFolder = fixture.work.appendingPathComponent("new/inner")
        let refused = try fixture.run(["get", "docs/absent.txt", "-o", missingFolder.path + "/"])
        #expect(refused.status == 5, "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.work.appendingPathComponent("new").path))
        let intoNewFolder = try fixture.run(["get", "docs/first.txt", "-o", missingFolder.path + "/"])
        #expect(intoNewFolder.status == 0, "\(intoNewFolder.stderr)")
        #expect(try StoreFixture.sha256(missingFolder.appendingPathComponent("first.txt").path) == StoreFixture.sha256(first))
        let intoAFile = try fixture.run(["get", "docs/first.txt", "-o", copy + "/"])
        #expect(intoAFile.status == 6 && intoAFile.stderr.contains("it is a file, not a folder"), "\(intoAFile.stderr)")
        let belowAFile = try fixture.run(["get", "docs/first.txt", "-o", copy + "/sub/"])
        #expect(belowAFile.status == 6 && belowAFile.stderr.contains("\(copy) is not a folder"), "\(belowAFile.stderr)")
        let unexpanded = try fixture.run(["get", "docs/first.txt", "-o", "~/no-such-folder/"])
        #expect(unexpanded.status == 6 && unexpanded.stderr.contains("'~' is not expanded"), "\(unexpanded.stderr)")
        let unexpandedFolder = try fixture.run(["get", "--recursive", "docs/", "-o", "~/no-such-folder"])
        #expect(unexpandedFolder.status == 6 && unexpandedFolder.stderr.contains("'~' is not expanded"), "\(unexpandedFolder.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "~"))
        // '..' is taken as written, as mkdir -p takes it.
        let throughParent = try fixture.run(["get", "docs/first.txt", "-o", fixture.work.appendingPathComponent("up/down/../across").path + "/"])
        #expect(throughParent.status == 0, "\(throughParent.stderr)")
        #expect(FileManager.default.fileExists(atPath: fixture.work.appendingPathComponent("up/across/first.txt").path))
        let nothing = try fixture.run(["get", "docs/nothing.txt", "-o", fixture.path("nothing")])
        #expect(nothing.status == 0, "\(nothing.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.path("nothing"))).isEmpty)

        let rm = try fixture.run(["rm", "first.txt", "docs/nothing.txt", "--json"])
        #expect(rm.status == 0, "\(rm.stderr)")
        #expect(try StoreFixture.object(rm)["deleted"] as? [String] == ["first.txt", "docs/nothing.txt"])
        #expect(try fixture.run(["list"]).stdout == "docs/first.txt\nsecond.bin\n")
    }

    @Test func foldersGoUpAndComeBackRecursively() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "carol"]).status == 0)
        let files = ["album/a.jpg": 3000, "album/2024/b.jpg": 5000, "album/2024/deep/c.txt": 10, "album/.hidden": 1]
        for (offset, (name, size)) in files.sorted(by: { $0.key < $1.key }).enumerated() {
            try fixture.makeFile(name, size: size, seed: UInt64(offset + 10))
        }
        let put = try fixture.run(["put", "--recursive", fixture.path("album")])
        #expect(put.status == 0, "\(put.stderr)")
        #expect(try fixture.run(["list"]).stdout == "album/.hidden\nalbum/2024/b.jpg\nalbum/2024/deep/c.txt\nalbum/a.jpg\n")

        let renamed = try fixture.run(["put", "-r", fixture.path("album/2024"), "--to", "photos/last-year"])
        #expect(renamed.status == 0, "\(renamed.stderr)")
        #expect(try fixture.run(["list", "photos/"]).stdout == "photos/last-year/b.jpg\nphotos/last-year/deep/c.txt\n")

        let out = fixture.work.appendingPathComponent("restored")
        let get = try fixture.run(["get", "--recursive", "album/", "-o", out.path])
        #expect(get.status == 0, "\(get.stderr)")
        for name in files.keys {
            let restored = out.appendingPathComponent(String(name.dropFirst("album/".count))).path
            #expect(try StoreFixture.sha256(restored) == StoreFixture.sha256(fixture.path(name)), "\(name)")
        }
        let none = try fixture.run(["get", "--recursive", "nothing-here/", "-o", out.path])
        #expect(none.status == 5)
        #expect(none.stderr.contains("no files have names starting with 'nothing-here/'"))
    }

    @Test func aBatchMovesManyFilesAtOnceAndReportsThemInNameOrder() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "erin"]).status == 0)
        // Sizes that differ a lot, so that files finish out of order when they move together.
        let names = (0..<40).map { String(format: "batch/file-%02d.bin", $0) }
        for (index, name) in names.enumerated() {
            _ = try fixture.makeFile(name, size: index % 5 == 0 ? 3 * 1024 * 1024 : 100 + index, seed: UInt64(200 + index))
        }
        let put = try fixture.run(["put", "--recursive", fixture.path("batch"), "--jobs", "8", "--json"])
        #expect(put.status == 0, "\(put.stderr)")
        let uploaded = try #require(try StoreFixture.object(put)["uploaded"] as? [[String: Any]])
        #expect(uploaded.compactMap { $0["name"] as? String } == names)

        let out = fixture.work.appendingPathComponent("copy")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let get = try fixture.run(["get", "--recursive", "batch/", "-o", out.path, "--jobs", "8"])
        #expect(get.status == 0, "\(get.stderr)")
        let lines = get.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == names.count)
        for (line, name) in zip(lines, names) {
            #expect(line.hasPrefix("downloaded ") && line.contains("/\(name) -> "), "\(line)")
        }
        for name in names {
            let copy = out.appendingPathComponent(String(name.dropFirst("batch/".count))).path
            #expect(try StoreFixture.sha256(copy) == StoreFixture.sha256(fixture.path(name)), "\(name)")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func largeFileGoesInPartsAndComesBackIdentical() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "dave"]).status == 0)
        let big = try fixture.makeFile("big.bin", size: 64 * 1024 * 1024 + 12_345, seed: 64)
        let put = try fixture.run(["put", big, "--json"])
        #expect(put.status == 0, "\(put.stderr)")
        let uploaded = try #require((try StoreFixture.object(put)["uploaded"] as? [[String: Any]])?.first)
        #expect(((uploaded["parts"] as? NSNumber)?.intValue ?? 0) > 1, "not a multipart upload: \(uploaded)")
        #expect((uploaded["size"] as? NSNumber)?.intValue == 64 * 1024 * 1024 + 12_345)

        let copy = fixture.path("big-copy.bin")
        let get = try fixture.run(["get", "big.bin", "-o", copy])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(try StoreFixture.sha256(copy) == StoreFixture.sha256(big))
        // Nothing is left behind in the destination folder or the staging folder.
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.work.path).sorted() == ["big-copy.bin", "big.bin"])
        let staging = fixture.wifHome.appendingPathComponent("tmp").path
        #expect((try? FileManager.default.contentsOfDirectory(atPath: staging))?.isEmpty ?? true)
    }

    static let refusedNames: [(String, String)] = [
        ("../escape.txt", "must not contain a '.' or '..' segment"),
        ("a/./b", "must not contain a '.' or '..' segment"),
        ("/absolute", "must not start with '/'"),
        ("a//b", "must not contain an empty segment"),
        ("back\\slash", "must not contain a backslash"),
        ("bell\u{07}", "must not contain control characters"),
        (String(repeating: "n", count: 1020), "at most 1024 UTF-8 bytes"),
    ]

    @Test(arguments: Self.refusedNames)
    func refusedNamesExitWithUsageAndTheRule(name: String, rule: String) throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "erin"]).status == 0)
        let file = try fixture.makeFile("file.txt", size: 10)
        for arguments in [["put", file, "--as", name], ["get", name, "-o", fixture.path("out")], ["rm", name]] {
            let result = try fixture.run(arguments)
            #expect(result.status == 64, "\(arguments.first ?? ""): \(result.stderr)")
            #expect(result.stderr.contains(rule), "\(arguments.first ?? ""): \(result.stderr)")
            #expect(result.stderr.hasPrefix("error: "))
        }
        #expect(try fixture.run(["list"]).stdout.isEmpty, "something was uploaded")
        #expect(!FileManager.default.fileExists(atPath: fixture.path("out")))
    }

    @Test func aFolderWithSeveralRefusedNamesNamesEachAndUploadsNothing() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "erin"]).status == 0)
        try fixture.makeFile("album/ok.txt", size: 10)
        try fixture.makeFile("album/bell\u{07}.txt", size: 10)
        try fixture.makeFile("album/tab\u{09}.txt", size: 10)
        let result = try fixture.run(["put", "--recursive", fixture.path("album")])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("2 of 3 files cannot be stored under their names; nothing was uploaded"), "\(result.stderr)")
        #expect(result.stderr.contains("album/bell\\u{7}.txt") && result.stderr.contains("album/tab\\u{9}.txt"), "\(result.stderr)")
        #expect(try fixture.run(["list"]).stdout.isEmpty, "something was uploaded")
    }

    @Test func aNameEndingInASlashIsAFolderForPutAndRefusedElsewhere() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "erin"]).status == 0)
        for arguments in [["get", "folder/", "-o", fixture.path("out")], ["rm", "folder/"]] {
            let result = try fixture.run(arguments)
            #expect(result.status == 64, "\(arguments.first ?? ""): \(result.stderr)")
            #expect(result.stderr.contains("name 'folder/' is refused: it must not end with '/'"), "\(result.stderr)")
        }
    }

    @Test func anotherUsersFilesAreRefusedByTheServer() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        let bob = ["--account", "bob"]
        try #require(try fixture.run(["login", "--dev", "bob"] + bob).status == 0)
        let secret = try fixture.makeFile("secret.txt", size: 100, seed: 7)
        try #require(try fixture.run(["put", secret]).status == 0)

        #expect(try fixture.run(["whoami", "--json"] + bob).stdout.contains("\"prefix\":\"google/bob/\""))
        #expect(try fixture.run(["list"] + bob).stdout.isEmpty)
        let own = try fixture.run(["get", "secret.txt", "-o", fixture.path("x")] + bob)
        #expect(own.status == 5, "\(own.stderr)")
        #expect(own.stderr.contains("no file named 'secret.txt'"))

        let stolen = fixture.path("stolen.txt")
        let read = try fixture.run(["get", "--key", "google/alice/secret.txt", "-o", stolen] + bob)
        #expect(read.status == 4, "\(read.stderr)")
        #expect(read.stderr.contains("AccessDenied"))
        #expect(read.stderr.contains("google/alice/secret.txt"))
        #expect(!FileManager.default.fileExists(atPath: stolen))
        // Alice still reads her own file through the same key.
        let mine = try fixture.run(["get", "--key", "google/alice/secret.txt", "-o", stolen])
        #expect(mine.status == 0, "\(mine.stderr)")
        #expect(try StoreFixture.sha256(stolen) == StoreFixture.sha256(secret))
    }

    @Test(.timeLimit(.minutes(10)))
    func aKilledDownloadLeavesNoPartialFile() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "frank"]).status == 0)
        let big = try fixture.makeFile("big.bin", size: 300 * 1024 * 1024, seed: 3)
        try #require(try fixture.run(["put", big, "--quiet"]).status == 0)
        try FileManager.default.removeItem(atPath: big)

        let destinationFolder = fixture.work.appendingPathComponent("incoming")
        try FileManager.default.createDirectory(at: destinationFolder, withIntermediateDirectories: true)
        let destination = destinationFolder.appendingPathComponent("big.bin").path
        // Kill it once it has written part of the object. Watching races the download, so it polls without
        // yielding (a sleeping task may wake too late while other tests hold the shared pool) and is tried up
        // to three times.
        var killed = false
        for _ in 0..<3 where !killed {
            let process = try fixture.launch(["get", "big.bin", "-o", destination])
            killed = Self.killOnceWriting(process, after: 8 * 1024 * 1024)
            process.waitUntilExit()
            if killed {
                #expect(process.terminationReason == .uncaughtSignal)
            } else {
                try? FileManager.default.removeItem(atPath: destination)
            }
        }
        try #require(killed, "each download finished before it could be killed")

        #expect(!FileManager.default.fileExists(atPath: destination))
        #expect(try FileManager.default.contentsOfDirectory(atPath: destinationFolder.path).isEmpty)

        // The next download removes what the killed one left in the staging folder, and succeeds.
        let again = try fixture.run(["get", "big.bin", "-o", destination, "--quiet"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try FileManager.default.attributesOfItem(atPath: destination)[.size] as? NSNumber == NSNumber(value: 300 * 1024 * 1024))
        let staging = fixture.wifHome.appendingPathComponent("tmp").path
        #expect(try FileManager.default.contentsOfDirectory(atPath: staging).isEmpty)
    }

    /// Sends SIGKILL to `process` as soon as it has written more than `threshold` bytes (or at once where
    /// that cannot be read); false when it ended first.
    static func killOnceWriting(_ process: Process, after threshold: Int64) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, Date() < deadline {
            let written = Self.bytesWritten(by: process.processIdentifier)
            if written < 0 || written > threshold {
                return kill(process.processIdentifier, SIGKILL) == 0
            }
            usleep(1_000)
        }
        return false
    }

    /// Bytes a process has written (Linux `/proc/PID/io`); `-1` where that is unavailable.
    static func bytesWritten(by pid: Int32) -> Int64 {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8) else { return -1 }
        for line in text.split(separator: "\n") where line.hasPrefix("wchar:") {
            return Int64(line.dropFirst("wchar:".count).trimmingCharacters(in: .whitespaces)) ?? -1
        }
        return -1
    }
}
