import Foundation
import Synchronization
import Testing
@testable import WIFCredentials
import WIFTestSupport

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A fresh temporary directory, removed when the test ends.
final class TokenTestDirectory: Sendable {
    let url: URL

    init() throws {
        self.url = TemporaryFolder.url("wif-tokens")
        try FileManager.default.createDirectory(at: self.url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: self.url) }

    func path(_ name: String) -> String { self.url.appendingPathComponent(name).path }

    /// Writes `data` into the existing file in place (same inode), or creates it.
    @discardableResult
    func write(_ name: String, _ data: Data) throws -> String {
        let path = self.path(name)
        if FileManager.default.fileExists(atPath: path), let handle = FileHandle(forWritingAtPath: path) {
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: data)
            try handle.close()
        } else {
            try data.write(to: URL(fileURLWithPath: path))
        }
        return path
    }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String { try self.write(name, Data(text.utf8)) }

    func setModificationDate(_ name: String, _ date: Date) throws {
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: self.path(name))
    }
}

/// Real file access that counts how often the file is read.
final class CountingFileAccess: Sendable {
    private let reads = Mutex(0)
    var readCount: Int { self.reads.withLock { $0 } }

    var access: FileTokenSource.FileAccess {
        let posix = FileTokenSource.FileAccess.posix
        return FileTokenSource.FileAccess(
            identify: posix.identify,
            read: { path in
                self.reads.withLock { $0 += 1 }
                return try posix.read(path)
            }
        )
    }
}

