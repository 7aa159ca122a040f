import Crypto
import Foundation
import Testing
import WIFCredentials

@testable import WIFLocal
import WIFFoundation

@Suite("S3 service: upload integrity and multipart")
struct S3ServiceUploadTests {
    let fixture: S3Fixture
    let admin: AWSCredentials

    init() throws {
        self.fixture = try S3Fixture()
        self.admin = self.fixture.adminCredentials
    }

    @Test("a body that does not match its signed SHA-256 is XAmzContentSHA256Mismatch and nothing is stored")
    func tamperedPayload() async throws {
        let path = "/wif-personal/t.txt"
        let signedFor = Array("original".utf8)
        let reply = try await self.fixture.send("PUT", path, body: Array("tampered".utf8), as: self.admin, payload: .bytes(signedFor))
        #expect(reply.status == .badRequest)
        #expect(reply.errorCode == "XAmzContentSHA256Mismatch")
        #expect(try await self.fixture.send("HEAD", path, as: self.admin).status == .notFound)
    }

    @Test("UNSIGNED-PAYLOAD is accepted")
    func unsignedPayload() async throws {
        let reply = try await self.fixture.send("PUT", "/wif-personal/u.txt", body: Array("free".utf8), as: self.admin, payload: .unsigned)
        #expect(reply.status == .ok)
        #expect(try await self.fixture.send("GET", "/wif-personal/u.txt", as: self.admin).text == "free")
    }

    @Test("a wrong Content-MD5 is BadDigest, a malformed one InvalidDigest")
    func contentMD5() async throws {
        let body = Array("body".utf8)
        let bad = try await self.fixture.send(
            "PUT", "/wif-personal/m.txt", headers: [("Content-MD5", S3TestData.md5Base64(Array("other".utf8)))], body: body, as: self.admin)
        #expect(bad.errorCode == "BadDigest")
        let malformed = try await self.fixture.send(
            "PUT", "/wif-personal/m.txt", headers: [("Content-MD5", "not-md5")], body: body, as: self.admin)
        #expect(malformed.errorCode == "InvalidDigest")
        #expect(try await self.fixture.send("HEAD", "/wif-personal/m.txt", as: self.admin).status == .notFound)
    }

    @Test("x-amz-checksum-* headers are verified and echoed back")
    func checksumHeaders() async throws {
        let body = S3TestData.bytes(5000)
        let crc = S3Checksum.compute(.crc32, of: body)
        let good = try await self.fixture.send(
            "PUT", "/wif-personal/c.bin", headers: [("x-amz-checksum-crc32", crc)], body: body, as: self.admin)
        #expect(good.status == .ok)
        #expect(good.header("x-amz-checksum-crc32") == crc)
        let bad = try await self.fixture.send(
            "PUT", "/wif-personal/c2.bin", headers: [("x-amz-checksum-crc32c", S3Checksum.compute(.crc32c, of: [1]))], body: body,
            as: self.admin)
        #expect(bad.errorCode == "BadDigest")
        #expect(try await self.fixture.send("HEAD", "/wif-personal/c2.bin", as: self.admin).status == .notFound)
    }

    @Test("a body shorter than its Content-Length is IncompleteBody")
    func shortBody() async throws {
        let reply = try await self.fixture.send(
            "PUT", "/wif-personal/short.txt", headers: [("Content-Length", "10")], body: Array("short".utf8), as: self.admin)
        #expect(reply.errorCode == "IncompleteBody")
    }

