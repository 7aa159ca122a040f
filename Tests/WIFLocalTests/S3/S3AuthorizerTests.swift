import Foundation
import PolicyEngine
import Testing

@testable import WIFLocal

@Suite("S3 authorization")
struct S3AuthorizerTests {
    static let configuration = LocalConfiguration.default(dataDirectory: "/nonexistent-unused")
    static let time = Date(timeIntervalSince1970: 1_714_564_800)
    static let bucket = LocalConfiguration.defaultBucket

    static func session(_ kind: ProviderProfile.Kind, user: String, sessionPolicy: String? = nil) -> LocalSession {
        let profile = Self.configuration.provider(named: kind.rawValue)!
        return LocalSession(
            accessKeyId: "ASIATESTTESTTESTTEST", secretAccessKey: "secret", issuedAt: 1_714_564_000, expiresAt: 1_714_568_000,
            roleArn: "arn:aws:iam::000000000000:role/personal-store-\(kind.rawValue)", roleId: "AROAEXAMPLEROLEID0001",
            sessionName: "\(user)-session",
            identity: IdentityRecord(kind: kind, issuer: profile.issuer, subject: user, audiences: profile.clientIds),
            sessionPolicy: sessionPolicy)
    }

    static func decide(
        _ authorizer: S3Authorizer, _ session: LocalSession, _ build: (PolicyEngine.RequestContext) -> AuthorizationRequest
    ) throws -> S3Authorizer.Verdict {
        let context = try #require(authorizer.context(for: session, facts: .init(contentSHA256: "UNSIGNED-PAYLOAD", time: Self.time)))
        return authorizer.decide(build(context), bucket: Self.bucket, caller: .session(session))
    }

