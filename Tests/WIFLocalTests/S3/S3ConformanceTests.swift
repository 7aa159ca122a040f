import Foundation
import Testing
import WIFCredentials

@testable import WIFLocal

/// Answers in which the local S3 once differed from S3, each checked as S3 answers it.
@Suite("S3 service: answers as S3 gives them")
struct S3ConformanceTests {
    let fixture: S3Fixture
    var admin: AWSCredentials { self.fixture.adminCredentials }

    init() throws {
        self.fixture = try S3Fixture()
    }

    private func put(_ key: String, _ body: [UInt8] = [1], headers: [(String, String)] = []) async throws -> S3Reply {
        try await self.fixture.send("PUT", "/wif-personal/" + key, headers: headers, body: body, as: self.admin)
    }

    @Test("ListObjects (v1) paging by NextMarker past a common prefix moves on instead of repeating it")
    func markerInsideCommonPrefix() async throws {
        for key in ["boo/bar", "boo/baz/xyzzy", "cquux/thud", "cquux/bla"] { _ = try await self.put(key) }
        var marker = "boo/"
        var pages: [[String]] = []
        for _ in 0..<5 {
            let query = "delimiter=%2F&marker=\(SigV4Request.percentEncode(marker, keepingSlashes: false))&max-keys=1"
            let page = try await self.fixture.send("GET", "/wif-personal", query: query, as: self.admin).xml()
            pages.append(page.children(named: "CommonPrefixes").compactMap { $0.child("Prefix")?.text })
            guard page.child("IsTruncated")?.text == "true", let next = page.child("NextMarker")?.text else { break }
            #expect(next != marker, "NextMarker must move on")
            marker = next
        }
        #expect(pages == [["cquux/"]])

        // The same with ListObjectsV2's start-after, and from the start in pages of one.
        let afterPrefix = try await self.fixture.send(
            "GET", "/wif-personal", query: "delimiter=%2F&list-type=2&start-after=boo%2Fbar", as: self.admin
        ).xml()
        #expect(afterPrefix.children(named: "CommonPrefixes").compactMap { $0.child("Prefix")?.text } == ["cquux/"])
        var seen: [String] = []
        var next: String?
        repeat {
            let markerQuery = next.map { "&marker=\(SigV4Request.percentEncode($0, keepingSlashes: false))" } ?? ""
            let page = try await self.fixture.send(
                "GET", "/wif-personal", query: "delimiter=%2F\(markerQuery)&max-keys=1", as: self.admin
            ).xml()
            seen += page.children(named: "CommonPrefixes").compactMap { $0.child("Prefix")?.text }
            next = page.child("IsTruncated")?.text == "true" ? page.child("NextMarker")?.text : nil
        } while next != nil && seen.count < 10
        #expect(seen == ["boo/", "cquux/"])
    }

    private func multipart(_ key: String, parts: Int) async throws -> (uploadId: String, document: [UInt8]) {
        let path = "/wif-personal/" + key
        let uploadId = try #require(try await self.fixture.send("POST", path, query: "uploads", as: self.admin).xml().child("UploadId")?.text)
        var document = "<CompleteMultipartUpload>"
        for number in 1...parts {
            let reply = try await self.fixture.send(
                "PUT", path, query: "partNumber=\(number)&uploadId=\(uploadId)", body: S3TestData.bytes(8, seed: UInt8(number)),
                as: self.admin)
            document += "<Part><PartNumber>\(number)</PartNumber><ETag>\(reply.header("ETag") ?? "")</ETag></Part>"
        }
        return (uploadId, Array((document + "</CompleteMultipartUpload>").utf8))
    }

    @Test("CompleteMultipartUpload retried after it succeeded answers the same object again")
    func completeRetried() async throws {
        let path = "/wif-personal/retry/object.bin"
        let (uploadId, document) = try await self.multipart("retry/object.bin", parts: 2)
        let first = try await self.fixture.send("POST", path, query: "uploadId=\(uploadId)", body: document, as: self.admin)
        #expect(first.status == .ok)
        let etag = try #require(try first.xml().child("ETag")?.text)
        let again = try await self.fixture.send("POST", path, query: "uploadId=\(uploadId)", body: document, as: self.admin)
        #expect(again.status == .ok)
        #expect(try again.xml().child("ETag")?.text == etag)

        // Once the object is replaced, the finished upload is gone for good.
        _ = try await self.put("retry/object.bin", [9])
        let replaced = try await self.fixture.send("POST", path, query: "uploadId=\(uploadId)", body: document, as: self.admin)
        #expect(replaced.errorCode == "NoSuchUpload")
    }

