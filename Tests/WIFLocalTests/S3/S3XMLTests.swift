import Foundation
import Testing

@testable import WIFLocal
import WIFFoundation

@Suite("S3 XML documents")
struct S3XMLTests {
    static let owner = S3XML.Owner(id: "abc123", displayName: "000000000000")
    static let date = Date(timeIntervalSince1970: 1_714_564_800.5)

    static func parse(_ document: String) throws -> XMLTreeElement {
        try S3RequestXML.parse(Array(document.utf8))
    }

    @Test("ListAllMyBucketsResult lists the buckets with their creation dates")
    func listBuckets() throws {
        let xml = S3XML.listBuckets(.init(buckets: [BucketInfo(name: "b1", creationDate: Self.date)]), owner: Self.owner)
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"))
        #expect(xml.contains("<ListAllMyBucketsResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"))
        let root = try Self.parse(xml)
        let bucket = try #require(root.child("Buckets")?.child("Bucket"))
        #expect(bucket.child("Name")?.text == "b1")
        #expect(bucket.child("CreationDate")?.text == "2024-05-01T12:00:00.500Z")
        #expect(root.child("Owner")?.child("ID")?.text == "abc123")
    }

    @Test("ListBucketResult v2 echoes the parameters, URL-encodes keys when asked and names owners when fetched")
    func listObjectsV2() throws {
        let result = ListObjectsResult(
            objects: [ObjectSummary(key: "dir/a b+c.txt", size: 12, etag: "\"e1\"", lastModified: Self.date)],
            commonPrefixes: ["dir/sub dir/"], isTruncated: true, nextContinuationToken: "token-2")
        let echo = S3XML.ListingEcho(bucket: "b1", prefix: "dir/", delimiter: "/", maxKeys: 2, urlEncoded: true, fetchOwner: true)
        let root = try Self.parse(S3XML.listObjectsV2(result, echo: echo, continuationToken: "token-1", startAfter: nil, owner: Self.owner))
        #expect(root.name == "ListBucketResult")
        #expect(root.child("Name")?.text == "b1")
        #expect(root.child("Prefix")?.text == "dir/")
        #expect(root.child("Delimiter")?.text == "/")
        #expect(root.child("MaxKeys")?.text == "2")
        #expect(root.child("EncodingType")?.text == "url")
        #expect(root.child("KeyCount")?.text == "2")
        #expect(root.child("IsTruncated")?.text == "true")
        #expect(root.child("ContinuationToken")?.text == "token-1")
        #expect(root.child("NextContinuationToken")?.text == "token-2")
        #expect(root.child("StartAfter") == nil)
        let contents = try #require(root.child("Contents"))
        #expect(contents.child("Key")?.text == "dir/a%20b%2Bc.txt")
        #expect(contents.child("ETag")?.text == "\"e1\"")
        #expect(contents.child("Size")?.text == "12")
        #expect(contents.child("LastModified")?.text == "2024-05-01T12:00:00.500Z")
        #expect(contents.child("StorageClass")?.text == "STANDARD")
        #expect(contents.child("Owner")?.child("DisplayName")?.text == "000000000000")
        #expect(root.child("CommonPrefixes")?.child("Prefix")?.text == "dir/sub%20dir/")
    }

    @Test("ListBucketResult v2 without encoding or owner writes keys as they are, escaped for XML")
    func listObjectsV2Plain() throws {
        let result = ListObjectsResult(
            objects: [ObjectSummary(key: "a<&>\"'.txt", size: 0, etag: "\"e\"", lastModified: Self.date)], commonPrefixes: [],
            isTruncated: false, nextContinuationToken: nil)
        let echo = S3XML.ListingEcho(bucket: "b1", prefix: "", delimiter: nil, maxKeys: 1000, urlEncoded: false, fetchOwner: false)
        let xml = S3XML.listObjectsV2(result, echo: echo, continuationToken: nil, startAfter: "a", owner: Self.owner)
        #expect(xml.contains("<Key>a&lt;&amp;&gt;&quot;&apos;.txt</Key>"))
        let root = try Self.parse(xml)
        #expect(root.child("Contents")?.child("Key")?.text == "a<&>\"'.txt")
        #expect(root.child("Contents")?.child("Owner") == nil)
        #expect(root.child("NextContinuationToken") == nil)
        #expect(root.child("Delimiter") == nil)
        #expect(root.child("StartAfter")?.text == "a")
    }

