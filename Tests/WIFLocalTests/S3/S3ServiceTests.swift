import Foundation
import HTTPTypes
import Testing
import WIFCredentials

@testable import WIFLocal

@Suite("S3 service: buckets and objects")
struct S3ServiceTests {
    let fixture: S3Fixture
    let admin: AWSCredentials

    init() throws {
        self.fixture = try S3Fixture()
        self.admin = self.fixture.adminCredentials
    }

    @Test("buckets are created, listed, located, headed and deleted")
    func buckets() async throws {
        let created = try await self.fixture.send("PUT", "/photos-2024", as: self.admin)
        #expect(created.status == .ok)
        #expect(created.header("Location") == "/photos-2024")
        // us-east-1 answers 200 to a bucket the caller already owns.
        #expect(try await self.fixture.send("PUT", "/photos-2024", as: self.admin).status == .ok)

        let list = try await self.fixture.send("GET", "/", as: self.admin)
        #expect(list.status == .ok)
        let names = try list.xml().child("Buckets")?.children(named: "Bucket").compactMap { $0.child("Name")?.text }
        #expect(names == ["photos-2024", "wif-personal"])

        #expect(try await self.fixture.send("HEAD", "/photos-2024", as: self.admin).header("x-amz-bucket-region") == "us-east-1")
        let location = try await self.fixture.send("GET", "/photos-2024", query: "location", as: self.admin)
        #expect(try location.xml().name == "LocationConstraint")

        let missing = try await self.fixture.send("HEAD", "/no-such-bucket", as: self.admin)
        #expect(missing.status == .notFound)
        #expect(missing.body.isEmpty)
        #expect(missing.header("x-amz-error-code") == "NoSuchBucket")

        _ = try await self.fixture.send("PUT", "/photos-2024/a.txt", body: Array("x".utf8), as: self.admin)
        let notEmpty = try await self.fixture.send("DELETE", "/photos-2024", as: self.admin)
        #expect(notEmpty.status == .conflict)
        #expect(notEmpty.errorCode == "BucketNotEmpty")
        #expect(try await self.fixture.send("DELETE", "/photos-2024/a.txt", as: self.admin).status == .noContent)
        #expect(try await self.fixture.send("DELETE", "/photos-2024", as: self.admin).status == .noContent)
        #expect(try await self.fixture.send("HEAD", "/photos-2024", as: self.admin).status == .notFound)
    }

    @Test("a bucket name S3 would refuse is InvalidBucketName")
    func invalidBucketName() async throws {
        let reply = try await self.fixture.send("PUT", "/Bad_Name", as: self.admin)
        #expect(reply.status == .badRequest)
        #expect(reply.errorCode == "InvalidBucketName")
        let location = try await self.fixture.send(
            "PUT", "/eu-bucket",
            body: Array(
                "<CreateBucketConfiguration><LocationConstraint>eu-west-3</LocationConstraint></CreateBucketConfiguration>".utf8),
            as: self.admin)
        #expect(location.errorCode == "IllegalLocationConstraintException")
    }