    @Test("each user reads and writes only their own folder, for every provider profile", arguments: ProviderProfile.Kind.allCases)
    func isolation(kind: ProviderProfile.Kind) throws {
        let authorizer = try S3Authorizer(configuration: Self.configuration)
        let alice = Self.session(kind, user: "alice")
        let bob = Self.session(kind, user: "bob")
        let home = "\(kind.rawValue)/alice/"
        for action in ["GetObject", "PutObject", "DeleteObject", "AbortMultipartUpload", "ListMultipartUploadParts"] {
            let own = try Self.decide(authorizer, alice) { .s3Object(action, bucket: Self.bucket, key: home + "notes.txt", context: $0) }
            #expect(own == .allowed, "\(kind) alice \(action) own")
            let other = try Self.decide(authorizer, bob) { .s3Object(action, bucket: Self.bucket, key: home + "notes.txt", context: $0) }
            #expect(!other.isAllowed, "\(kind) bob \(action) alice's")
        }
        #expect(try Self.decide(authorizer, alice) { .s3ListBucket(bucket: Self.bucket, prefix: home, context: $0) } == .allowed)
        #expect(try Self.decide(authorizer, alice) { .s3ListBucket(bucket: Self.bucket, prefix: home + "photos/", delimiter: "/", context: $0) } == .allowed)
        #expect(try !Self.decide(authorizer, bob) { .s3ListBucket(bucket: Self.bucket, prefix: home, context: $0) }.isAllowed)
        #expect(try !Self.decide(authorizer, alice) { .s3ListBucket(bucket: Self.bucket, prefix: nil, context: $0) }.isAllowed)
        #expect(try !Self.decide(authorizer, alice) { .s3ListBucket(bucket: Self.bucket, prefix: "\(kind.rawValue)/", context: $0) }.isAllowed)
        // A user of one provider with the same id as a user of another never reaches the other's folder.
        let otherKind = ProviderProfile.Kind.allCases.first { $0 != kind }!
        #expect(try !Self.decide(authorizer, alice) {
            .s3Object("GetObject", bucket: Self.bucket, key: "\(otherKind.rawValue)/alice/notes.txt", context: $0)
        }.isAllowed)
        #expect(try !Self.decide(authorizer, alice) { AuthorizationRequest(action: "s3:ListAllMyBuckets", resource: "arn:aws:s3:::*", context: $0) }.isAllowed)
    }

    @Test("a denial carries AWS's message: the assumed-role ARN, the action, the quoted resource and the reason")
    func message() throws {
        let authorizer = try S3Authorizer(configuration: Self.configuration)
        let bob = Self.session(.google, user: "bob")
        let verdict = try Self.decide(authorizer, bob) {
            .s3Object("GetObject", bucket: Self.bucket, key: "google/alice/notes.txt", context: $0)
        }
        #expect(
            verdict == .denied(
                message: "User: arn:aws:sts::000000000000:assumed-role/personal-store-google/bob-session is not authorized to perform: "
                    + "s3:GetObject on resource: \"arn:aws:s3:::wif-personal/google/alice/notes.txt\" "
                    + "because no identity-based policy allows the s3:GetObject action"))
    }

    @Test("a session policy limits the role, and the message says so")
    func sessionPolicy() throws {
        let authorizer = try S3Authorizer(configuration: Self.configuration)
        let readOnly = """
            {"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}
            """
        let alice = Self.session(.facebook, user: "alice", sessionPolicy: readOnly)
        let key = "facebook/alice/notes.txt"
        #expect(try Self.decide(authorizer, alice) { .s3Object("GetObject", bucket: Self.bucket, key: key, context: $0) } == .allowed)
        let put = try Self.decide(authorizer, alice) { .s3Object("PutObject", bucket: Self.bucket, key: key, context: $0) }
        guard case .denied(let message) = put else {
            Issue.record("the session policy should deny PutObject")
            return
        }
        #expect(message.hasSuffix("because no session policy allows the s3:PutObject action"))
        // The session policy never widens the role.
        let other = try Self.decide(authorizer, alice) {
            .s3Object("GetObject", bucket: Self.bucket, key: "facebook/bob/notes.txt", context: $0)
        }
        #expect(!other.isAllowed)
    }

    @Test("a bucket policy's explicit deny wins, and the message names a resource-based policy")
    func bucketPolicyDeny() throws {
        var configuration = Self.configuration
        configuration.buckets = [
            BucketDefinition(
                name: Self.bucket,
                policy: """
                    {"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:DeleteObject",
                    "Resource":"arn:aws:s3:::wif-personal/*"}]}
                    """)
        ]
        let authorizer = try S3Authorizer(configuration: configuration)
        let alice = Self.session(.amazon, user: "alice")
        let verdict = try Self.decide(authorizer, alice) {
            .s3Object("DeleteObject", bucket: Self.bucket, key: "amazon/alice/a.txt", context: $0)
        }
        guard case .denied(let message) = verdict else {
            Issue.record("the bucket policy should deny DeleteObject")
            return
        }
        #expect(message.hasSuffix("with an explicit deny in a resource-based policy"))
        #expect(try Self.decide(authorizer, alice) { .s3Object("GetObject", bucket: Self.bucket, key: "amazon/alice/a.txt", context: $0) } == .allowed)
    }

    @Test("an invalid bucket policy stops the stack with a message naming the bucket")
    func invalidBucketPolicy() {
        var configuration = Self.configuration
        configuration.buckets = [BucketDefinition(name: "broken", policy: "{\"Statement\": 5}")]
        #expect {
            try S3Authorizer(configuration: configuration)
        } throws: { error in
            (error as? LocalStackError)?.message.contains("broken") == true
        }
    }

    @Test("the administrator is allowed everything; a session of an unknown role nothing")
    func adminAndUnknownRole() throws {
        let authorizer = try S3Authorizer(configuration: Self.configuration)
        let request = AuthorizationRequest(action: "s3:DeleteBucket", resource: "arn:aws:s3:::wif-personal", context: RequestContext())
        #expect(authorizer.decide(request, bucket: Self.bucket, caller: .admin(accessKeyId: "AKIAADMIN")) == .allowed)
        var ghost = Self.session(.facebook, user: "alice")
        ghost.roleArn = "arn:aws:iam::000000000000:role/removed"
        #expect(try !Self.decide(authorizer, ghost) { .s3Object("GetObject", bucket: Self.bucket, key: "facebook/alice/a", context: $0) }.isAllowed)
    }

    @Test("the context carries the session keys and S3's signature keys")
    func context() throws {
        let authorizer = try S3Authorizer(configuration: Self.configuration)
        let alice = Self.session(.google, user: "alice")
        let context = try #require(
            authorizer.context(for: alice, facts: .init(contentSHA256: "UNSIGNED-PAYLOAD", presigned: true, time: Self.time)))
        #expect(context["accounts.google.com:sub"] == "alice")
        #expect(context["aws:userid"] == "AROAEXAMPLEROLEID0001:alice-session")
        #expect(context["s3:authType"] == "REST-QUERY-STRING")
        #expect(context["s3:signatureversion"] == "AWS4-HMAC-SHA256")
        #expect(context["s3:x-amz-content-sha256"] == "UNSIGNED-PAYLOAD")
        #expect(context["aws:SecureTransport"] == "false")
    }
}
