import Foundation
import Testing
import WIFCredentials

@testable import WIFLocal

@Suite("S3 service: per-user isolation")
struct S3ServiceIsolationTests {
    @Test("alice and bob each read and write only their own folder, for every provider profile", arguments: ProviderProfile.Kind.allCases)
    func isolation(kind: ProviderProfile.Kind) async throws {
        let fixture = try S3Fixture()
        let alice = try fixture.credentials(kind, user: "alice")
        let bob = try fixture.credentials(kind, user: "bob")
        let aliceHome = "/wif-personal/\(kind.rawValue)/alice/"
        let bobHome = "/wif-personal/\(kind.rawValue)/bob/"

        #expect(try await fixture.send("PUT", aliceHome + "notes.txt", body: Array("alice's".utf8), as: alice).status == .ok)
        #expect(try await fixture.send("PUT", bobHome + "notes.txt", body: Array("bob's".utf8), as: bob).status == .ok)
        #expect(try await fixture.send("GET", aliceHome + "notes.txt", as: alice).text == "alice's")

        // Every cross-user request is AccessDenied, and changes nothing.
        let read = try await fixture.send("GET", aliceHome + "notes.txt", as: bob)
        #expect(read.status == .forbidden)
        #expect(read.errorCode == "AccessDenied")
        #expect(
            read.errorMessage
                == "User: arn:aws:sts::000000000000:assumed-role/personal-store-\(kind.rawValue)/bob-session is not authorized to perform: "
                + "s3:GetObject on resource: \"arn:aws:s3:::wif-personal/\(kind.rawValue)/alice/notes.txt\" because no "
                + "identity-based policy allows the s3:GetObject action")
        #expect(try await fixture.send("HEAD", aliceHome + "notes.txt", as: bob).status == .forbidden)
        #expect(try await fixture.send("PUT", aliceHome + "notes.txt", body: Array("overwritten".utf8), as: bob).errorCode == "AccessDenied")
        #expect(try await fixture.send("DELETE", aliceHome + "notes.txt", as: bob).errorCode == "AccessDenied")
        #expect(try await fixture.send("POST", aliceHome + "big.bin", query: "uploads", as: bob).errorCode == "AccessDenied")
        let copy = try await fixture.send(
            "PUT", bobHome + "stolen.txt", headers: [("x-amz-copy-source", aliceHome.dropFirst() + "notes.txt")], as: bob)
        #expect(copy.errorCode == "AccessDenied")
        #expect(copy.errorMessage?.contains("s3:GetObject") == true)
        #expect(try await fixture.send("GET", aliceHome + "notes.txt", as: alice).text == "alice's")

        // Listing: own folder yes; someone else's, the bucket root or the provider folder no.
        let own = try await fixture.send(
            "GET", "/wif-personal", query: "list-type=2&prefix=\(kind.rawValue)%2Falice%2F", as: alice)
        #expect(own.status == .ok)
        #expect(try own.xml().children(named: "Contents").compactMap { $0.child("Key")?.text } == ["\(kind.rawValue)/alice/notes.txt"])
        let other = try await fixture.send("GET", "/wif-personal", query: "list-type=2&prefix=\(kind.rawValue)%2Falice%2F", as: bob)
        #expect(other.errorCode == "AccessDenied")
        #expect(other.errorMessage?.contains("s3:ListBucket on resource: \"arn:aws:s3:::wif-personal\"") == true)
        #expect(try await fixture.send("GET", "/wif-personal", query: "list-type=2", as: alice).errorCode == "AccessDenied")
        #expect(try await fixture.send("GET", "/wif-personal", query: "list-type=2&prefix=\(kind.rawValue)%2F", as: alice).errorCode == "AccessDenied")
        #expect(try await fixture.send("GET", "/", as: alice).errorCode == "AccessDenied")
        #expect(try await fixture.send("PUT", "/alice-bucket", as: alice).errorCode == "AccessDenied")

