import Foundation
import Testing
import WIFFoundation

/// Foundation's file errors in words: never `NSCocoaErrorDomain error 256`.
@Suite struct FileFailureTests {
    @Test func readingAFolderSaysItIsAFolder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wif-file-failure-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            _ = try Data(contentsOf: folder)
            Issue.record("read a folder as a file")
        } catch {
            #expect(FileFailure.reason(error, path: folder.path) == "it is a folder")
        }
    }

    @Test func aMissingFileSaysThereIsNone() {
        let path = "/nonexistent-\(UUID().uuidString)/file.json"
        do {
            _ = try Data(contentsOf: URL(fileURLWithPath: path))
            Issue.record("read a missing file")
        } catch {
            let reason = FileFailure.reason(error, path: path)
            #expect(reason == "No such file or directory" || reason == "there is no such file", "\(reason)")
            #expect(!reason.contains("NSCocoaErrorDomain"))
        }
    }

    @Test func writingWhereAFolderIsInTheWaySaysSo() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wif-file-failure-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("target"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("target")
        do {
            try Data("x".utf8).write(to: target)
            Issue.record("wrote over a folder")
        } catch {
            let reason = FileFailure.reason(error, path: target.path)
            #expect(["it is a folder", "a folder is in the way"].contains(reason), "\(reason)")
        }
    }
}