    @Test("ListBucketResult v1 carries Marker and, with a delimiter, NextMarker")
    func listObjectsV1() throws {
        let result = ListObjectsResult(
            objects: [ObjectSummary(key: "a/1", size: 1, etag: "\"e\"", lastModified: Self.date)], commonPrefixes: ["a/z/"],
            isTruncated: true, nextContinuationToken: "opaque")
        let withDelimiter = S3XML.ListingEcho(bucket: "b1", prefix: "a/", delimiter: "/", maxKeys: 2, urlEncoded: false, fetchOwner: true)
        let root = try Self.parse(S3XML.listObjectsV1(result, echo: withDelimiter, marker: "a/0", owner: Self.owner))
        #expect(root.child("Marker")?.text == "a/0")
        #expect(root.child("NextMarker")?.text == "a/z/")
        #expect(root.child("KeyCount") == nil)
        #expect(root.child("Contents")?.child("Owner") != nil)
        let noDelimiter = S3XML.ListingEcho(bucket: "b1", prefix: "a/", delimiter: nil, maxKeys: 2, urlEncoded: false, fetchOwner: true)
        #expect(try Self.parse(S3XML.listObjectsV1(result, echo: noDelimiter, marker: "", owner: Self.owner)).child("NextMarker") == nil)
    }

    @Test("multipart documents carry the bucket, key, upload id and parts")
    func multipart() throws {
        let initiate = try Self.parse(S3XML.initiateMultipartUpload(bucket: "b1", key: "k&1", uploadId: "u1"))
        #expect(initiate.name == "InitiateMultipartUploadResult")
        #expect(initiate.child("Key")?.text == "k&1")
        #expect(initiate.child("UploadId")?.text == "u1")

        let complete = try Self.parse(S3XML.completeMultipartUpload(location: "http://h/b1/k", bucket: "b1", key: "k", etag: "\"x-2\""))
        #expect(complete.name == "CompleteMultipartUploadResult")
        #expect(complete.child("ETag")?.text == "\"x-2\"")
        #expect(complete.child("Location")?.text == "http://h/b1/k")

        let upload = MultipartUploadInfo(uploadId: "u1", bucket: "b1", key: "k", initiated: Self.date, attributes: ObjectAttributes())
        let parts = ListPartsResult(
            upload: upload, parts: [PartInfo(partNumber: 3, etag: "\"p3\"", size: 5, lastModified: Self.date)], isTruncated: true,
            nextPartNumberMarker: 3)
        let list = try Self.parse(S3XML.listParts(parts, partNumberMarker: 2, maxParts: 1, owner: Self.owner, initiator: Self.owner))
        #expect(list.name == "ListPartsResult")
        #expect(list.child("PartNumberMarker")?.text == "2")
        #expect(list.child("NextPartNumberMarker")?.text == "3")
        #expect(list.child("IsTruncated")?.text == "true")
        #expect(list.child("Part")?.child("PartNumber")?.text == "3")
        #expect(list.child("Part")?.child("Size")?.text == "5")
    }

    @Test("DeleteResult lists deletions unless quiet, and always the errors")
    func deleteResult() throws {
        let outcomes: [S3XML.DeleteOutcome] = [
            .deleted(key: "a"), .failed(key: "b", code: "AccessDenied", message: "Access Denied"), .deleted(key: "c"),
        ]
        let loud = try Self.parse(S3XML.deleteResult(outcomes, quiet: false))
        #expect(loud.children(named: "Deleted").map { $0.child("Key")?.text } == ["a", "c"])
        #expect(loud.child("Error")?.child("Code")?.text == "AccessDenied")
        let quiet = try Self.parse(S3XML.deleteResult(outcomes, quiet: true))
        #expect(quiet.children(named: "Deleted").isEmpty)
        #expect(quiet.children(named: "Error").count == 1)
    }