        // A missing key is AccessDenied, not NoSuchKey, to a user who may not list the bucket: nothing leaks.
        let missing = try await fixture.send("GET", aliceHome + "never-written.txt", as: alice)
        #expect(missing.errorCode == "AccessDenied")
        let othersMissing = try await fixture.send("GET", aliceHome + "never-written.txt", as: bob)
        #expect(othersMissing.errorCode == "AccessDenied")
    }

    @Test("DeleteObjects deletes the caller's own keys and reports the others as AccessDenied, keeping them")
    func deleteObjectsPerKey() async throws {
        let fixture = try S3Fixture()
        let alice = try fixture.credentials(.google, user: "alice")
        let bob = try fixture.credentials(.google, user: "bob")
        _ = try await fixture.send("PUT", "/wif-personal/google/alice/a.txt", body: [1], as: alice)
        _ = try await fixture.send("PUT", "/wif-personal/google/bob/b.txt", body: [2], as: bob)
        let document = Array(
            "<Delete><Object><Key>google/alice/a.txt</Key></Object><Object><Key>google/bob/b.txt</Key></Object></Delete>".utf8)
        let reply = try await fixture.send(
            "POST", "/wif-personal", query: "delete", headers: [("Content-MD5", S3TestData.md5Base64(document))], body: document, as: alice)
        #expect(reply.status == .ok)
        let result = try reply.xml()
        #expect(result.children(named: "Deleted").compactMap { $0.child("Key")?.text } == ["google/alice/a.txt"])
        let error = try #require(result.child("Error"))
        #expect(error.child("Key")?.text == "google/bob/b.txt")
        #expect(error.child("Code")?.text == "AccessDenied")
        #expect(try await fixture.send("GET", "/wif-personal/google/bob/b.txt", as: bob).body == [2])
    }

    @Test("multipart uploads and their parts are the uploader's own")
    func multipartIsolation() async throws {
        let fixture = try S3Fixture()
        let alice = try fixture.credentials(.cognito, user: "alice")
        let bob = try fixture.credentials(.cognito, user: "bob")
        let path = "/wif-personal/cognito/alice/big.bin"
        let created = try await fixture.send("POST", path, query: "uploads", as: alice)
        let uploadId = try #require(try created.xml().child("UploadId")?.text)
        let part = try await fixture.send("PUT", path, query: "partNumber=1&uploadId=\(uploadId)", body: S3TestData.bytes(10), as: bob)
        #expect(part.errorCode == "AccessDenied")
        #expect(try await fixture.send("GET", path, query: "uploadId=\(uploadId)", as: bob).errorCode == "AccessDenied")
        #expect(try await fixture.send("DELETE", path, query: "uploadId=\(uploadId)", as: bob).errorCode == "AccessDenied")
        #expect(try await fixture.send("GET", path, query: "uploadId=\(uploadId)", as: alice).status == .ok)
        #expect(try await fixture.send("DELETE", path, query: "uploadId=\(uploadId)", as: alice).status == .noContent)
    }

    @Test("a session policy narrows the role: a read-only session cannot write its own folder")
    func sessionPolicy() async throws {
        let fixture = try S3Fixture()
        let writer = try fixture.credentials(.oidc, user: "alice")
        _ = try await fixture.send("PUT", "/wif-personal/oidc/alice/a.txt", body: Array("v1".utf8), as: writer)
        let readOnly = try fixture.credentials(
            .oidc, user: "alice",
            sessionPolicy: #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}"#)
        #expect(try await fixture.send("GET", "/wif-personal/oidc/alice/a.txt", as: readOnly).text == "v1")
        let put = try await fixture.send("PUT", "/wif-personal/oidc/alice/a.txt", body: Array("v2".utf8), as: readOnly)
        #expect(put.errorCode == "AccessDenied")
        #expect(put.errorMessage?.hasSuffix("because no session policy allows the s3:PutObject action") == true)
    }

    @Test("a bucket policy can deny what the role allows")
    func bucketPolicy() async throws {
        let fixture = try S3Fixture { configuration in
            configuration.buckets = [
                BucketDefinition(
                    name: "wif-personal",
                    policy: #"{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:DeleteObject","Resource":"arn:aws:s3:::wif-personal/*"}]}"#
                )
            ]
        }
        let alice = try fixture.credentials(.facebook, user: "alice")
        _ = try await fixture.send("PUT", "/wif-personal/facebook/alice/a.txt", body: [1], as: alice)
        let delete = try await fixture.send("DELETE", "/wif-personal/facebook/alice/a.txt", as: alice)
        #expect(delete.errorCode == "AccessDenied")
        #expect(delete.errorMessage?.hasSuffix("with an explicit deny in a resource-based policy") == true)
    }

    @Test("aws:SourceIp in a bucket policy sees the client's address")
    func sourceIp() async throws {
        let fixture = try S3Fixture { configuration in
            configuration.buckets = [
                BucketDefinition(
                    name: "wif-personal",
                    policy: #"{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:*","Resource":"arn:aws:s3:::wif-personal/*","Condition":{"NotIpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}]}"#
                )
            ]
        }
        let alice = try fixture.credentials(.google, user: "alice")
        let outside = try await fixture.send("PUT", "/wif-personal/google/alice/a.txt", body: [1], as: alice, sourceIp: "192.0.2.7")
        #expect(outside.errorCode == "AccessDenied")
        #expect(outside.errorMessage?.hasSuffix("with an explicit deny in a resource-based policy") == true)
        let inside = try await fixture.send("PUT", "/wif-personal/google/alice/a.txt", body: [1], as: alice, sourceIp: "10.1.2.3")
        #expect(inside.status == .ok)
    }

    @Test("a presigned URL of alice's reads her object and nobody else's")
    func presigned() async throws {
        let fixture = try S3Fixture()
        let alice = try fixture.credentials(.amazon, user: "alice")
        _ = try await fixture.send("PUT", "/wif-personal/amazon/alice/share.txt", body: Array("shared".utf8), as: alice)
        let own = try fixture.presigned("GET", "/wif-personal/amazon/alice/share.txt", as: alice)
        let request = SigV4Request(method: "GET", scheme: "http", host: S3Fixture.host, path: own.path, query: own.query)
        #expect(try await fixture.deliver(request).text == "shared")
        let foreign = try fixture.presigned("GET", "/wif-personal/amazon/bob/share.txt", as: alice)
        let denied = try await fixture.deliver(
            SigV4Request(method: "GET", scheme: "http", host: S3Fixture.host, path: foreign.path, query: foreign.query))
        #expect(denied.errorCode == "AccessDenied")
    }
}
