import Testing

@testable import WIFLocal

/// Where one part (`partNumber`) of a stored object lies, whichever way its body is kept.
@Suite struct ObjectPartBytesTests {
    private func info(_ record: StoredRecord) -> ObjectInfo {
        ObjectStore.info(key: "k", record: record)
    }

    @Test func partsKeptInTheirOwnFilesAreFoundByTheirLengths() throws {
        let record = StoredRecord(
            key: "aw==", size: 12, etag: "\"x-3\"", lastModified: 0, partCount: 3, uploadId: "u",
            bodyParts: [.init(number: 2, length: 5), .init(number: 4, length: 5), .init(number: 9, length: 2)])
        let info = self.info(record)
        #expect(try info.bytes(ofPart: 1) == (0, 5))
        #expect(try info.bytes(ofPart: 2) == (5, 5))
        #expect(try info.bytes(ofPart: 3) == (10, 2))
        #expect(throws: AWSErrorResponse.self) { try info.bytes(ofPart: 4) }
    }

    @Test func partsJoinedIntoOneFileAreFoundByTheRecordedLengths() throws {
        let record = StoredRecord(key: "aw==", size: 7, etag: "\"x-2\"", lastModified: 0, partCount: 2, partLengths: [4, 3])
        #expect(try self.info(record).bytes(ofPart: 2) == (4, 3))
        let unrecorded = StoredRecord(key: "aw==", size: 7, etag: "\"x-2\"", lastModified: 0, partCount: 2)
        let error = #expect(throws: AWSErrorResponse.self) { try self.info(unrecorded).bytes(ofPart: 1) }
        #expect(error?.code == "NotImplemented")
    }

    @Test func anObjectPutWholeIsItsOwnPartOne() throws {
        let info = self.info(StoredRecord(key: "aw==", size: 9, etag: "\"x\"", lastModified: 0))
        #expect(try info.bytes(ofPart: 1) == (0, 9))
        let error = #expect(throws: AWSErrorResponse.self) { try info.bytes(ofPart: 2) }
        #expect(error?.code == "InvalidPartNumber")
    }
}
