import Foundation
import Testing

@testable import WIFEngines

/// The documents and names a Ceph RGW federation plan sends, checked without a gateway.
@Suite("Ceph RGW federation plans")
struct CephRGWFederationPlanTests {
    static let issuer = "http://127.0.0.1:4566"

    static func plan(_ strategy: PartitionStrategy, users: [String] = ["alice", "bob"]) -> CephRGWFederationPlan {
        CephRGWFederationPlan(issuer: Self.issuer, clientIds: ["wif-local"], bucket: "wif-personal", strategy: strategy, users: users)
    }

    /// The repository's `policies/` folder, found from this file (`Tests/WIFEnginesTests/CephRGW/`).
    static let policies = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("policies/ceph-rgw")

    /// A file of `policies/ceph-rgw/` with its placeholders filled in, parsed.
    static func shipped(_ file: String, user: String = "USER_ID") throws -> NSObject {
        let text = try String(contentsOf: Self.policies.appendingPathComponent(file), encoding: .utf8)
            .replacingOccurrences(of: "USER_ID", with: user)
            .replacingOccurrences(of: "oidc.example.com", with: "127.0.0.1:4566")
            .replacingOccurrences(of: "OIDC_CLIENT_ID", with: "wif-local")
            .replacingOccurrences(of: "BROKER_CLIENT_ID", with: "wif-broker")
        return try Self.json(text)
    }