    @Test("If-None-Match: * on CompleteMultipartUpload refuses to overwrite, and keeps the upload")
    func completeIfNoneMatch() async throws {
        let path = "/wif-personal/create-only.bin"
        _ = try await self.put("create-only.bin", [7, 7, 7])
        let (uploadId, document) = try await self.multipart("create-only.bin", parts: 1)
        let refused = try await self.fixture.send(
            "POST", path, query: "uploadId=\(uploadId)", headers: [("If-None-Match", "*")], body: document, as: self.admin)
        #expect(refused.status == .preconditionFailed)
        #expect(refused.errorCode == "PreconditionFailed")
        #expect(try await self.fixture.send("GET", path, as: self.admin).body == [7, 7, 7])
        let listed = try await self.fixture.send("GET", path, query: "uploadId=\(uploadId)", as: self.admin)
        #expect(listed.status == .ok, "the upload is still there to complete without the condition")
    }

    @Test("UploadPartCopy with a range beyond the source is 400 InvalidRange")
    func copyRangeBeyondSource() async throws {
        _ = try await self.put("source.bin", S3TestData.bytes(100))
        let path = "/wif-personal/target.bin"
        let uploadId = try #require(try await self.fixture.send("POST", path, query: "uploads", as: self.admin).xml().child("UploadId")?.text)
        for range in ["bytes=0-100", "bytes=100-150", "bytes=200-300"] {
            let reply = try await self.fixture.send(
                "PUT", path, query: "partNumber=1&uploadId=\(uploadId)",
                headers: [("x-amz-copy-source", "/wif-personal/source.bin"), ("x-amz-copy-source-range", range)], as: self.admin)
            #expect(reply.status == .badRequest, "\(range)")
            #expect(reply.errorCode == "InvalidRange", "\(range)")
        }
        let inside = try await self.fixture.send(
            "PUT", path, query: "partNumber=1&uploadId=\(uploadId)",
            headers: [("x-amz-copy-source", "/wif-personal/source.bin"), ("x-amz-copy-source-range", "bytes=0-99")], as: self.admin)
        #expect(inside.status == .ok)
    }

    @Test("a presigned URL that expires after 0 seconds is refused")
    func presignedZeroExpiry() async throws {
        _ = try await self.put("presigned.txt")
        // The package's signer will not make such a URL (boto3 will: the third-party test signs one); the
        // expiry is checked before the signature, so the rewritten parameter is what the answer is about.
        let url = try self.fixture.presigned("GET", "/wif-personal/presigned.txt", as: self.admin, expires: 60)
        let query = url.query.replacingOccurrences(of: "X-Amz-Expires=60", with: "X-Amz-Expires=0")
        #expect(query != url.query)
        var request = SigV4Request(method: "GET", scheme: "http", host: S3Fixture.host, path: url.path, query: query)
        request.headers.append(.init("Host", S3Fixture.host))
        let reply = try await self.fixture.deliver(request)
        #expect(reply.status == .forbidden)
        #expect(reply.errorCode == "AccessDenied")
        #expect(reply.errorMessage == "Request has expired")
    }

    @Test("Content-Encoding comes back as it was sent, but for aws-chunked")
    func contentEncodingVerbatim() async throws {
        _ = try await self.put("encoded.bin", headers: [("Content-Encoding", "deflate, gzip")])
        let reply = try await self.fixture.send("HEAD", "/wif-personal/encoded.bin", as: self.admin)
        #expect(reply.header("Content-Encoding") == "deflate, gzip")
    }

