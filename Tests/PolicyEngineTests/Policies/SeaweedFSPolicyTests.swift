import Foundation
import Testing

import PolicyEngine

/// `policies/seaweedfs/`: the per-user folder policy as SeaweedFS evaluates it, with the token's `sub` in
/// `${jwt:sub}`, and its trust policy, which names the OIDC provider by its name in SeaweedFS's config.
///
/// SeaweedFS puts the verified token's claims in the request context as `jwt:<claim>`; the contexts here
/// carry exactly that (and, where said, the AWS-style `<issuer>:sub` too, which SeaweedFS does not set).
@Suite("SeaweedFS policies")
struct SeaweedFSPolicyTests {
    static let files = ["seaweedfs/personal-store.json", "seaweedfs/trust.json"]
    static let roleArn = "arn:aws:iam::000000000000:role/personal-store"
    static let providerName = "wif-local"
    static let bucketARN = "arn:aws:s3:::\(ShippedPolicies.bucket)"
    static let objectActions = ["GetObject", "PutObject", "DeleteObject", "AbortMultipartUpload", "ListMultipartUploadParts"]

    func simulator() throws -> PolicySimulator {
        PolicySimulator(identityPolicies: [try ShippedPolicies.policy("seaweedfs/personal-store.json", kind: .identity)])
    }

    /// A request by the role session of the user whose token's `sub` is `subject` (nil: a context without
    /// `jwt:sub`), with extra keys.
    func context(_ subject: String?, _ extra: [String: ContextValue] = [:]) throws -> RequestContext {
        var values = extra
        if let subject { values["jwt:sub"] = ContextValue(subject) }
        let principal = try RequestPrincipal.assumedRole(roleArn: Self.roleArn, sessionName: "wif-user")
        return RequestContext(principal: principal, time: PolicySimulator.defaultTime, values: values)
    }

    /// `ListBucket` with `s3:prefix` as S3 sets it: the empty string when the request has no prefix.
    func list(_ sim: PolicySimulator, prefix: String?, as subject: String?) throws -> Decision {
        sim.decide(.s3("ListBucket"), Self.bucketARN, as: try self.context(subject, ["s3:prefix": ContextValue(prefix ?? "")]))
    }

    func object(_ key: String) -> String { ShippedPolicies.object(key) }

    @Test(arguments: Self.files)
    func validatesWithoutErrorsOrWarnings(file: String) throws {
        let kind = ShippedPolicies.kind(of: file)
        let result = Policy.validate(try ShippedPolicies.text(file), kind: kind, name: file)
        #expect(result.diagnostics.isEmpty, "\(file): \(result.diagnostics.map(\.description))")
        #expect(try #require(result.policy).version == .v2012_10_17, "${jwt:sub} is substituted only under 2012-10-17")
    }

    @Test func thePermissionPolicyIsAlsoValidAsASessionPolicyOrBoundary() throws {
        for kind in [PolicyKind.session, .permissionsBoundary] {
            let result = Policy.validate(try ShippedPolicies.text("seaweedfs/personal-store.json"), kind: kind, name: "personal-store")
            #expect(result.diagnostics.isEmpty, "\(kind): \(result.diagnostics.map(\.description))")
        }
    }

    @Test func aUserReachesTheirOwnFolder() throws {
        let sim = try self.simulator()
        let me = try self.context("alice")
        for action in Self.objectActions {
            for key in ["alice/a.txt", "alice/photos/2024/holiday picture.jpg", "alice/", "alice/big.bin"] {
                let decision = sim.decide(.s3(action), self.object(key), as: me)
                #expect(decision == .allow, "\(action) \(key): \(sim.explain(.s3(action), self.object(key), as: me).text)")
            }
        }
        for prefix in ["alice/", "alice/photos/", "alice/photos/2024-"] {
            #expect(try self.list(sim, prefix: prefix, as: "alice") == .allow, "prefix \(prefix)")
        }
        #expect(sim.decide(.s3("GetObject"), self.object("alice/a.txt"), as: me).statements.map(\.sid) == ["ReadWriteOwnObjects"])
        #expect(try self.list(sim, prefix: "alice/", as: "alice").statements.map(\.sid) == ["ListOwnFolder"])
    }

    @Test func nothingOfAnotherUserNorTheBucketRoot() throws {
        let sim = try self.simulator()
        let me = try self.context("alice")
        for action in Self.objectActions {
            for key in ["bob/a.txt", "bob/", "alicex/a.txt", "a.txt", "alice", "ALICE/a.txt"] {
                #expect(sim.decide(.s3(action), self.object(key), as: me) == .implicitDeny, "\(action) \(key)")
            }
        }
        // The whole bucket, another folder, a prefix of another user's folder, the folder without its slash.
        for prefix in [nil, "", "bob/", "b", "alice", "alic", "*"] as [String?] {
            #expect(try self.list(sim, prefix: prefix, as: "alice") == .implicitDeny, "prefix \(prefix.debugDescription)")
        }
        // Another bucket, even at the same key.
        #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::other-bucket/alice/a.txt", as: me) == .implicitDeny)
    }

