import Foundation
import Testing
import WIFCredentials

@testable import WIFLocal

/// Additional checksums kept with objects and given back with `x-amz-checksum-mode: ENABLED`, for single
/// puts and for multipart uploads of both checksum types.
@Suite("S3 service: stored checksums")
struct S3ChecksumStorageTests {
    let fixture: S3Fixture
    var admin: AWSCredentials { self.fixture.adminCredentials }

    init() throws {
        self.fixture = try S3Fixture()
    }

    private func head(_ key: String, range: String? = nil, mode: Bool = true) async throws -> S3Reply {
        var headers: [(String, String)] = mode ? [("x-amz-checksum-mode", "ENABLED")] : []
        if let range { headers.append(("Range", range)) }
        return try await self.fixture.send("GET", "/wif-personal/" + key, headers: headers, as: self.admin)
    }

    @Test("a put's checksum is kept and answered only when asked for, and only for the whole object", arguments: S3Checksum.Algorithm.all)
    func singlePut(algorithm: S3Checksum.Algorithm) async throws {
        let body = S3TestData.bytes(1000)
        let value = S3Checksum.compute(algorithm, of: body)
        let put = try await self.fixture.send("PUT", "/wif-personal/sum.bin", headers: [(algorithm.headerName, value)], body: body, as: self.admin)
        #expect(put.status == .ok)
        let whole = try await self.head("sum.bin")
        #expect(whole.header(algorithm.headerName) == value)
        #expect(whole.header("x-amz-checksum-type") == "FULL_OBJECT")
        #expect(try await self.head("sum.bin", mode: false).header(algorithm.headerName) == nil)
        #expect(try await self.head("sum.bin", range: "bytes=0-9").header(algorithm.headerName) == nil)
    }

    @Test(
        "a checksum header that is not the body's is BadDigest and stores nothing, with a signed or an unsigned payload",
        arguments: S3Checksum.Algorithm.all)
    func mismatch(algorithm: S3Checksum.Algorithm) async throws {
        let body = S3TestData.bytes(300)
        let other = S3Checksum.compute(algorithm, of: body + [0])
        for payload in [nil, SigV4Signer.Payload.unsigned] {
            let reply = try await self.fixture.send(
                "PUT", "/wif-personal/wrong-sum.bin", headers: [(algorithm.headerName, other)], body: body, as: self.admin, payload: payload)
            #expect(reply.errorCode == "BadDigest", "\(algorithm) \(payload == nil ? "signed" : "unsigned")")
            #expect(try await self.head("wrong-sum.bin").status == .notFound)
        }
    }

    @Test("a malformed checksum header is InvalidRequest and stores nothing")
    func malformed() async throws {
        let reply = try await self.fixture.send(
            "PUT", "/wif-personal/bad-sum.bin", headers: [("x-amz-checksum-crc32", "not base64!")], body: [1], as: self.admin)
        #expect(reply.errorCode == "InvalidRequest")
        #expect(reply.errorMessage == "Value for x-amz-checksum-crc32 header is invalid.")
        #expect(try await self.head("bad-sum.bin").status == .notFound)
    }

    private func multipart(
        _ key: String, algorithm: S3Checksum.Algorithm, type: String?, parts: [[UInt8]], listChecksums: Bool = true,
        numbers: [Int]? = nil
    ) async throws -> (complete: S3Reply, partValues: [String]) {
        let path = "/wif-personal/" + key
        var headers = [("x-amz-checksum-algorithm", algorithm.name)]
        if let type { headers.append(("x-amz-checksum-type", type)) }
        let created = try await self.fixture.send("POST", path, query: "uploads", headers: headers, as: self.admin)
        let uploadId = try #require(try created.xml().child("UploadId")?.text)
        var document = "<CompleteMultipartUpload>"
        var values: [String] = []
        for (index, part) in parts.enumerated() {
            let number = numbers?[index] ?? index + 1
            let value = S3Checksum.compute(algorithm, of: part)
            values.append(value)
            let reply = try await self.fixture.send(
                "PUT", path, query: "partNumber=\(number)&uploadId=\(uploadId)", headers: [(algorithm.headerName, value)], body: part,
                as: self.admin)
            #expect(reply.header(algorithm.headerName) == value)
            let listed = listChecksums ? "<Checksum\(algorithm.name)>\(value)</Checksum\(algorithm.name)>" : ""
            document += "<Part><PartNumber>\(number)</PartNumber><ETag>\(reply.header("ETag") ?? "")</ETag>\(listed)</Part>"
        }
        document += "</CompleteMultipartUpload>"
        let complete = try await self.fixture.send("POST", path, query: "uploadId=\(uploadId)", body: Array(document.utf8), as: self.admin)
        return (complete, values)
    }

