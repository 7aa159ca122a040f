import Foundation
import Testing
import WIFFileStore

/// The output folder of a recursive download: paths checked before anything is written, folders made
/// and opened without following links, files renamed into the opened folder.
@Suite struct DownloadFolderTests {
    /// A temporary folder with `out/` (the download folder) and `outside/` (where nothing may be written).
    struct Place {
        let root: URL
        var out: String { self.root.appendingPathComponent("out").path }
        var outside: String { self.root.appendingPathComponent("outside").path }

        init() throws {
            self.root = FileManager.default.temporaryDirectory.appendingPathComponent("wif-download-\(UUID().uuidString)")
            try FileManager.default.createDirectory(atPath: self.root.appendingPathComponent("out").path, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: self.root.appendingPathComponent("outside").path, withIntermediateDirectories: true)
        }

        func remove() { try? FileManager.default.removeItem(at: self.root) }

        func link(_ relative: String, to target: String) throws {
            try FileManager.default.createSymbolicLink(atPath: self.out + "/" + relative, withDestinationPath: target)
        }

        func staged(_ text: String) throws -> String {
            let path = self.root.appendingPathComponent("staged-\(UUID().uuidString)").path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }

        func contents(of path: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
        }
    }

    @Test func aFileGoesIntoFoldersMadeBelowTheFolder() throws {
        let place = try Place()
        defer { place.remove() }
        let folder = try DownloadFolder(path: place.out)
        #expect(folder.refusal(of: "a/b/c.txt") == nil)
        let destination = try folder.destination(for: "a/b/c.txt")
        #expect(destination.path == place.out + "/a/b/c.txt")
        try destination.moveIn(from: try place.staged("hello"))
        #expect(try String(contentsOfFile: place.out + "/a/b/c.txt", encoding: .utf8) == "hello")
    }

    @Test func aLinkedFolderIsRefusedBeforeAndWhileWriting() throws {
        let place = try Place()
        defer { place.remove() }
        try place.link("sub", to: place.outside)
        let folder = try DownloadFolder(path: place.out)
        let refusal = try #require(folder.refusal(of: "sub/deep/file.txt"))
        #expect(refusal == "\(place.out)/sub is a symbolic link; links inside the download folder are not followed")
        #expect(throws: FileStoreError.self) { try folder.destination(for: "sub/deep/file.txt") }
        do {
            _ = try folder.destination(for: "sub/deep/file.txt")
        } catch {
            #expect(error.code == .fileError)
            #expect(error.message.contains("\(place.out)/sub is a symbolic link"), "\(error.message)")
        }
        // Nothing was made through the link.
        #expect(place.contents(of: place.outside).isEmpty)
    }

    @Test func aLinkDeeperDownIsRefusedToo() throws {
        let place = try Place()
        defer { place.remove() }
        try FileManager.default.createDirectory(atPath: place.out + "/a", withIntermediateDirectories: true)
        try place.link("a/b", to: place.outside)
        let folder = try DownloadFolder(path: place.out)
        #expect(folder.refusal(of: "a/b/c.txt")?.hasPrefix("\(place.out)/a/b is a symbolic link") == true)
        #expect(throws: FileStoreError.self) { try folder.destination(for: "a/b/c.txt") }
        #expect(place.contents(of: place.outside).isEmpty)
    }

    @Test func aLinkPlantedAtTheFilesPlaceIsNotFollowedNorReplaced() throws {
        let place = try Place()
        defer { place.remove() }
        let victim = place.outside + "/victim.txt"
        try Data("keep".utf8).write(to: URL(fileURLWithPath: victim))
        let folder = try DownloadFolder(path: place.out)
        // Planted after the check, before the move: the move refuses it.
        #expect(folder.refusal(of: "file.txt") == nil)
        let destination = try folder.destination(for: "file.txt")
        try place.link("file.txt", to: victim)
        #expect(folder.refusal(of: "file.txt")?.hasSuffix("file.txt is a symbolic link; links inside the download folder are not followed") == true)
        let staged = try place.staged("attack")
        #expect(throws: FileStoreError.self) { try destination.moveIn(from: staged) }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: place.out + "/file.txt") == victim)
        #expect(!FileManager.default.fileExists(atPath: staged))
    }

