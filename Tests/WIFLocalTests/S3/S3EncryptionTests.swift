import Crypto
import Foundation
import Testing
import WIFCredentials

@testable import WIFLocal

/// Objects encrypted at rest: SSE-S3 with the data directory's key, SSE-C with the customer's, single
/// puts and multipart uploads, whole and ranged reads, copies, and S3's answers to missing or wrong keys.
@Suite("S3 service: encryption at rest")
struct S3EncryptionTests {
    let fixture: S3Fixture
    var admin: AWSCredentials { self.fixture.adminCredentials }

    init() throws {
        self.fixture = try S3Fixture()
    }

    /// A body that is easy to find on disk if it were stored in the clear.
    static func body(_ count: Int) -> [UInt8] {
        let marker = Array("PLAINTEXT-MARKER-".utf8)
        return (0..<count).map { marker[$0 % marker.count] }
    }

    static func customer(_ seed: UInt8) -> (headers: [(String, String)], copySource: [(String, String)]) {
        let key = Data(repeating: seed, count: 32)
        let md5 = Data(Insecure.MD5.hash(data: key)).base64EncodedString()
        let values = [("algorithm", "AES256"), ("key", key.base64EncodedString()), ("key-MD5", md5)]
        return (
            values.map { ("x-amz-server-side-encryption-customer-" + $0.0, $0.1) },
            values.map { ("x-amz-copy-source-server-side-encryption-customer-" + $0.0, $0.1) }
        )
    }

    /// Whether any file of the data directory holds the marker in the clear.
    func markerOnDisk() throws -> Bool {
        let marker = Data("PLAINTEXT-MARKER-PLAINTEXT".utf8)
        let files = FileManager.default.enumerator(atPath: self.fixture.directory)?.compactMap { $0 as? String } ?? []
        for file in files {
            let path = self.fixture.directory + "/" + file
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            if let data = FileManager.default.contents(atPath: path), data.range(of: marker) != nil { return true }
        }
        return false
    }

    @Test("SSE-S3: stored encrypted, read back whole and by any range, the header echoed")
    func sseS3() async throws {
        let body = Self.body(70_000)
        let put = try await self.fixture.send(
            "PUT", "/wif-personal/secret.bin", headers: [("x-amz-server-side-encryption", "AES256")], body: body, as: self.admin)
        #expect(put.status == .ok)
        #expect(put.header("x-amz-server-side-encryption") == "AES256")
        #expect(try !self.markerOnDisk())
        let get = try await self.fixture.send("GET", "/wif-personal/secret.bin", as: self.admin)
        #expect(get.body == body)
        #expect(get.header("x-amz-server-side-encryption") == "AES256")
        #expect(get.header("ETag") == "\"\(S3TestData.md5Hex(body))\"")
        for (first, last) in [(0, 0), (5, 20), (15, 16), (65_530, 65_560), (69_990, 69_999)] {
            let range = try await self.fixture.send(
                "GET", "/wif-personal/secret.bin", headers: [("Range", "bytes=\(first)-\(last)")], as: self.admin)
            #expect(range.body == Array(body[first...last]), "bytes=\(first)-\(last)")
        }
        let head = try await self.fixture.send("HEAD", "/wif-personal/secret.bin", as: self.admin)
        #expect(head.header("x-amz-server-side-encryption") == "AES256")
    }

    @Test("SSE-C: the object is read only with its key; a missing key is 400, another key 403; the key is never echoed")
    func sseC() async throws {
        let body = Self.body(5000)
        let (key, copyKey) = Self.customer(7)
        let put = try await self.fixture.send("PUT", "/wif-personal/customer.bin", headers: key, body: body, as: self.admin)
        #expect(put.status == .ok)
        #expect(put.header("x-amz-server-side-encryption-customer-key-MD5") == key[2].1)
        #expect(put.header("x-amz-server-side-encryption-customer-key") == nil)
        #expect(try !self.markerOnDisk())

        let without = try await self.fixture.send("GET", "/wif-personal/customer.bin", as: self.admin)
        #expect(without.status == .badRequest)
        #expect(without.errorCode == "InvalidRequest")
        #expect(try await self.fixture.send("HEAD", "/wif-personal/customer.bin", as: self.admin).status == .badRequest)
        let wrong = try await self.fixture.send("GET", "/wif-personal/customer.bin", headers: Self.customer(8).headers, as: self.admin)
        #expect(wrong.status == .forbidden)
        let right = try await self.fixture.send("GET", "/wif-personal/customer.bin", headers: key, as: self.admin)
        #expect(right.body == body)
        let range = try await self.fixture.send(
            "GET", "/wif-personal/customer.bin", headers: key + [("Range", "bytes=100-199")], as: self.admin)
        #expect(range.body == Array(body[100...199]))

        // A copy reads the source with its key and writes the target as asked: here SSE-S3.
        let copy = try await self.fixture.send(
            "PUT", "/wif-personal/copied.bin",
            headers: copyKey + [("x-amz-copy-source", "/wif-personal/customer.bin"), ("x-amz-server-side-encryption", "AES256")],
            as: self.admin)
        #expect(copy.status == .ok)
        #expect(try await self.fixture.send("GET", "/wif-personal/copied.bin", as: self.admin).body == body)
        let copyWithoutKey = try await self.fixture.send(
            "PUT", "/wif-personal/copied2.bin", headers: [("x-amz-copy-source", "/wif-personal/customer.bin")], as: self.admin)
        #expect(copyWithoutKey.status == .badRequest)

        let plain = try await self.fixture.send("PUT", "/wif-personal/plain.bin", body: [1], as: self.admin)
        #expect(plain.status == .ok)
        let keyOnPlain = try await self.fixture.send("GET", "/wif-personal/plain.bin", headers: key, as: self.admin)
        #expect(keyOnPlain.errorCode == "InvalidRequest")
    }