@Suite struct FileTokenSourceTests {
    @Test func readsAndTrimsToken() async throws {
        let directory = try TokenTestDirectory()
        let jwt = makeUnsignedTestJWT(payload: #"{"exp":1700000000,"sub":"system:serviceaccount:ns:app"}"#)
        let path = try directory.write("token", "\n  \(jwt)\n\n")
        let source: some WebIdentityTokenSource = .file(path)
        let token = try await source.token(forceRefresh: false, logger: .noop)
        #expect(token.value == jwt)
        #expect(token.expiration == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(token.unverifiedClaims?.subject == "system:serviceaccount:ns:app")
    }

    @Test func dropsByteOrderMark() async throws {
        let directory = try TokenTestDirectory()
        let path = try directory.write("token", Data([0xEF, 0xBB, 0xBF]) + Data("opaque-token\r\n".utf8))
        #expect(try await FileTokenSource(path: path).token(forceRefresh: false, logger: .noop).value == "opaque-token")
    }

    @Test func unchangedFileIsNotReadAgain() async throws {
        let directory = try TokenTestDirectory()
        let path = try directory.write("token", "token-one")
        let counter = CountingFileAccess()
        let source = FileTokenSource(path: path, fileAccess: counter.access)
        for _ in 0..<3 {
            #expect(try await source.token(forceRefresh: false, logger: .noop).value == "token-one")
        }
        #expect(counter.readCount == 1)

        #expect(try await source.token(forceRefresh: true, logger: .noop).value == "token-one")
        #expect(counter.readCount == 2)
    }

    @Test func rewrittenFileIsReadAgain() async throws {
        let directory = try TokenTestDirectory()
        let path = try directory.write("token", "token-one")
        try directory.setModificationDate("token", Date(timeIntervalSince1970: 1_600_000_000))
        let counter = CountingFileAccess()
        let source = FileTokenSource(path: path, fileAccess: counter.access)
        #expect(try await source.token(forceRefresh: false, logger: .noop).value == "token-one")

        try directory.write("token", "token-two")
        try directory.setModificationDate("token", Date(timeIntervalSince1970: 1_600_000_100))
        #expect(try await source.token(forceRefresh: false, logger: .noop).value == "token-two")
        #expect(counter.readCount == 2)
    }

    @Test func sizeChangeAloneIsNoticed() async throws {
        let directory = try TokenTestDirectory()
        let when = Date(timeIntervalSince1970: 1_600_000_000)
        let path = try directory.write("token", "token-one")
        try directory.setModificationDate("token", when)
        let source = FileTokenSource(path: path)
        #expect(try await source.token(forceRefresh: false, logger: .noop).value == "token-one")

        try directory.write("token", "token-three")
        try directory.setModificationDate("token", when)
        #expect(try await source.token(forceRefresh: false, logger: .noop).value == "token-three")
    }

    /// Same size, same modification time, same inode: the cheap check cannot see the change, so the
    /// cached token is served until a forced refresh (which STS's rejection of a stale token triggers).
    @Test func changeBehindUnchangedModificationTimeNeedsForceRefresh() async throws {
        let directory = try TokenTestDirectory()
        let when = Date(timeIntervalSince1970: 1_600_000_000)
        let path = try directory.write("token", "token-AAAA")
        try directory.setModificationDate("token", when)
        let source = FileTokenSource(path: path)
        #expect(try await source.token(forceRefresh: false, logger: .noop).value == "token-AAAA")

        try directory.write("token", "token-BBBB")
        try directory.setModificationDate("token", when)
        #expect(try await source.token(forceRefresh: false, logger: .noop).value == "token-AAAA")
        #expect(try await source.token(forceRefresh: true, logger: .noop).value == "token-BBBB")
        #expect(try await source.token(forceRefresh: false, logger: .noop).value == "token-BBBB")
    }

    /// Kubernetes rotates projected tokens by pointing a symbolic link at a new directory; the file's
    /// own size and time may match, but it is another file.
    @Test func symbolicLinkSwapIsNoticed() async throws {
        let directory = try TokenTestDirectory()
        let when = Date(timeIntervalSince1970: 1_600_000_000)
        let manager = FileManager.default
        try manager.createDirectory(atPath: directory.path("v1"), withIntermediateDirectories: false)
        try manager.createDirectory(atPath: directory.path("v2"), withIntermediateDirectories: false)
        try directory.write("v1/token", "token-AAAA")
        try directory.write("v2/token", "token-BBBB")
        try directory.setModificationDate("v1/token", when)
        try directory.setModificationDate("v2/token", when)
        try manager.createSymbolicLink(atPath: directory.path("data"), withDestinationPath: "v1")
        try manager.createSymbolicLink(atPath: directory.path("token"), withDestinationPath: "data/token")

        let source = FileTokenSource(path: directory.path("token"))
        #expect(try await source.token(forceRefresh: false, logger: .noop).value == "token-AAAA")

        try manager.createSymbolicLink(atPath: directory.path("data.new"), withDestinationPath: "v2")
        #expect(rename(directory.path("data.new"), directory.path("data")) == 0)
        #expect(try await source.token(forceRefresh: false, logger: .noop).value == "token-BBBB")
    }

    @Test func concurrentReadersShareTheFile() async throws {
        let directory = try TokenTestDirectory()
        let path = try directory.write("token", "shared-token")
        let source = FileTokenSource(path: path)
        let values = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<32 {
                group.addTask { try await source.token(forceRefresh: index % 4 == 0, logger: .noop).value }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(values.count == 32)
        #expect(Set(values) == ["shared-token"])
    }

    @Test func missingFile() async throws {
        let directory = try TokenTestDirectory()
        let path = directory.path("absent")
        try await self.expectFailure(FileTokenSource(path: path), "web-identity token file '\(path)' does not exist")
    }

    @Test func parentIsAFile() async throws {
        let directory = try TokenTestDirectory()
        try directory.write("plain", "x")
        let path = directory.path("plain") + "/token"
        try await self.expectFailure(
            FileTokenSource(path: path),
            "web-identity token file '\(path)' does not exist (a parent in the path is not a directory)"
        )
    }

    @Test func fileDeletedAfterARead() async throws {
        let directory = try TokenTestDirectory()
        let path = try directory.write("token", "token-one")
        let source = FileTokenSource(path: path)
        _ = try await source.token(forceRefresh: false, logger: .noop)
        try FileManager.default.removeItem(atPath: path)
        try await self.expectFailure(source, "web-identity token file '\(path)' does not exist")
    }

    @Test func directoryInsteadOfFile() async throws {
        let directory = try TokenTestDirectory()
        try await self.expectFailure(
            FileTokenSource(path: directory.url.path),
            "web-identity token file '\(directory.url.path)' is a directory, not a file"
        )
    }

    @Test func emptyFile() async throws {
        let directory = try TokenTestDirectory()
        let path = try directory.write("token", "")
        try await self.expectFailure(FileTokenSource(path: path), "web-identity token file '\(path)' is empty")
        try directory.write("token", " \n\n\t")
        try await self.expectFailure(FileTokenSource(path: path), "web-identity token file '\(path)' is empty")
    }

    @Test func tooLargeAfterTrimming() async throws {
        let directory = try TokenTestDirectory()
        let path = try directory.write("token", String(repeating: "y", count: 20_001) + "\n")
        try await self.expectFailure(
            FileTokenSource(path: path),
            "web-identity token file '\(path)' is 20001 bytes after trimming whitespace; STS accepts at most 20000"
        )
        // Exactly the limit, plus whitespace, is fine.
        try directory.write("token", "  " + String(repeating: "y", count: 20_000) + "\n")
        #expect(try await FileTokenSource(path: path).token(forceRefresh: false, logger: .noop).value.utf8.count == 20_000)
    }

    @Test func hugeFileIsRefusedUnread() async throws {
        let directory = try TokenTestDirectory()
        let size = FileTokenSource.FileAccess.maximumFileSize + 1
        let path = try directory.write("token", Data(repeating: UInt8(ascii: "z"), count: size))
        try await self.expectFailure(
            FileTokenSource(path: path),
            "web-identity token file '\(path)' is \(size) bytes; a token is at most 20000 bytes"
        )
    }

    @Test func notUTF8() async throws {
        let directory = try TokenTestDirectory()
        let path = try directory.write("token", Data([0x74, 0x6F, 0x6B, 0xFF, 0xFE, 0x65, 0x6E]))
        try await self.expectFailure(FileTokenSource(path: path), "web-identity token file '\(path)' is not valid UTF-8 text")
    }

    @Test func twoLines() async throws {
        let directory = try TokenTestDirectory()
        let path = try directory.write("token", "token-one\ntoken-two\n")
        try await self.expectFailure(
            FileTokenSource(path: path),
            "web-identity token file '\(path)' contains whitespace or control characters inside the token"
        )
    }

    @Test(.enabled(if: getuid() != 0, "the superuser reads any file"))
    func unreadableFile() async throws {
        let directory = try TokenTestDirectory()
        let path = try directory.write("token", "secret-token")
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: path)
        try await self.expectFailure(FileTokenSource(path: path), "web-identity token file '\(path)' cannot be read: permission denied")
    }

    @Test func errnoMessages() {
        let path = "/run/token"
        let cases: [(Int32, String)] = [
            (ENOENT, "web-identity token file '/run/token' does not exist"),
            (EACCES, "web-identity token file '/run/token' cannot be read: permission denied"),
            (EPERM, "web-identity token file '/run/token' cannot be read: permission denied"),
            (EISDIR, "web-identity token file '/run/token' is a directory, not a file"),
            (EIO, "web-identity token file '/run/token' cannot be read: \(String(cString: strerror(EIO))) (errno \(EIO))"),
        ]
        for (code, reason) in cases {
            let error = FileTokenSource.FileAccess.failure(path: path, errno: code)
            #expect(error.code == .tokenUnavailable)
            #expect(error.reason == reason)
        }
    }

    @Test func errorsAndDescriptionNeverShowTheToken() async throws {
        let directory = try TokenTestDirectory()
        let path = try directory.write("token", "secret-part-one secret-part-two")
        let source = FileTokenSource(path: path)
        let error = await #expect(throws: WIFCredentialsError.self) {
            try await source.token(forceRefresh: false, logger: .noop)
        }
        #expect(error.map { !"\($0)".contains("secret-part") } == true)
        #expect(source.description == "FileTokenSource(path: \(path))")

        try directory.write("token", "secret-token-value")
        let token = try await source.token(forceRefresh: false, logger: .noop)
        #expect(!source.description.contains("secret"))
        #expect(!token.description.contains("secret"))
    }

    private func expectFailure(
        _ source: FileTokenSource,
        _ reason: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        for force in [false, true] {
            let error = await #expect(throws: WIFCredentialsError.tokenUnavailable(""), sourceLocation: sourceLocation) {
                try await source.token(forceRefresh: force, logger: .noop)
            }
            #expect(error?.reason == reason, sourceLocation: sourceLocation)
        }
    }
}