    @Test("a composite checksum is the checksum of the parts' checksums, with the part count")
    func composite() async throws {
        let parts = [S3TestData.bytes(10, seed: 1), S3TestData.bytes(7, seed: 2)]
        let (complete, values) = try await self.multipart("composite.bin", algorithm: .sha256, type: nil, parts: parts)
        let binary = values.flatMap { Array(Data(base64Encoded: $0) ?? Data()) }
        let expected = S3Checksum.compute(.sha256, of: binary) + "-2"
        #expect(try complete.xml().child("ChecksumSHA256")?.text == expected)
        #expect(try complete.xml().child("ChecksumType")?.text == "COMPOSITE")
        let head = try await self.head("composite.bin")
        #expect(head.header("x-amz-checksum-sha256") == expected)
        #expect(head.header("x-amz-checksum-type") == "COMPOSITE")
    }

    @Test("a full-object checksum covers every byte of the object, as one put's would", arguments: [S3Checksum.Algorithm.crc32, .crc32c, .crc64nvme])
    func fullObject(algorithm: S3Checksum.Algorithm) async throws {
        let parts = [S3TestData.bytes(10, seed: 3), S3TestData.bytes(9, seed: 4)]
        let type: String? = algorithm == .crc64nvme ? nil : "FULL_OBJECT"
        let (complete, _) = try await self.multipart("full.bin", algorithm: algorithm, type: type, parts: parts, listChecksums: false)
        #expect(complete.status == .ok)
        let expected = S3Checksum.compute(algorithm, of: parts[0] + parts[1])
        let head = try await self.head("full.bin")
        #expect(head.header(algorithm.headerName) == expected)
        #expect(head.header("x-amz-checksum-type") == "FULL_OBJECT")
    }

    /// S3 requires parts that each carry a CRC32, CRC32C, SHA-1 or SHA-256 checksum to be numbered from 1
    /// without a gap; a CRC64NVME upload, like one with no checksum, may skip numbers.
    @Test("parts with a per-part checksum must be numbered 1, 2, 3… without a gap", arguments: S3Checksum.Algorithm.all)
    func consecutiveParts(algorithm: S3Checksum.Algorithm) async throws {
        let parts = [S3TestData.bytes(10, seed: 5), S3TestData.bytes(8, seed: 6)]
        for numbers in [[1, 3], [2, 3]] {
            let (complete, _) = try await self.multipart(
                "gaps-\(numbers[0]).bin", algorithm: algorithm, type: nil, parts: parts, listChecksums: false, numbers: numbers)
            if algorithm == .crc64nvme {
                #expect(complete.status == .ok, "\(numbers)")
                #expect(try await self.head("gaps-\(numbers[0]).bin").header(algorithm.headerName) == S3Checksum.compute(algorithm, of: parts[0] + parts[1]))
            } else {
                #expect(complete.errorCode == "InvalidPartOrder", "\(algorithm) \(numbers)")
                #expect(try await self.head("gaps-\(numbers[0]).bin").status == .notFound)
            }
        }
        let (complete, _) = try await self.multipart("numbered.bin", algorithm: algorithm, type: nil, parts: parts, listChecksums: false, numbers: [1, 2])
        #expect(complete.status == .ok)
    }

    @Test("checksum types S3 refuses, and a part listed with another checksum, are refused")
    func refusals() async throws {
        for (algorithm, type) in [("SHA256", "FULL_OBJECT"), ("CRC64NVME", "COMPOSITE"), ("MD5", "COMPOSITE")] {
            let reply = try await self.fixture.send(
                "POST", "/wif-personal/refused.bin", query: "uploads",
                headers: [("x-amz-checksum-algorithm", algorithm), ("x-amz-checksum-type", type)], as: self.admin)
            #expect(reply.errorCode == "InvalidRequest", "\(algorithm) \(type)")
        }
        let path = "/wif-personal/mismatch.bin"
        let created = try await self.fixture.send("POST", path, query: "uploads", headers: [("x-amz-checksum-algorithm", "CRC32")], as: self.admin)
        let uploadId = try #require(try created.xml().child("UploadId")?.text)
        let part = try await self.fixture.send("PUT", path, query: "partNumber=1&uploadId=\(uploadId)", body: [1, 2, 3], as: self.admin)
        #expect(part.status == .ok)
        let other = try await self.fixture.send(
            "PUT", path, query: "partNumber=2&uploadId=\(uploadId)", headers: [("x-amz-checksum-sha1", S3Checksum.compute(.sha1, of: [4]))],
            body: [4], as: self.admin)
        #expect(other.errorCode == "InvalidRequest")
        let document = "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\(part.header("ETag") ?? "")</ETag>"
            + "<ChecksumCRC32>AAAAAA==</ChecksumCRC32></Part></CompleteMultipartUpload>"
        let complete = try await self.fixture.send("POST", path, query: "uploadId=\(uploadId)", body: Array(document.utf8), as: self.admin)
        #expect(complete.errorCode == "InvalidPart")
    }
}