    /// An aws-chunked body of the given chunks, signed chunk by chunk from the seed signature.
    static func signedChunks(_ data: [UInt8], chunkSize: Int, seed: String, signingKey: SigV4SigningKey, tamperAt: Int? = nil) -> [UInt8] {
        var body: [UInt8] = []
        var previous = seed
        var chunks = stride(from: 0, to: data.count, by: chunkSize).map { Array(data[$0..<min($0 + chunkSize, data.count)]) }
        chunks.append([])
        for (index, chunk) in chunks.enumerated() {
            let hash = SigV4Bytes.hexString(SHA256.hash(data: chunk))
            let stringToSign = "AWS4-HMAC-SHA256-PAYLOAD\n20240501T120000Z\n20240501/us-east-1/s3/aws4_request\n\(previous)\n"
                + "\(SigV4Signer.Payload.empty.hashText)\n\(hash)"
            let signature = SigV4Canonical.signature(stringToSign: stringToSign, key: signingKey)
            var sent = chunk
            if index == tamperAt { sent[0] ^= 0xFF }
            body += Array("\(String(chunk.count, radix: 16));chunk-signature=\(signature)\r\n".utf8) + sent + Array("\r\n".utf8)
            previous = signature
        }
        return body
    }

    @Test("a STREAMING-AWS4-HMAC-SHA256-PAYLOAD body is decoded and each chunk's signature checked")
    func signedStreaming() async throws {
        let data = S3TestData.bytes(20_000)
        let key = SigV4SigningKey(secretAccessKey: S3Fixture.admin.secretAccessKey, day: "20240501", region: "us-east-1", service: "s3")
        // The seed signature depends on the headers, which include the encoded length, so sign first with a
        // placeholder body of the right length, then build the chunks from the signature.
        let encodedLength = Self.signedChunks(data, chunkSize: 8192, seed: String(repeating: "0", count: 64), signingKey: key).count
        let headers = [
            ("Content-Encoding", "aws-chunked"), ("x-amz-decoded-content-length", String(data.count)),
            ("Content-Length", String(encodedLength)),
        ]
        let probe = try await self.fixture.sendSigned(
            "PUT", "/wif-personal/streamed.bin", headers: headers, body: [], payloadHash: "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
            as: self.admin)
        let body = Self.signedChunks(data, chunkSize: 8192, seed: probe.seedSignature, signingKey: key)
        let reply = try await self.fixture.sendSigned(
            "PUT", "/wif-personal/streamed.bin", headers: headers, body: body, payloadHash: "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
            as: self.admin)
        #expect(reply.reply.status == .ok, "\(reply.reply.text)")
        let get = try await self.fixture.send("GET", "/wif-personal/streamed.bin", as: self.admin)
        #expect(get.body == data)
        #expect(get.header("Content-Encoding") == nil)

        let tampered = Self.signedChunks(data, chunkSize: 8192, seed: probe.seedSignature, signingKey: key, tamperAt: 1)
        let refused = try await self.fixture.sendSigned(
            "PUT", "/wif-personal/streamed2.bin", headers: headers, body: tampered, payloadHash: "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
            as: self.admin)
        #expect(refused.reply.errorCode == "SignatureDoesNotMatch")
        #expect(try await self.fixture.send("HEAD", "/wif-personal/streamed2.bin", as: self.admin).status == .notFound)
    }

    @Test("a body framed by the SigV4 library's streaming signer is stored; a chunk changed after signing is refused")
    func libraryStreamingSigner() async throws {
        let data = S3TestData.bytes(70_000)
        let signer = SigV4Signer(credentials: self.admin, region: "us-east-1", service: "s3")
        for tampered in [false, true] {
            let path = tampered ? "/wif-personal/library-tampered.bin" : "/wif-personal/library.bin"
            var request = SigV4Request(method: "PUT", scheme: "http", host: S3Fixture.host, path: path)
            var chunks = try signer.signStreaming(&request, decodedContentLength: data.count, chunkSize: 16 * 1024, date: S3Fixture.now)
            var body: [UInt8] = []
            for start in stride(from: 0, to: data.count, by: chunks.chunkSize) {
                var framed = try chunks.frame(data[start..<min(start + chunks.chunkSize, data.count)])
                if tampered && start > 0 { framed[framed.count - 3] ^= 0xFF }
                body += framed
            }
            body += try chunks.frame([UInt8]())
            let reply = try await self.fixture.deliver(request, body: body, bodyPieceSize: 3000)
            if tampered {
                #expect(reply.errorCode == "SignatureDoesNotMatch")
                #expect(try await self.fixture.send("HEAD", path, as: self.admin).status == .notFound)
            } else {
                #expect(reply.status == .ok, "\(reply.text)")
                #expect(try await self.fixture.send("GET", path, as: self.admin).body == data)
            }
        }
    }