    @Test("user metadata outside US-ASCII is stored decoded from RFC 2047 words and sent back as one UTF-8 word")
    func metadataEncodedWords() async throws {
        let put = try await self.put(
            "metadata.bin",
            headers: [
                ("x-amz-meta-plain", "abc"), ("x-amz-meta-word", "=?UTF-8?B?Y2Fmw6k=?="), ("x-amz-meta-q", "=?utf-8?Q?caf=C3=A9?="),
                ("x-amz-meta-latin", "=?ISO-8859-1?Q?caf=E9?="), ("x-amz-meta-raw", "caf\u{E9}"),
            ])
        #expect(put.status == .ok)
        for method in ["HEAD", "GET"] {
            let reply = try await self.fixture.send(method, "/wif-personal/metadata.bin", as: self.admin)
            #expect(reply.header("x-amz-meta-plain") == "abc")
            for name in ["word", "q", "latin", "raw"] {
                #expect(reply.header("x-amz-meta-" + name) == "=?UTF-8?B?Y2Fmw6k=?=", "\(method) \(name)")
            }
        }
        // A copy that replaces the metadata decodes it the same way.
        let copy = try await self.fixture.send(
            "PUT", "/wif-personal/metadata-copy.bin",
            headers: [("x-amz-copy-source", "wif-personal/metadata.bin"), ("x-amz-metadata-directive", "REPLACE"), ("x-amz-meta-w", "=?UTF-8?B?w6k=?=")],
            as: self.admin)
        #expect(copy.status == .ok)
        #expect(try await self.fixture.send("HEAD", "/wif-personal/metadata-copy.bin", as: self.admin).header("x-amz-meta-w") == "=?UTF-8?B?w6k=?=")
    }

    @Test("a metadata value whose bytes were not UTF-8 is refused, not stored changed")
    func metadataLostBytesRefused() async throws {
        // The HTTP server reads header bytes as UTF-8 and replaces what is not with U+FFFD.
        for (method, path, query) in [("PUT", "/wif-personal/lost.bin", ""), ("POST", "/wif-personal/lost-upload.bin", "uploads")] {
            let reply = try await self.fixture.send(
                method, path, query: query, headers: [("x-amz-meta-latin", "caf\u{FFFD}")], body: method == "PUT" ? [1] : [], as: self.admin)
            #expect(reply.status == .badRequest, "\(method)")
            #expect(reply.errorCode == "InvalidArgument", "\(method)")
            #expect(reply.errorMessage?.contains("x-amz-meta-latin") == true, "\(reply.errorMessage ?? "")")
        }
        #expect(try await self.fixture.send("HEAD", "/wif-personal/lost.bin", as: self.admin).status == .notFound)
    }

    @Test("ListBuckets pages with max-buckets and a continuation token, and filters by prefix")
    func listBucketsPaged() async throws {
        for name in ["page-a", "page-b", "page-c"] {
            #expect(try await self.fixture.send("PUT", "/" + name, as: self.admin).status == .ok)
        }
        var names: [String] = []
        var token: String?
        var pages = 0
        repeat {
            let tokenQuery = token.map { "continuation-token=\(SigV4Request.percentEncode($0, keepingSlashes: false))&" } ?? ""
            let page = try await self.fixture.send("GET", "/", query: "\(tokenQuery)max-buckets=1&prefix=page-", as: self.admin).xml()
            let found = page.child("Buckets")?.children(named: "Bucket").compactMap { $0.child("Name")?.text } ?? []
            #expect(found.count <= 1)
            #expect(page.child("Prefix")?.text == "page-")
            names += found
            token = page.child("ContinuationToken")?.text
            pages += 1
        } while token != nil && pages < 10
        #expect(names == ["page-a", "page-b", "page-c"])
        #expect(try await self.fixture.send("GET", "/", query: "max-buckets=0", as: self.admin).errorCode == "InvalidArgument")
        #expect(try await self.fixture.send("GET", "/", query: "continuation-token=bogus", as: self.admin).errorCode == "InvalidArgument")
    }