    @Test("an object keeps its body, type, metadata and headers, and is served whole, by range or conditionally")
    func objectRoundTrip() async throws {
        let body = S3TestData.bytes(100_000)
        let path = "/wif-personal/dir/data%20file+1.bin"
        let put = try await self.fixture.send(
            "PUT", path,
            headers: [
                ("Content-Type", "application/x-test"), ("x-amz-meta-Owner", "alice"), ("Cache-Control", "no-cache"),
                ("Content-MD5", S3TestData.md5Base64(body)),
            ],
            body: body, as: self.admin)
        #expect(put.status == .ok)
        let etag = "\"\(S3TestData.md5Hex(body))\""
        #expect(put.header("ETag") == etag)
        #expect(put.header("x-amz-request-id") != nil)
        #expect(put.header("x-amz-id-2") != nil)

        let get = try await self.fixture.send("GET", path, as: self.admin)
        #expect(get.status == .ok)
        #expect(get.body == body)
        #expect(get.header("Content-Type") == "application/x-test")
        #expect(get.header("Content-Length") == "100000")
        #expect(get.header("ETag") == etag)
        #expect(get.header("Last-Modified") == "Wed, 01 May 2024 12:00:00 GMT")
        #expect(get.header("x-amz-meta-owner") == "alice")
        #expect(get.header("Cache-Control") == "no-cache")
        #expect(get.header("Accept-Ranges") == "bytes")

        // The key was decoded once: the space came from %20 and the plus stayed a plus.
        let listing = try await self.fixture.send("GET", "/wif-personal", query: "list-type=2&prefix=dir%2F", as: self.admin)
        #expect(try listing.xml().child("Contents")?.child("Key")?.text == "dir/data file+1.bin")

        let head = try await self.fixture.send("HEAD", path, as: self.admin)
        #expect(head.status == .ok)
        #expect(head.body.isEmpty)
        #expect(head.header("Content-Length") == "100000")

        let range = try await self.fixture.send("GET", path, headers: [("Range", "bytes=10-19")], as: self.admin)
        #expect(range.status == .partialContent)
        #expect(range.body == Array(body[10...19]))
        #expect(range.header("Content-Range") == "bytes 10-19/100000")
        #expect(range.header("Content-Length") == "10")
        let headRange = try await self.fixture.send("HEAD", path, headers: [("Range", "bytes=10-19")], as: self.admin)
        #expect(headRange.status == .partialContent)
        #expect(headRange.body.isEmpty)
        #expect(headRange.header("Content-Range") == "bytes 10-19/100000")
        #expect(headRange.header("Content-Length") == "10")
        let suffix = try await self.fixture.send("GET", path, headers: [("Range", "bytes=-5")], as: self.admin)
        #expect(suffix.body == Array(body.suffix(5)))
        let outside = try await self.fixture.send("GET", path, headers: [("Range", "bytes=200000-")], as: self.admin)
        #expect(outside.status == .rangeNotSatisfiable)
        #expect(outside.errorCode == "InvalidRange")

        let notModified = try await self.fixture.send("GET", path, headers: [("If-None-Match", etag)], as: self.admin)
        #expect(notModified.status == .notModified)
        #expect(notModified.body.isEmpty)
        #expect(notModified.header("ETag") == etag)
        let failed = try await self.fixture.send("GET", path, headers: [("If-Match", "\"0000\"")], as: self.admin)
        #expect(failed.status == .preconditionFailed)
        #expect(failed.errorCode == "PreconditionFailed")
        let since = try await self.fixture.send(
            "GET", path, headers: [("If-Modified-Since", "Wed, 01 May 2024 12:00:00 GMT")], as: self.admin)
        #expect(since.status == .notModified)

        let overridden = try await self.fixture.send(
            "GET", path, query: "response-content-type=text%2Fplain&response-content-disposition=attachment", as: self.admin)
        #expect(overridden.header("Content-Type") == "text/plain")
        #expect(overridden.header("Content-Disposition") == "attachment")

        #expect(try await self.fixture.send("DELETE", path, as: self.admin).status == .noContent)
        let gone = try await self.fixture.send("GET", path, as: self.admin)
        #expect(gone.status == .notFound)
        #expect(gone.errorCode == "NoSuchKey")
        // Deleting a missing key succeeds, as in S3.
        #expect(try await self.fixture.send("DELETE", path, as: self.admin).status == .noContent)
    }

    @Test("virtual-hosted requests address the same objects as path-style ones")
    func virtualHosted() async throws {
        let put = try await self.fixture.send(
            "PUT", "/vh/key.txt", body: Array("hosted".utf8), as: self.admin, host: "wif-personal.localhost:9000")
        #expect(put.status == .ok)
        let get = try await self.fixture.send("GET", "/wif-personal/vh/key.txt", as: self.admin)
        #expect(get.text == "hosted")
        let list = try await self.fixture.send("GET", "/", query: "list-type=2&prefix=vh%2F", as: self.admin, host: "wif-personal.localhost:9000")
        #expect(try list.xml().child("KeyCount")?.text == "1")
    }