    @Test("a STREAMING-UNSIGNED-PAYLOAD-TRAILER body with a CRC32 trailer is decoded and verified")
    func unsignedTrailer() async throws {
        let data = S3TestData.bytes(3000)
        let crc = S3Checksum.compute(.crc32, of: data)
        let body = Array("bb8\r\n".utf8) + data + Array("\r\n0\r\nx-amz-checksum-crc32:\(crc)\r\n\r\n".utf8)
        let headers = [
            ("Content-Encoding", "aws-chunked"), ("x-amz-decoded-content-length", String(data.count)),
            ("x-amz-trailer", "x-amz-checksum-crc32"), ("Content-Length", String(body.count)),
        ]
        let reply = try await self.fixture.sendSigned(
            "PUT", "/wif-personal/trailer.bin", headers: headers, body: body, payloadHash: "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
            as: self.admin)
        #expect(reply.reply.status == .ok, "\(reply.reply.text)")
        #expect(try await self.fixture.send("GET", "/wif-personal/trailer.bin", as: self.admin).body == data)
    }

    @Test("a multipart upload is assembled from its parts with S3's multipart entity tag")
    func multipart() async throws {
        let path = "/wif-personal/big/file.bin"
        let created = try await self.fixture.send("POST", path, query: "uploads", headers: [("Content-Type", "video/mp4")], as: self.admin)
        #expect(created.status == .ok)
        let initiate = try created.xml()
        #expect(initiate.name == "InitiateMultipartUploadResult")
        #expect(initiate.child("Key")?.text == "big/file.bin")
        let uploadId = try #require(initiate.child("UploadId")?.text)

        let parts = [S3TestData.bytes(7000, seed: 1), S3TestData.bytes(7000, seed: 2), S3TestData.bytes(1000, seed: 3)]
        var etags: [String] = []
        for (index, part) in parts.enumerated() {
            let reply = try await self.fixture.send(
                "PUT", path, query: "partNumber=\(index + 1)&uploadId=\(uploadId)", body: part, as: self.admin)
            #expect(reply.status == .ok)
            #expect(reply.header("ETag") == "\"\(S3TestData.md5Hex(part))\"")
            etags.append(try #require(reply.header("ETag")))
        }
        let listed = try await self.fixture.send("GET", path, query: "max-parts=2&uploadId=\(uploadId)", as: self.admin).xml()
        #expect(listed.name == "ListPartsResult")
        #expect(listed.children(named: "Part").compactMap { $0.child("PartNumber")?.text } == ["1", "2"])
        #expect(listed.child("IsTruncated")?.text == "true")
        #expect(listed.child("NextPartNumberMarker")?.text == "2")

        let uploads = try await self.fixture.send("GET", "/wif-personal", query: "uploads", as: self.admin).xml()
        #expect(uploads.child("Upload")?.child("UploadId")?.text == uploadId)

        var document = "<CompleteMultipartUpload>"
        for (index, etag) in etags.enumerated() {
            document += "<Part><PartNumber>\(index + 1)</PartNumber><ETag>\(XMLWriter.escape(etag))</ETag></Part>"
        }
        document += "</CompleteMultipartUpload>"
        let completed = try await self.fixture.send("POST", path, query: "uploadId=\(uploadId)", body: Array(document.utf8), as: self.admin)
        #expect(completed.status == .ok, "\(completed.text)")
        let result = try completed.xml()
        let digests = parts.flatMap { Array(Insecure.MD5.hash(data: $0)) }
        let expected = "\"\(S3TestData.md5Hex(digests))-3\""
        #expect(result.child("ETag")?.text == expected)
        #expect(result.child("Location")?.text == "http://127.0.0.1:9000/wif-personal/big/file.bin")

        let get = try await self.fixture.send("GET", path, as: self.admin)
        #expect(get.body == parts.flatMap { $0 })
        #expect(get.header("ETag") == expected)
        #expect(get.header("Content-Type") == "video/mp4")
        // S3 gives the number of parts only to a read of one part.
        #expect(get.header("x-amz-mp-parts-count") == nil)
        #expect(try await self.fixture.send("GET", path, query: "uploadId=\(uploadId)", as: self.admin).errorCode == "NoSuchUpload")

        // One part at a time (`partNumber`): the part's bytes as a range of the whole, and the count.
        var offset = 0
        for (index, part) in parts.enumerated() {
            let read = try await self.fixture.send("GET", path, query: "partNumber=\(index + 1)", as: self.admin)
            #expect(read.status == .partialContent)
            #expect(read.body == part)
            #expect(read.header("Content-Range") == "bytes \(offset)-\(offset + part.count - 1)/15000")
            #expect(read.header("x-amz-mp-parts-count") == "3")
            #expect(read.header("ETag") == expected)
            let head = try await self.fixture.send("HEAD", path, query: "partNumber=\(index + 1)", as: self.admin)
            #expect(head.status == .partialContent)
            #expect(head.header("Content-Length") == String(part.count))
            #expect(head.header("Content-Range") == read.header("Content-Range"))
            offset += part.count
        }
        let beyond = try await self.fixture.send("GET", path, query: "partNumber=4", as: self.admin)
        #expect(beyond.status == .rangeNotSatisfiable)
        #expect(beyond.errorCode == "InvalidPartNumber")
        #expect(try await self.fixture.send("GET", path, query: "partNumber=0", as: self.admin).errorCode == "InvalidArgument")
        let both = try await self.fixture.send("GET", path, query: "partNumber=1", headers: [("Range", "bytes=0-1")], as: self.admin)
        #expect(both.errorCode == "InvalidRequest")
    }

    @Test("an object put whole is its own part 1")
    func partOfAWholeObject() async throws {
        let path = "/wif-personal/small.bin"
        let body = S3TestData.bytes(300, seed: 4)
        #expect(try await self.fixture.send("PUT", path, body: body, as: self.admin).status == .ok)
        let read = try await self.fixture.send("GET", path, query: "partNumber=1", as: self.admin)
        #expect(read.status == .partialContent)
        #expect(read.body == body)
        #expect(read.header("Content-Range") == "bytes 0-299/300")
        #expect(read.header("x-amz-mp-parts-count") == nil)
        #expect(try await self.fixture.send("HEAD", path, query: "partNumber=2", as: self.admin).status == .rangeNotSatisfiable)
    }

    /// `x-amz-mp-object-size` states the size the client expects: S3 refuses a completion whose parts
    /// make another size with 400 `InvalidRequest`, and the upload stays open.
    @Test("x-amz-mp-object-size must be the size the parts make")
    func expectedObjectSize() async throws {
        let path = "/wif-personal/big/sized.bin"
        let uploadId = try #require(try await self.fixture.send("POST", path, query: "uploads", as: self.admin).xml().child("UploadId")?.text)
        var document = "<CompleteMultipartUpload>"
        for (index, part) in [S3TestData.bytes(7000, seed: 4), S3TestData.bytes(1000, seed: 5)].enumerated() {
            let reply = try await self.fixture.send("PUT", path, query: "partNumber=\(index + 1)&uploadId=\(uploadId)", body: part, as: self.admin)
            document += "<Part><PartNumber>\(index + 1)</PartNumber><ETag>\(XMLWriter.escape(reply.header("ETag") ?? ""))</ETag></Part>"
        }
        document += "</CompleteMultipartUpload>"
        func complete(size: String) async throws -> S3Reply {
            try await self.fixture.send(
                "POST", path, query: "uploadId=\(uploadId)", headers: [("x-amz-mp-object-size", size)], body: Array(document.utf8), as: self.admin)
        }
        for malformed in ["", "abc", "-1", "8000.0", "99999999999999999999"] {
            #expect(try await complete(size: malformed).errorCode == "InvalidArgument", "\(malformed)")
        }
        let wrong = try await complete(size: "7999")
        #expect(wrong.status == .badRequest)
        #expect(wrong.errorCode == "InvalidRequest")
        #expect(wrong.errorMessage?.contains("8000") == true)
        #expect(try await self.fixture.send("HEAD", path, as: self.admin).status == .notFound)
        #expect(try await self.fixture.send("GET", path, query: "uploadId=\(uploadId)", as: self.admin).status == .ok)

        let completed = try await complete(size: "8000")
        #expect(completed.status == .ok, "\(completed.text)")
        #expect(try await self.fixture.send("HEAD", path, as: self.admin).header("Content-Length") == "8000")
        // Completing again answers as the first time, and checks the size against the object.
        #expect(try await complete(size: "8000").status == .ok)
        #expect(try await complete(size: "1").errorCode == "InvalidRequest")
    }

    @Test("multipart errors: bad part numbers, unknown uploads, wrong entity tags, aborts")
    func multipartErrors() async throws {
        let path = "/wif-personal/big/err.bin"
        let uploadId = try #require(try await self.fixture.send("POST", path, query: "uploads", as: self.admin).xml().child("UploadId")?.text)
        let badNumber = try await self.fixture.send("PUT", path, query: "partNumber=0&uploadId=\(uploadId)", body: [1], as: self.admin)
        #expect(badNumber.errorCode == "InvalidArgument")
        let unknown = try await self.fixture.send("PUT", path, query: "partNumber=1&uploadId=nope", body: [1], as: self.admin)
        #expect(unknown.errorCode == "NoSuchUpload")
        _ = try await self.fixture.send("PUT", path, query: "partNumber=1&uploadId=\(uploadId)", body: [1, 2, 3, 4, 5, 6], as: self.admin)
        let wrongTag = "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\"00\"</ETag></Part></CompleteMultipartUpload>"
        let invalid = try await self.fixture.send("POST", path, query: "uploadId=\(uploadId)", body: Array(wrongTag.utf8), as: self.admin)
        #expect(invalid.errorCode == "InvalidPart")
        let copyPart = try await self.fixture.send(
            "PUT", path, query: "partNumber=2&uploadId=\(uploadId)",
            headers: [("x-amz-copy-source", "/wif-personal/big/none"), ("x-amz-copy-source-range", "bytes=0-1")], as: self.admin)
        #expect(copyPart.errorCode == "NoSuchKey")
        #expect(try await self.fixture.send("DELETE", path, query: "uploadId=\(uploadId)", as: self.admin).status == .noContent)
        #expect(try await self.fixture.send("GET", path, query: "uploadId=\(uploadId)", as: self.admin).errorCode == "NoSuchUpload")
    }

    @Test("UploadPartCopy copies a byte range of an existing object into a part")
    func uploadPartCopy() async throws {
        let source = S3TestData.bytes(100)
        _ = try await self.fixture.send("PUT", "/wif-personal/src.bin", body: source, as: self.admin)
        let path = "/wif-personal/assembled.bin"
        let uploadId = try #require(try await self.fixture.send("POST", path, query: "uploads", as: self.admin).xml().child("UploadId")?.text)
        let copied = try await self.fixture.send(
            "PUT", path, query: "partNumber=1&uploadId=\(uploadId)",
            headers: [("x-amz-copy-source", "/wif-personal/src.bin"), ("x-amz-copy-source-range", "bytes=10-29")], as: self.admin)
        #expect(copied.status == .ok)
        let etag = try #require(try copied.xml().child("ETag")?.text)
        #expect(etag == "\"\(S3TestData.md5Hex(Array(source[10...29])))\"")
        let document = "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\(etag)</ETag></Part></CompleteMultipartUpload>"
        _ = try await self.fixture.send("POST", path, query: "uploadId=\(uploadId)", body: Array(document.utf8), as: self.admin)
        #expect(try await self.fixture.send("GET", path, as: self.admin).body == Array(source[10...29]))
    }
}
