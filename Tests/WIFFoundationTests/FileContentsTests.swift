import Foundation
import Testing
import WIFFoundation
import WIFTestSupport

/// Reading a file a person named: regular files, pipes and devices, with a limit and reasons in words.
@Suite struct FileContentsTests {
    let folder: TemporaryFolder

    init() throws {
        self.folder = try TemporaryFolder("wif-file-contents")
    }

    @Test func readsARegularFileWhole() throws {
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let path = self.folder.file("data.bin")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try FileContents.read(path, limit: bytes.count) == bytes)
        #expect(throws: FileContents.Failure(kind: .tooLarge(bytes.count - 1))) {
            try FileContents.read(path, limit: bytes.count - 1)
        }
    }

    @Test func readsAPipeToItsEnd() throws {
        // More than one read's worth, written by another thread as the reader takes it.
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let pipe = try NamedPipe(at: self.folder.file("fifo"), feeding: bytes)
        #expect(try FileContents.read(pipe.path, limit: 1 << 20) == bytes)
    }

    @Test func readsDevicesWithinTheLimit() throws {
        #expect(try FileContents.read("/dev/null", limit: 10) == [])
        // An endless device stops at the limit instead of filling memory.
        #expect(throws: FileContents.Failure(kind: .tooLarge(100_000))) {
            try FileContents.read("/dev/zero", limit: 100_000)
        }
    }

    @Test func namesWhyAFileCannotBeRead() throws {
        let missing = #expect(throws: FileContents.Failure.self) { try FileContents.read(self.folder.file("absent"), limit: 10) }
        #expect(missing?.kind == .missing)
        #expect(missing?.reason == "there is no such file")

        let file = self.folder.file("plain")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let throughFile = #expect(throws: FileContents.Failure.self) { try FileContents.read(file + "/below", limit: 10) }
        #expect(throughFile?.kind == .missing)

        let folder = #expect(throws: FileContents.Failure.self) { try FileContents.read(self.folder.path, limit: 10) }
        #expect(folder?.kind == .folder)
        #expect(folder?.reason == "it is a folder")

        let tooLarge = #expect(throws: FileContents.Failure.self) { try FileContents.read("/dev/zero", limit: 5) }
        #expect(tooLarge?.reason == "it holds more than 5 bytes")
    }
}