    @Test("ListObjectsV2 pages with continuation tokens, rolls up at the delimiter and URL-encodes on request")
    func listing() async throws {
        for key in ["a/1", "a/2", "a/sub/x", "a/sub/y", "b c/1", "top"] {
            _ = try await self.fixture.send("PUT", "/wif-personal/" + key.replacingOccurrences(of: " ", with: "%20"), body: [1], as: self.admin)
        }
        let first = try await self.fixture.send("GET", "/wif-personal", query: "list-type=2&max-keys=2", as: self.admin).xml()
        #expect(first.children(named: "Contents").compactMap { $0.child("Key")?.text } == ["a/1", "a/2"])
        #expect(first.child("IsTruncated")?.text == "true")
        let token = try #require(first.child("NextContinuationToken")?.text)
        let encodedToken = SigV4Request.percentEncode(token, keepingSlashes: false)
        let second = try await self.fixture.send(
            "GET", "/wif-personal", query: "continuation-token=\(encodedToken)&list-type=2&max-keys=10", as: self.admin
        ).xml()
        #expect(second.children(named: "Contents").compactMap { $0.child("Key")?.text } == ["a/sub/x", "a/sub/y", "b c/1", "top"])
        #expect(second.child("IsTruncated")?.text == "false")
        #expect(second.child("ContinuationToken")?.text == token)

        let rolled = try await self.fixture.send(
            "GET", "/wif-personal", query: "delimiter=%2F&encoding-type=url&list-type=2", as: self.admin
        ).xml()
        #expect(rolled.children(named: "CommonPrefixes").compactMap { $0.child("Prefix")?.text } == ["a/", "b%20c/"])
        #expect(rolled.children(named: "Contents").compactMap { $0.child("Key")?.text } == ["top"])
        #expect(rolled.child("EncodingType")?.text == "url")

        let afterStart = try await self.fixture.send("GET", "/wif-personal", query: "list-type=2&start-after=a%2Fsub%2Fy", as: self.admin).xml()
        #expect(afterStart.children(named: "Contents").compactMap { $0.child("Key")?.text } == ["b c/1", "top"])

        let v1 = try await self.fixture.send("GET", "/wif-personal", query: "marker=a%2F2&max-keys=1&prefix=a%2F", as: self.admin).xml()
        #expect(v1.children(named: "Contents").compactMap { $0.child("Key")?.text } == ["a/sub/x"])
        #expect(v1.child("Marker")?.text == "a/2")
        #expect(v1.child("IsTruncated")?.text == "true")

        let badMax = try await self.fixture.send("GET", "/wif-personal", query: "list-type=2&max-keys=many", as: self.admin)
        #expect(badMax.errorCode == "InvalidArgument")
        let badEncoding = try await self.fixture.send("GET", "/wif-personal", query: "encoding-type=base64&list-type=2", as: self.admin)
        #expect(badEncoding.errorCode == "InvalidArgument")
        let noBucket = try await self.fixture.send("GET", "/missing-bucket", query: "list-type=2", as: self.admin)
        #expect(noBucket.errorCode == "NoSuchBucket")
    }

