import Foundation
import PolicyEngine
import Testing
import WIFCredentials

@testable import S3Partition
import WIFTestSupport

@Suite("Partitioned buckets")
struct PartitionedBucketTests {
    /// The Facebook personal-store policy: each user reads, writes and lists only `<id>/`.
    static let policyText = """
        {
          "Version": "2012-10-17",
          "Statement": [
            {"Sid": "ListOwnFolder", "Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::bucket",
             "Condition": {"StringLike": {"s3:prefix": ["${graph.facebook.com:id}/", "${graph.facebook.com:id}/*"]}}},
            {"Sid": "ReadWriteOwnObjects", "Effect": "Allow",
             "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"],
             "Resource": "arn:aws:s3:::bucket/${graph.facebook.com:id}/*"}
          ]
        }
        """

    static func preflight(userId: String) throws -> S3Preflight {
        let session = try WebIdentitySession(
            .facebook(userId: userId, appId: "app"), role: "arn:aws:iam::111122223333:role/personal-store", sessionName: "web")
        return S3Preflight(
            identityPolicies: [try Policy.parse(Self.policyText, name: "personal-store")], session: session,
            timeSource: TestClock().timeSource)
    }

    static func withBucket(
        userId: String = "1001", template: String = PartitionPrefix.defaultTemplate, preflightUser: String? = nil, memory: MemoryS3,
        _ body: (PartitionedBucket) async throws -> Void
    ) async throws {
        try await RetryTests.withClient(memory) { client, _ in
            let preflight = try preflightUser.map { try Self.preflight(userId: $0) }
            let bucket = try PartitionedBucket(client: client, bucket: "bucket", userId: userId, template: template, preflight: preflight)
            try await body(bucket)
        }
    }

    @Test("names map under the prefix and listings return names without it")
    func namesAndListing() async throws {
        let memory = MemoryS3()
        memory.store([9], key: "10012/not-mine.txt")
        memory.store([9], key: "1002/other.txt")
        try await Self.withBucket(memory: memory) { files in
            try await files.put("notes/a.txt", bytes: Array("a".utf8))
            try await files.put("notes/b.txt", bytes: Array("bb".utf8))
            try await files.put("top.txt", bytes: [])
            #expect(memory.object(key: "1001/notes/a.txt") == Array("a".utf8))
            let all = try await files.list().objects.reduce(into: [String]()) { $0.append($1.name) }
            #expect(all == ["notes/a.txt", "notes/b.txt", "top.txt"])
            let notes = try await files.list(prefix: "notes/").objects.reduce(into: [PartitionObject]()) { $0.append($1) }
            #expect(notes.map(\.name) == ["notes/a.txt", "notes/b.txt"])
            #expect(notes.map(\.key) == ["1001/notes/a.txt", "1001/notes/b.txt"])
            #expect(notes.map(\.size) == [1, 2])
            let listRequests = memory.log.filter { $0.query["list-type"] == "2" }
            #expect(listRequests.map { $0.query["prefix"] } == ["1001/", "1001/notes/"], "a listing always carries the prefix")

            #expect(try await files.get("notes/b.txt").bytes == Array("bb".utf8))
            #expect(try await files.head("notes/b.txt").contentLength == 2)
            try await files.delete("top.txt")
            let result = try await files.delete(["notes/a.txt", "notes/b.txt"])
            #expect(result.deleted == ["notes/a.txt", "notes/b.txt"])
            #expect(try await files.list().objects.reduce(0) { count, _ in count + 1 } == 0)
            #expect(memory.object(key: "10012/not-mine.txt") != nil)
        }
    }

    @Test("refused names send nothing", arguments: ["", "../1002/other.txt", "/abs", "a//b", "a\\b", "x\u{0}", "dir/"])
    func refusedNamesSendNothing(name: String) async throws {
        let memory = MemoryS3()
        try await Self.withBucket(memory: memory) { files in
            for operation in 0..<5 {
                let error = await #expect(throws: S3Error.self) {
                    switch operation {
                    case 0: try await files.put(name, bytes: [1])
                    case 1: _ = try await files.get(name)
                    case 2: _ = try await files.head(name)
                    case 3: try await files.delete(name)
                    default: _ = try await files.delete(["ok.txt", name])
                    }
                }
                #expect(error?.code == .invalidObjectName)
            }
            #expect(memory.log.isEmpty)
        }
    }

    @Test("the pre-flight check lets a user's own requests through")
    func preflightAllows() async throws {
        let memory = MemoryS3()
        try await Self.withBucket(preflightUser: "1001", memory: memory) { files in
            try await files.put("mine.txt", bytes: [1])
            _ = try await files.get("mine.txt")
            var count = 0
            for try await page in try files.list(delimiter: "/") { count += page.objects.count }
            #expect(count == 1)
            try await files.delete("mine.txt")
            #expect(memory.log.count == 4)
        }
    }

    @Test("the pre-flight check refuses another user's partition with the explanation, sending nothing")
    func preflightDenies() async throws {
        let memory = MemoryS3()
        // The bucket is bound to 1002's prefix but the session is 1001's: every request would be refused by S3.
        try await Self.withBucket(userId: "1002", preflightUser: "1001", memory: memory) { files in
            let error = await #expect(throws: S3Error.self) { _ = try await files.get("secret.txt") }
            #expect(error?.code == .preflightDenied)
            let denial = try #require(error?.preflightDenial)
            #expect(denial.action == "s3:GetObject")
            #expect(denial.resource == "arn:aws:s3:::bucket/1002/secret.txt")
            #expect(denial.outcome == .implicitDeny)
            #expect(denial.text.hasPrefix("IMPLICIT DENY"))
            #expect(denial.text.contains("ReadWriteOwnObjects"))
            #expect(error?.message.contains("the local policy check denies s3:GetObject on arn:aws:s3:::bucket/1002/secret.txt") == true)

            let list = #expect(throws: S3Error.self) { _ = try files.list() }
            #expect(list?.preflightDenial?.action == "s3:ListBucket")
            #expect(list?.preflightDenial?.text.contains("s3:prefix") == true)
            await #expect(throws: S3Error.self) { try await files.put("x", bytes: [1]) }
            await #expect(throws: S3Error.self) { try await files.delete("x") }
            #expect(memory.log.isEmpty, "denied requests are never sent")
        }
    }

    @Test("a template puts the id where it says")
    func template() async throws {
        let memory = MemoryS3()
        try await Self.withBucket(template: "facebook/{id}/", memory: memory) { files in
            #expect(files.prefix.value == "facebook/1001/")
            try await files.put("a.txt", bytes: [1])
            #expect(memory.object(key: "facebook/1001/a.txt") == [1])
        }
    }

    @Test("a key outside the partition in a listing is an error, not a silent leak")
    func foreignKeysInListing() async throws {
        let memory = MemoryS3()
        let page = "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>1001/a</Key><Size>1</Size></Contents>"
            + "<Contents><Key>1002/b</Key><Size>1</Size></Contents></ListBucketResult>"
        memory.inject(.reply(.response(status: 200, headers: [], body: Array(page.utf8))), when: { $0.query["list-type"] != nil })
        try await Self.withBucket(memory: memory) { files in
            let error = await #expect(throws: S3Error.self) {
                for try await _ in try files.list() {}
            }
            #expect(error?.code == .malformedResponse)
            #expect(error?.message.contains("'1002/b', which is outside the partition '1001/'") == true)
        }
    }
}