    @Test func aFolderSwappedForALinkAfterTheCheckIsNotFollowed() throws {
        let place = try Place()
        defer { place.remove() }
        let folder = try DownloadFolder(path: place.out)
        // The folder is made and opened; then it is replaced by a link: the file still lands in the
        // folder that was opened (now outside the tree), never through the link.
        let destination = try folder.destination(for: "sub/file.txt")
        try FileManager.default.moveItem(atPath: place.out + "/sub", toPath: place.root.appendingPathComponent("moved").path)
        try place.link("sub", to: place.outside)
        try destination.moveIn(from: try place.staged("data"))
        #expect(place.contents(of: place.outside).isEmpty)
        #expect(FileManager.default.fileExists(atPath: place.root.appendingPathComponent("moved/file.txt").path))
    }

    @Test(
        "paths that are not plain relative paths are refused",
        arguments: [
            ("", "the path is empty"), ("/etc/passwd", "the path is absolute"), ("a//b", "the path has an empty segment"),
            ("a/../../b", "the path has a '..' segment"), ("./a", "the path has a '.' segment"), ("a\u{0}b", "the path contains a NUL character"),
            // A `/` followed by a combining mark is one character to Swift but still a separator to the
            // kernel: these are `..` and an absolute path on disk.
            ("../\u{301}x", "the path has a '..' segment"), ("/\u{301}y", "the path is absolute"),
            ("a/..\u{301}/../b", "the path has a '..' segment"),
        ])
    func oddPathsAreRefused(path: String, reason: String) throws {
        let place = try Place()
        defer { place.remove() }
        let folder = try DownloadFolder(path: place.out)
        #expect(folder.refusal(of: path) == reason)
        #expect(throws: FileStoreError.self) { try folder.destination(for: path) }
        #expect(place.contents(of: place.out).isEmpty)
    }

    @Test func aCombiningMarkAfterASlashStillSeparatesFolders() throws {
        let place = try Place()
        defer { place.remove() }
        let folder = try DownloadFolder(path: place.out)
        // `\u{301}x` below the folder `a`, not one file named `a/\u{301}x`.
        let destination = try folder.destination(for: "a/\u{301}x")
        try destination.moveIn(from: try place.staged("mark"))
        #expect(place.contents(of: place.out) == ["a"])
        #expect(try String(contentsOfFile: place.out + "/a/\u{301}x", encoding: .utf8) == "mark")
        #expect(place.contents(of: place.outside).isEmpty)
    }

    @Test func namesThatDifferOnlyInSpellingAreDifferentFiles() throws {
        let place = try Place()
        defer { place.remove() }
        let folder = try DownloadFolder(path: place.out)
        // `é` precomposed and `e` with a combining accent are equal Swift strings but two file names.
        let reasons = folder.refusals(of: ["\u{e9}", "e\u{301}/b.txt"])
        #expect(reasons == [nil, nil])
    }

    @Test func aFileWhoseNameIsAnotherFilesFolderIsRefused() throws {
        let place = try Place()
        defer { place.remove() }
        try FileManager.default.createDirectory(atPath: place.out + "/taken", withIntermediateDirectories: true)
        let folder = try DownloadFolder(path: place.out)
        let reasons = folder.refusals(of: ["a", "a/b.txt", "c.txt", "taken"])
        #expect(reasons[0] == "\(place.out)/a would also be the folder of other files of the download")
        #expect(reasons[1] == nil)
        #expect(reasons[2] == nil)
        #expect(reasons[3] == "\(place.out)/taken is a folder")
        // Checking wrote nothing.
        #expect(place.contents(of: place.out) == ["taken"])
    }
}