    @Test func bucketAndAccountActionsAreNotGranted() throws {
        let sim = try self.simulator()
        let me = try self.context("alice")
        for action in ["CreateBucket", "DeleteBucket", "PutBucketPolicy", "GetBucketPolicy", "PutBucketAcl", "ListBucketMultipartUploads"] {
            #expect(sim.decide(.s3(action), Self.bucketARN, as: me) == .implicitDeny, "\(action)")
        }
        #expect(sim.decide(.s3("ListAllMyBuckets"), "*", as: me) == .implicitDeny)
        #expect(sim.decide(.s3("PutObjectAcl"), self.object("alice/a.txt"), as: me) == .implicitDeny)
    }

    /// Ids that break naive pattern building: the id is literal text, never a wildcard or a path.
    @Test(arguments: PersonalStorePolicyTests.adversarialIds)
    func anIdIsLiteralText(id: String) throws {
        let sim = try self.simulator()
        let me = try self.context(id)
        #expect(sim.decide(.s3("GetObject"), self.object("\(id)/a.txt"), as: me) == .allow, "own folder of \(id.debugDescription)")
        for victim in PersonalStorePolicyTests.victims where victim != id {
            for action in ["GetObject", "PutObject", "DeleteObject"] {
                let key = "\(victim)/a.txt"
                #expect(sim.decide(.s3(action), self.object(key), as: me) == .implicitDeny, "\(id.debugDescription) → \(action) \(key)")
            }
            #expect(try self.list(sim, prefix: "\(victim)/", as: id) == .implicitDeny, "\(id.debugDescription) lists \(victim)/")
        }
    }

    @Test func idsThatArePrefixesOfEachOtherStayApart() throws {
        let sim = try self.simulator()
        #expect(sim.decide(.s3("GetObject"), self.object("123/a.txt"), as: try self.context("12")) == .implicitDeny)
        #expect(sim.decide(.s3("GetObject"), self.object("12/a.txt"), as: try self.context("123")) == .implicitDeny)
        #expect(try self.list(sim, prefix: "123/", as: "12") == .implicitDeny)
        #expect(try self.list(sim, prefix: "12", as: "12") == .implicitDeny, "without its slash the prefix also lists 123/")
    }

    @Test func withoutJwtSubNothingIsAllowed() throws {
        // A context without the variable (AWS's `<issuer>:sub` instead) matches no statement: the
        // variable resolves to nothing, and nothing widens.
        let sim = try self.simulator()
        let aws = try self.context(nil, ["wif.localhost:sub": "alice"])
        for action in Self.objectActions {
            #expect(sim.decide(.s3(action), self.object("alice/a.txt"), as: aws) == .implicitDeny, "\(action)")
        }
        #expect(try self.list(sim, prefix: "alice/", as: nil) == .implicitDeny)
    }

    @Test func anAWSStylePolicyGrantsNothingOnSeaweedFS() throws {
        // The OIDC policy names `${oidc.example.com:sub}`, which SeaweedFS never sets: on SeaweedFS it is
        // refused, which is why the engine has its own variant.
        let aws = PolicySimulator(identityPolicies: [try ShippedPolicies.policy("oidc/personal-store.json", kind: .identity)])
        #expect(aws.decide(.s3("GetObject"), self.object("alice/a.txt"), as: try self.context("alice")) == .implicitDeny)
    }

    // MARK: Trust

    func assume(_ provider: String, action: String = "sts:AssumeRoleWithWebIdentity") throws -> Decision {
        let trust = try ShippedPolicies.policy("seaweedfs/trust.json", kind: .trust)
        let context = RequestContext(
            principal: .webIdentity(provider: provider), time: PolicySimulator.defaultTime,
            values: ["jwt:sub": "alice", "sts:RoleSessionName": "wif-alice"])
        return PolicyEvaluator(resourcePolicy: trust).evaluate(AuthorizationRequest(action: action, resource: Self.roleArn, context: context))
    }

    @Test func theNamedProviderMayAssumeTheRole() throws {
        let decision = try self.assume(Self.providerName)
        #expect(decision == .allow)
        #expect(decision.statements.map(\.sid) == ["IssuerUsers"])
    }

    @Test(arguments: [
        "https://wif.localhost", "wif.localhost", "arn:aws:iam::000000000000:oidc-provider/wif.localhost", "accounts.google.com",
        "WIF-LOCAL", "wif-local-2", "*",
    ])
    func anyOtherProviderMayNot(provider: String) throws {
        #expect(try self.assume(provider) == .implicitDeny, "\(provider)")
    }

    @Test func otherActionsAreNotTrusted() throws {
        for action in ["sts:AssumeRole", "sts:AssumeRoleWithSAML", "sts:TagSession", "s3:GetObject"] {
            #expect(try self.assume(Self.providerName, action: action) == .implicitDeny, "\(action)")
        }
    }
}