    static func json(_ text: String) throws -> NSObject {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSObject)
    }

    @Test func rolePerUserSendsTheShippedDocumentsForEachUser() throws {
        let plan = Self.plan(.rolePerUser)
        #expect(plan.roles.map(\.name) == ["wif-alice", "wif-bob"])
        for (role, user) in zip(plan.roles, ["alice", "bob"]) {
            #expect(try Self.json(role.trustPolicy) == Self.shipped("role-per-user/trust.json", user: user))
            #expect(role.policies.map(\.name) == ["personal-store"])
            #expect(try Self.json(role.policies[0].document) == Self.shipped("role-per-user/personal-store.json", user: user))
        }
        #expect(plan.roleARN(for: "alice") == "arn:aws:iam:::role/wif-alice")
    }

    @Test func sessionTagsSendOneRoleWithAPolicyPerUser() throws {
        let plan = Self.plan(.sessionTags)
        #expect(plan.roles.count == 1)
        let role = try #require(plan.roles.first)
        #expect(role.name == "wif-tagged")
        #expect(plan.roleARN(for: "alice") == "arn:aws:iam:::role/wif-tagged")
        #expect(try Self.json(role.trustPolicy) == Self.shipped("session-tags/trust.json"))
        #expect(role.policies.map(\.name) == ["user-alice", "user-bob"])
        for (policy, user) in zip(role.policies, ["alice", "bob"]) {
            #expect(try Self.json(policy.document) == Self.shipped("session-tags/user.json", user: user))
        }
    }

    @Test func sessionPolicySendsOneRoleForTheBucketAndRegistersTheBroker() throws {
        let plan = Self.plan(.sessionPolicy, users: [])
        let role = try #require(plan.roles.first)
        #expect(plan.roles.count == 1)
        #expect(role.name == "wif-broker")
        #expect(try Self.json(role.trustPolicy) == Self.shipped("session-policy/trust.json"))
        #expect(try Self.json(role.policies[0].document) == Self.shipped("session-policy/shared-bucket.json"))
        #expect(try Self.json(plan.sessionPolicy(for: "alice")) == Self.shipped("session-policy/session-policy.json", user: "alice"))
        #expect(plan.registeredClientIds == ["wif-local", "wif-broker"])
        #expect(Self.plan(.rolePerUser).registeredClientIds == ["wif-local"])
    }

    @Test(arguments: PartitionStrategy.all)
    func documentsAreCompactJSONWithoutVariables(strategy: PartitionStrategy) throws {
        // RGW refuses documents with whitespace and policy variables in Resource.
        let plan = Self.plan(strategy, users: ["alice", "Dörte \"the\" user"])
        let documents = plan.roles.flatMap { [$0.trustPolicy] + $0.policies.map(\.document) } + [plan.sessionPolicy(for: "Dörte \"the\" user")]
        for document in documents {
            #expect(!document.contains(" ") || document.contains("Dörte \\\"the\\\" user"), "\(document)")
            #expect(!document.contains("\n"))
            #expect(!document.contains("${"))
            _ = try Self.json(document)
        }
    }

    @Test func namesAndARNs() throws {
        let plan = CephRGWFederationPlan(issuer: "https://sso.example.com/realms/app/", clientIds: ["app"], bucket: "b-1", strategy: .rolePerUser)
        #expect(plan.providerKey == "sso.example.com/realms/app")
        #expect(plan.providerARN == "arn:aws:iam:::oidc-provider/sso.example.com/realms/app")
        #expect(PartitionStrategy(name: "session-tags") == .sessionTags)
        #expect(PartitionStrategy(name: "nope") == nil)
        #expect(PartitionStrategy.all.map(\.name) == ["role-per-user", "session-tags", "session-policy"])
    }

    @Test func userIdsThatAreNotIAMNamesGetADistinctValidRoleName() throws {
        let plan = Self.plan(.rolePerUser, users: [])
        let names = ["us-east-1:0f1e2d3c", "us-east-1:0f1e2d3d", "ünï", String(repeating: "x", count: 80), String(repeating: "x", count: 81)]
            .map { plan.roleName(for: $0) }
        #expect(Set(names).count == names.count)
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+=,.@_-")
        for name in names {
            #expect(name.count <= 64, "\(name)")
            #expect(name.allSatisfy { allowed.contains($0) }, "\(name)")
            #expect(name.hasPrefix("wif-"))
        }
        #expect(plan.roleName(for: "alice.smith@example.com") == "wif-alice.smith@example.com")
        #expect(plan.userPolicyName(for: "alice") == "user-alice")
    }

    @Test(arguments: [
        ("*", "wildcard"), ("a?", "wildcard"), ("${x}", "wildcard"), ("a/b", "'/'"), ("..", "'.'"), ("", "empty"),
    ])
    func userIdsThatWouldWidenOrMoveAFolderAreRefused(user: String, reason: String) throws {
        let error = try #require(throws: EngineSetupError.self) { try Self.plan(.rolePerUser, users: [user]).validate() }
        #expect(error.code == .invalidUserId)
        #expect(error.reason.contains(reason), "\(error.reason)")
    }

    @Test func badPlansAreRefusedWithTheSettingNamed() throws {
        func problem(_ change: (inout CephRGWFederationPlan) -> Void) throws -> String {
            var plan = Self.plan(.rolePerUser)
            change(&plan)
            let error = try #require(throws: EngineSetupError.self) { try plan.validate() }
            return error.reason
        }
        #expect(try problem { $0.issuer = "wif.localhost" }.contains("issuer must be an http or https URL"))
        #expect(try problem { $0.issuer = "http://" }.contains("issuer must be an http or https URL"))
        #expect(try problem { $0.clientIds = [] }.contains("at least one client id"))
        #expect(try problem { $0.thumbprints = ["abc"] }.contains("40 hex digits"))
        #expect(try problem { $0.bucket = "no/slash" }.contains("bucket name"))
        #expect(try problem { $0.namePrefix = "wif role" }.contains("name prefix"))
        #expect(try problem { $0.users = ["alice", "alice"] }.contains("listed twice"))
        #expect(try problem {
            $0.strategy = .sessionPolicy
            $0.brokerClientId = "wif-local"
        }.contains("users would get tokens the shared role accepts"))
        var good = Self.plan(.rolePerUser)
        good.thumbprints = [String(repeating: "aB", count: 20)]
        try good.validate()
    }

    @Test func providersAreMergedNotFlapped() {
        #expect(CephRGWFederation.union(["wif-local"], ["wif-local", "wif-broker"]) == ["wif-local", "wif-broker"])
        #expect(CephRGWFederation.union(["a", "b"], ["b", "a"]) == ["a", "b"])
    }
}