    @Test("DeleteObjects deletes each key, reports them unless quiet, and needs Content-MD5 or a checksum")
    func deleteObjects() async throws {
        for key in ["d/1", "d/2"] { _ = try await self.fixture.send("PUT", "/wif-personal/" + key, body: [1], as: self.admin) }
        let document = Array(
            "<Delete><Object><Key>d/1</Key></Object><Object><Key>d/2</Key></Object><Object><Key>d/never</Key></Object></Delete>".utf8)
        let missingDigest = try await self.fixture.send("POST", "/wif-personal", query: "delete", body: document, as: self.admin)
        #expect(missingDigest.errorCode == "InvalidRequest")
        #expect(missingDigest.errorMessage == "Missing required header for this request: Content-MD5")

        let reply = try await self.fixture.send(
            "POST", "/wif-personal", query: "delete", headers: [("Content-MD5", S3TestData.md5Base64(document))], body: document,
            as: self.admin)
        #expect(reply.status == .ok)
        let result = try reply.xml()
        #expect(result.name == "DeleteResult")
        #expect(result.children(named: "Deleted").compactMap { $0.child("Key")?.text } == ["d/1", "d/2", "d/never"])
        #expect(try await self.fixture.send("HEAD", "/wif-personal/d/1", as: self.admin).status == .notFound)

        let quietDocument = Array("<Delete><Quiet>true</Quiet><Object><Key>d/x</Key></Object></Delete>".utf8)
        let quiet = try await self.fixture.send(
            "POST", "/wif-personal", query: "delete",
            headers: [("x-amz-checksum-crc32", S3Checksum.compute(.crc32, of: quietDocument))], body: quietDocument, as: self.admin)
        #expect(quiet.status == .ok)
        #expect(try quiet.xml().children.isEmpty)

        let badDigest = try await self.fixture.send(
            "POST", "/wif-personal", query: "delete", headers: [("Content-MD5", S3TestData.md5Base64([1, 2, 3]))], body: document,
            as: self.admin)
        #expect(badDigest.errorCode == "BadDigest")
        let malformed = Array("<Delete><Object></Object></Delete>".utf8)
        let noKey = try await self.fixture.send(
            "POST", "/wif-personal", query: "delete", headers: [("Content-MD5", S3TestData.md5Base64(malformed))], body: malformed,
            as: self.admin)
        #expect(noKey.errorCode == "MalformedXML")
    }

    @Test("CopyObject copies the bytes and metadata, or replaces the metadata, and refuses a copy onto itself")
    func copy() async throws {
        _ = try await self.fixture.send(
            "PUT", "/wif-personal/src.txt", headers: [("Content-Type", "text/plain"), ("x-amz-meta-a", "1")], body: Array("copy me".utf8),
            as: self.admin)
        let copied = try await self.fixture.send(
            "PUT", "/wif-personal/dst.txt", headers: [("x-amz-copy-source", "/wif-personal/src.txt")], as: self.admin)
        #expect(copied.status == .ok)
        #expect(try copied.xml().name == "CopyObjectResult")
        let dst = try await self.fixture.send("GET", "/wif-personal/dst.txt", as: self.admin)
        #expect(dst.text == "copy me")
        #expect(dst.header("x-amz-meta-a") == "1")
        #expect(dst.header("Content-Type") == "text/plain")

        _ = try await self.fixture.send(
            "PUT", "/wif-personal/dst2.txt",
            headers: [("x-amz-copy-source", "wif-personal/src.txt"), ("x-amz-metadata-directive", "REPLACE"), ("x-amz-meta-b", "2")],
            as: self.admin)
        let replaced = try await self.fixture.send("HEAD", "/wif-personal/dst2.txt", as: self.admin)
        #expect(replaced.header("x-amz-meta-b") == "2")
        #expect(replaced.header("x-amz-meta-a") == nil)

        let itself = try await self.fixture.send(
            "PUT", "/wif-personal/src.txt", headers: [("x-amz-copy-source", "/wif-personal/src.txt")], as: self.admin)
        #expect(itself.errorCode == "InvalidRequest")
        let missing = try await self.fixture.send(
            "PUT", "/wif-personal/dst3.txt", headers: [("x-amz-copy-source", "/wif-personal/none.txt")], as: self.admin)
        #expect(missing.errorCode == "NoSuchKey")
    }

    @Test("unsupported subresources answer NotImplemented (501) in S3's XML")
    func notImplemented() async throws {
        let reply = try await self.fixture.send("GET", "/wif-personal/a.txt", query: "tagging", as: self.admin)
        #expect(reply.status == .notImplemented)
        #expect(reply.errorCode == "NotImplemented")
        #expect(reply.errorMessage?.contains("tagging") == true)
    }

    @Test("an unsigned request is refused in S3's XML error shape")
    func unauthenticated() async throws {
        let request = SigV4Request(method: "GET", scheme: "http", host: S3Fixture.host, path: "/wif-personal/a.txt")
        let reply = try await self.fixture.deliver(request)
        #expect(reply.status == .forbidden)
        #expect(try reply.xml().name == "Error")
        #expect(reply.errorCode != nil)
    }
}