    @Test("SSE-C keys are checked: all three headers, 256 bits, a matching MD5, AES256")
    func customerKeyChecks() async throws {
        let (key, _) = Self.customer(9)
        let cases: [([(String, String)], String)] = [
            ([key[0], key[1]], "InvalidArgument"),
            ([key[0], key[1], ("x-amz-server-side-encryption-customer-key-MD5", "AAAAAAAAAAAAAAAAAAAAAA==")], "InvalidArgument"),
            ([key[0], ("x-amz-server-side-encryption-customer-key", "c2hvcnQ="), key[2]], "InvalidArgument"),
            ([("x-amz-server-side-encryption-customer-algorithm", "AES128"), key[1], key[2]], "InvalidEncryptionAlgorithmError"),
        ]
        for (headers, code) in cases {
            let reply = try await self.fixture.send("PUT", "/wif-personal/k.bin", headers: headers, body: [1], as: self.admin)
            #expect(reply.errorCode == code, "\(headers.map(\.0))")
        }
    }

    private func multipart(_ key: String, create: [(String, String)], part: [(String, String)], parts: [[UInt8]]) async throws -> S3Reply {
        let path = "/wif-personal/" + key
        let created = try await self.fixture.send("POST", path, query: "uploads", headers: create, as: self.admin)
        let uploadId = try #require(try created.xml().child("UploadId")?.text)
        var document = "<CompleteMultipartUpload>"
        for (index, bytes) in parts.enumerated() {
            let reply = try await self.fixture.send(
                "PUT", path, query: "partNumber=\(index + 1)&uploadId=\(uploadId)", headers: part, body: bytes, as: self.admin)
            #expect(reply.status == .ok)
            document += "<Part><PartNumber>\(index + 1)</PartNumber><ETag>\(reply.header("ETag") ?? "")</ETag></Part>"
        }
        document += "</CompleteMultipartUpload>"
        if !part.isEmpty {
            let missing = try await self.fixture.send(
                "PUT", path, query: "partNumber=9&uploadId=\(uploadId)", body: [1], as: self.admin)
            #expect(missing.errorCode == "InvalidRequest", "a part of an SSE-C upload needs the key")
        }
        return try await self.fixture.send("POST", path, query: "uploadId=\(uploadId)", body: Array(document.utf8), as: self.admin)
    }

    @Test("multipart uploads are encrypted part by part and read back across the parts' boundaries")
    func multipartEncrypted() async throws {
        let parts = [Self.body(40), Self.body(33).reversed(), Self.body(17)].map { Array($0) }
        let whole = parts.flatMap { $0 }
        let s3 = try await self.multipart("mp-s3.bin", create: [("x-amz-server-side-encryption", "AES256")], part: [], parts: parts)
        #expect(s3.status == .ok)
        #expect(s3.header("x-amz-server-side-encryption") == "AES256")
        #expect(try await self.fixture.send("GET", "/wif-personal/mp-s3.bin", as: self.admin).body == whole)
        let across = try await self.fixture.send("GET", "/wif-personal/mp-s3.bin", headers: [("Range", "bytes=35-75")], as: self.admin)
        #expect(across.body == Array(whole[35...75]))

        let (key, _) = Self.customer(3)
        let customer = try await self.multipart("mp-c.bin", create: key, part: key, parts: parts)
        #expect(customer.status == .ok)
        #expect(try await self.fixture.send("GET", "/wif-personal/mp-c.bin", as: self.admin).status == .badRequest)
        #expect(try await self.fixture.send("GET", "/wif-personal/mp-c.bin", headers: key, as: self.admin).body == whole)
        #expect(try !self.markerOnDisk())
    }
}