    @Test("If-Match on DeleteObject and an ETag in DeleteObjects delete only the matching object")
    func conditionalDeletes() async throws {
        let etag = try #require(try await self.put("kept.txt", [1, 2]).header("ETag"))
        let mismatch = try await self.fixture.send("DELETE", "/wif-personal/kept.txt", headers: [("If-Match", "\"0000\"")], as: self.admin)
        #expect(mismatch.status == .preconditionFailed)
        #expect(try await self.fixture.send("HEAD", "/wif-personal/kept.txt", as: self.admin).status == .ok)
        let missing = try await self.fixture.send("DELETE", "/wif-personal/never.txt", headers: [("If-Match", etag)], as: self.admin)
        #expect(missing.errorCode == "NoSuchKey")
        let matched = try await self.fixture.send("DELETE", "/wif-personal/kept.txt", headers: [("If-Match", etag)], as: self.admin)
        #expect(matched.status == .noContent)
        #expect(try await self.fixture.send("HEAD", "/wif-personal/kept.txt", as: self.admin).status == .notFound)

        let first = try #require(try await self.put("batch/1", [1]).header("ETag"))
        _ = try await self.put("batch/2", [2])
        let document = Array(
            ("<Delete><Object><Key>batch/1</Key><ETag>\(first)</ETag></Object>"
                + "<Object><Key>batch/2</Key><ETag>\"ffff\"</ETag></Object></Delete>").utf8)
        let reply = try await self.fixture.send(
            "POST", "/wif-personal", query: "delete", headers: [("Content-MD5", S3TestData.md5Base64(document))], body: document,
            as: self.admin)
        let result = try reply.xml()
        #expect(result.children(named: "Deleted").compactMap { $0.child("Key")?.text } == ["batch/1"])
        #expect(result.children(named: "Error").compactMap { $0.child("Code")?.text } == ["PreconditionFailed"])
        #expect(try await self.fixture.send("HEAD", "/wif-personal/batch/2", as: self.admin).status == .ok)
    }

    @Test("canned ACLs are answered as a bucket with ACLs disabled answers them")
    func cannedACLs() async throws {
        for acl in ["private", "bucket-owner-full-control"] {
            #expect(try await self.put("acl-\(acl).txt", headers: [("x-amz-acl", acl)]).status == .ok, "\(acl)")
        }
        for acl in ["public-read", "public-read-write", "authenticated-read"] {
            let reply = try await self.put("acl-refused.txt", headers: [("x-amz-acl", acl)])
            #expect(reply.status == .badRequest, "\(acl)")
            #expect(reply.errorCode == "AccessControlListNotSupported", "\(acl)")
        }
        let grant = try await self.put("acl-grant.txt", headers: [("x-amz-grant-read", "uri=\"http://acs.amazonaws.com/groups/global/AllUsers\"")])
        #expect(grant.errorCode == "AccessControlListNotSupported")
        let bucket = try await self.fixture.send("PUT", "/public-bucket", headers: [("x-amz-acl", "public-read")], as: self.admin)
        #expect(bucket.errorCode == "AccessControlListNotSupported")
        #expect(try await self.fixture.send("HEAD", "/wif-personal/acl-refused.txt", as: self.admin).status == .notFound)
    }

    @Test("encryption S3 has and the stack cannot do is refused with S3's answers, and nothing is stored")
    func serverSideEncryptionRefused() async throws {
        let cases: [([(String, String)], String)] = [
            ([("x-amz-server-side-encryption", "aws:kms")], "NotImplemented"),
            ([("x-amz-server-side-encryption", "rot13")], "InvalidArgument"),
            ([("x-amz-server-side-encryption-aws-kms-key-id", "key")], "InvalidArgument"),
            (
                [("x-amz-server-side-encryption", "AES256"), ("x-amz-server-side-encryption-customer-algorithm", "AES256")],
                "InvalidArgument"
            ),
        ]
        for (headers, code) in cases {
            let reply = try await self.put("sse.txt", headers: headers)
            #expect(reply.errorCode == code, "\(headers.map(\.0))")
        }
        #expect(try await self.fixture.send("HEAD", "/wif-personal/sse.txt", as: self.admin).status == .notFound)
    }

    @Test("a browser form upload (POST with multipart/form-data) is 501, not an unsigned request")
    func postObject() async throws {
        var request = SigV4Request(
            method: "POST", scheme: "http", host: S3Fixture.host, path: "/wif-personal",
            headers: [.init("Content-Type", "multipart/form-data; boundary=xyz")])
        request.headers.append(.init("Host", S3Fixture.host))
        let reply = try await self.fixture.deliver(request, body: Array("--xyz--\r\n".utf8))
        #expect(reply.status == .notImplemented)
        #expect(reply.errorCode == "NotImplemented")
    }
}
