import Foundation
import NIOHTTP1
import Testing

@testable import S3Partition

@Suite("S3 XML documents and error answers")
struct S3XMLTests {

    // MARK: Error answers

    static func headers(_ pairs: [(String, String)]) -> HTTPHeaders { HTTPHeaders(pairs) }

    @Test("S3's error document keeps its Code, Message, RequestId and HostId")
    func s3Error() {
        let body = Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message><Key>1001/a.txt</Key>
            <RequestId>4442587FB7D0A2F9</RequestId><HostId>host-id-2</HostId></Error>
            """.utf8)
        let error = S3ErrorDocument.error(status: 404, headers: Self.headers([("x-amz-request-id", "HEADER-ID")]), body: body, bucket: "b", key: "1001/a.txt")
        #expect(error.code == .noSuchKey)
        #expect(error.message == "The specified key does not exist.")
        #expect(error.requestId == "4442587FB7D0A2F9")
        #expect(error.hostId == "host-id-2")
        #expect(error.httpStatus == 404)
        #expect(error.description == "S3Error.NoSuchKey: The specified key does not exist. (HTTP 404, bucket 'b', key '1001/a.txt', request id 4442587FB7D0A2F9)")
    }

    @Test("error replies of servers that are not AWS are read leniently")
    func s3ErrorRepliesAreReadLeniently() {
        let reply = S3ErrorDocument.error(
            status: 409, headers: [:],
            body: Array("<?xml version=\"1.0\"?><Error><Code>BucketAlreadyOwnedByYou</Code><Message>You &amp; me</Message><RequestId>18EA</RequestId></Error>".utf8),
            bucket: "b", key: nil)
        #expect(reply.code == .bucketAlreadyOwnedByYou)
        #expect(reply.message == "You & me")
        #expect(reply.requestId == "18EA")
        // HTML and empty bodies carry no code of their own: it comes from the status.
        let html = S3ErrorDocument.error(status: 502, headers: [:], body: Array("<html>Bad Gateway</html>".utf8), bucket: nil, key: nil)
        #expect(html.code == S3Error.Code("HTTP502"))
        #expect(html.requestId == nil)
        #expect(S3ErrorDocument.error(status: 409, headers: [:], body: [], bucket: nil, key: nil).code == S3Error.Code("Conflict"))
    }

    @Test("wrapped error shapes of S3-compatible servers are read", arguments: [
        "<ErrorResponse xmlns=\"https://iam.amazonaws.com/doc/2010-05-08/\"><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>nope</Message></Error><RequestId>R1</RequestId></ErrorResponse>",
        "<ErrorResponse><Errors><Error><Code>AccessDenied</Code><Message>nope</Message></Error></Errors><RequestId>R1</RequestId></ErrorResponse>",
    ])
    func wrappedShapes(body: String) {
        let error = S3ErrorDocument.error(status: 403, headers: [:], body: Array(body.utf8), bucket: "b", key: nil)
        #expect(error.code == .accessDenied)
        #expect(error.message == "nope")
        #expect(error.requestId == "R1")
    }

    @Test("answers without an error document get a code from the status", arguments: [
        (404, true, S3Error.Code.noSuchKey), (404, false, .notFound), (403, true, .accessDenied), (412, true, .preconditionFailed),
        (416, true, .invalidRange), (500, true, .internalError), (503, false, .serviceUnavailable), (429, true, S3Error.Code("TooManyRequests")),
        (418, true, S3Error.Code("HTTP418")),
    ])
    func statusCodes(status: Int, isObject: Bool, code: S3Error.Code) {
        for body in ["", "<html><body>Bad gateway</body></html>", "<Error><Message>no code</Message></Error>"] {
            let error = S3ErrorDocument.error(
                status: status, headers: Self.headers([("x-amz-request-id", "HID")]), body: Array(body.utf8), bucket: "b",
                key: isObject ? "k" : nil)
            #expect(error.code == code, "status \(status), body \(body)")
            #expect(error.requestId == "HID")
            #expect(error.httpStatus == status)
        }
        let bare = S3ErrorDocument.error(status: status, headers: [:], body: [], bucket: nil, key: nil)
        #expect(bare.message == "S3 answered HTTP \(status) without an error document")
    }

    @Test("a redirect names the bucket's region")
    func redirect() {
        let error = S3ErrorDocument.error(
            status: 301, headers: Self.headers([("x-amz-bucket-region", "eu-west-3")]),
            body: Array("<Error><Code>PermanentRedirect</Code><Message>Use the right endpoint.</Message></Error>".utf8), bucket: "b", key: nil)
        #expect(error.code == .permanentRedirect)
        #expect(error.message == "Use the right endpoint. (the bucket is in region eu-west-3)")
    }

    @Test("errors compare by code and describe themselves without control characters")
    func equality() {
        #expect(S3Error(code: .noSuchKey, message: "a") == S3Error(code: .noSuchKey, message: "b"))
        #expect(S3Error(code: .noSuchKey) != S3Error(code: .noSuchBucket))
        let error = S3Error(code: .invalidObjectName, message: "x", key: "bad\u{1B}[2Jkey")
        #expect(error.description == "S3Error.InvalidObjectName: x (key 'bad\\u{1b}[2Jkey')")
        switch error.code {
        case .invalidObjectName: break
        default: Issue.record("codes are switchable")
        }
    }

    // MARK: Listings

    @Test("a URL-encoded listing page is decoded")
    func listPage() throws {
        let body = Array("""
            <ListBucketResult><Name>b</Name><Prefix>1001%2F</Prefix><EncodingType>url</EncodingType><KeyCount>2</KeyCount>
            <IsTruncated>true</IsTruncated><NextContinuationToken>tok/en=</NextContinuationToken>
            <Contents><Key>1001%2Fa+b%2Bc%25.txt</Key><LastModified>2024-05-01T12:00:00.250Z</LastModified><ETag>&quot;abc&quot;</ETag><Size>12</Size><StorageClass>STANDARD</StorageClass></Contents>
            <Contents><Key>1001%2F%C3%A9%0A</Key><Size>0</Size></Contents>
            <CommonPrefixes><Prefix>1001%2Fphotos%2F</Prefix></CommonPrefixes>
            </ListBucketResult>
            """.utf8)
        let page = try S3Client.decodeListPage(body, status: 200, requestId: nil, bucket: "b")
        #expect(page.objects.map(\.key) == ["1001/a b+c%.txt", "1001/é\n"])
        #expect(page.objects[0].size == 12)
        #expect(page.objects[0].eTag == "abc")
        #expect(page.objects[0].storageClass == "STANDARD")
        #expect(page.objects[0].lastModified == Date(timeIntervalSince1970: 1_714_564_800.25))
        #expect(page.commonPrefixes == ["1001/photos/"])
        #expect(page.isTruncated)
        #expect(page.nextContinuationToken == "tok/en=")
    }

    @Test("in a URL-encoded page, keys without escapes are kept as they are and '+' is a space")
    func listPagePlainKeys() throws {
        let body = Array("""
            <ListBucketResult><EncodingType>url</EncodingType>
            <Contents><Key>plain/key-1.txt</Key></Contents><Contents><Key>a+b</Key></Contents><Contents><Key>caf\u{E9}</Key></Contents>
            </ListBucketResult>
            """.utf8)
        let page = try S3Client.decodeListPage(body, status: 200, requestId: nil, bucket: "b")
        #expect(page.objects.map(\.key) == ["plain/key-1.txt", "a b", "caf\u{E9}"])
    }

    @Test("listing answers that cannot be used are malformed responses", arguments: [
        ("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>", "no continuation token"),
        ("<Other/>", "not <ListBucketResult>"),
        ("<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>", "no <Key>"),
        ("<ListBucketResult><EncodingType>url</EncodingType><Contents><Key>%ZZ</Key></Contents></ListBucketResult>", "badly encoded"),
        ("not xml", "not XML"),
        ("<ListBucketResult><Contents><Key>a</Key><Size>-5</Size></Contents></ListBucketResult>", "'a' has the size '-5', not a whole number"),
        ("<ListBucketResult><Contents><Key>a</Key><Size>99999999999999999999</Size></Contents></ListBucketResult>", "not a whole number"),
        ("<ListBucketResult><Contents><Key>a</Key><Size>12kB</Size></Contents></ListBucketResult>", "'12kB', not a whole number"),
    ])
    func badListPages(body: String, fragment: String) {
        let error = #expect(throws: S3Error.self) { try S3Client.decodeListPage(Array(body.utf8), status: 200, requestId: "R", bucket: "b") }
        #expect(error?.code == .malformedResponse)
        #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "")")
    }

}