    @Test("LocationConstraint is empty for us-east-1 and names other regions")
    func location() throws {
        #expect(try Self.parse(S3XML.location(region: "us-east-1")).text == "")
        #expect(try Self.parse(S3XML.location(region: "eu-west-3")).text == "eu-west-3")
    }

    // MARK: Parsing request bodies

    @Test("a Delete document with a namespace, entities, CDATA and comments parses as S3 reads it")
    func parseDelete() throws {
        let document = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- a comment -->
            <Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
              <Quiet>true</Quiet>
              <Object><Key>a&amp;b &#x20AC; &#65;</Key></Object>
              <Object><Key><![CDATA[<raw> & text]]></Key><VersionId>null</VersionId></Object>
              <Object><Key> spaced key </Key></Object>
              <s3:Object xmlns:s3="x"><s3:Key>prefixed</s3:Key></s3:Object>
            </Delete>
            """
        let root = try Self.parse(document)
        #expect(root.name == "Delete")
        #expect(root.child("Quiet")?.text == "true")
        let keys = root.children(named: "Object").compactMap { $0.child("Key")?.text }
        #expect(keys == ["a&b € A", "<raw> & text", " spaced key ", "prefixed"])
    }

    @Test(
        "malformed or hostile documents are MalformedXML naming the problem",
        arguments: [
            ("", "empty"),
            ("<Delete>", "not closed"),
            ("<Delete></Remove>", "closes"),
            ("<Delete/><Delete/>", "after the root"),
            ("<!DOCTYPE d [<!ENTITY x \"y\">]><Delete>&x;</Delete>", "document type"),
            ("<Delete>&x;</Delete>", "predefines"),
            ("<Delete>&#0;</Delete>", "predefines"),
            ("<Delete a=b></Delete>", "quoted"),
            ("<a><b><c><d><e><f><g><h><i></i></h></g></f></e></d></c></b></a>", "deeper"),
            ("text", "expected an element"),
        ]
    )
    func malformed(document: String, reason: String) {
        #expect {
            try Self.parse(document)
        } throws: { error in
            guard let error = error as? AWSErrorResponse else { return false }
            return error.code == "MalformedXML" && error.message.contains(reason)
        }
    }

    @Test("the element limit bounds the cost of a body")
    func elementLimit() throws {
        let many = "<Delete>" + String(repeating: "<Object/>", count: 20) + "</Delete>"
        #expect(throws: AWSErrorResponse.self) {
            try S3RequestXML.parse(Array(many.utf8), limits: XMLReader.Limits(maximumDepth: 8, maximumElements: 10))
        }
        #expect(try S3RequestXML.parse(Array(many.utf8)).children.count == 20)
    }

    @Test("CompleteMultipartUpload parts are read with their numbers, entity tags and checksums")
    func completedParts() throws {
        let body = """
            <CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
              <Part><ETag>"e1"</ETag><PartNumber>1</PartNumber><ChecksumCRC32>AAAAAA==</ChecksumCRC32></Part>
              <Part><PartNumber> 2 </PartNumber><ETag>&quot;e2&quot;</ETag></Part>
            </CompleteMultipartUpload>
            """
        let parts = try S3Service.completedParts(Array(body.utf8))
        #expect(
            parts == [
                CompletedPart(partNumber: 1, etag: "\"e1\"", checksums: [.crc32: "AAAAAA=="]), CompletedPart(partNumber: 2, etag: "\"e2\""),
            ])
        #expect {
            try S3Service.completedParts(Array("<CompleteMultipartUpload><Part><ETag>x</ETag></Part></CompleteMultipartUpload>".utf8))
        } throws: { ($0 as? AWSErrorResponse)?.message.contains("PartNumber") == true }
        #expect {
            try S3Service.completedParts(Array("<Other/>".utf8))
        } throws: { ($0 as? AWSErrorResponse)?.code == "MalformedXML" }
    }
}
