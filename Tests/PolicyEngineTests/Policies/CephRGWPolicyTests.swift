import Foundation
import Testing

import PolicyEngine

/// `policies/ceph-rgw/`: the three ways to keep users apart on Ceph RGW, which refuses policy variables in
/// `Resource` and so needs every user's folder written out literally. The files hold `USER_ID`,
/// `oidc.example.com`, `OIDC_CLIENT_ID` and `BROKER_CLIENT_ID` where the set-up writes the real values.
@Suite("Ceph RGW policies")
struct CephRGWPolicyTests {
    static let files = [
        "ceph-rgw/role-per-user/personal-store.json", "ceph-rgw/role-per-user/trust.json",
        "ceph-rgw/session-policy/session-policy.json", "ceph-rgw/session-policy/shared-bucket.json", "ceph-rgw/session-policy/trust.json",
        "ceph-rgw/session-tags/trust.json", "ceph-rgw/session-tags/user.json",
    ]
    static let issuer = "http://127.0.0.1:4566"
    static let providerKey = "127.0.0.1:4566"
    static let clientId = "wif-local"
    static let brokerClientId = "wif-broker"
    static let objectActions = ["GetObject", "PutObject", "DeleteObject", "AbortMultipartUpload", "ListMultipartUploadParts"]

    /// A file with its placeholders filled in as the set-up fills them.
    static func text(_ file: String, user: String = "USER_ID") throws -> String {
        try ShippedPolicies.text(file)
            .replacingOccurrences(of: "USER_ID", with: user)
            .replacingOccurrences(of: "oidc.example.com", with: Self.providerKey)
            .replacingOccurrences(of: "OIDC_CLIENT_ID", with: Self.clientId)
            .replacingOccurrences(of: "BROKER_CLIENT_ID", with: Self.brokerClientId)
    }

    static func policy(_ file: String, user: String = "USER_ID", kind: PolicyKind = .identity) throws -> Policy {
        try TestSupport.policy(try self.text(file, user: user), kind: kind, name: file)
    }

    /// A user's token from the issuer, for a client id.
    static func identity(_ subject: String, audience: String = Self.clientId, issuer: String = Self.issuer) -> WebIdentity {
        .oidc(issuer: issuer, subject: subject, audiences: [audience])
    }

    /// A session of a role on RGW (whose ARNs have no account), with session tags.
    static func session(_ identity: WebIdentity, role: String, tags: [String: String] = [:]) throws -> WebIdentitySession {
        var keys: [String: ContextValue] = [:]
        for (key, value) in tags { keys["aws:PrincipalTag/\(key)"] = ContextValue(value) }
        return try WebIdentitySession(identity, role: "arn:aws:iam:::role/\(role)", sessionName: "wif-user", additionalKeys: keys)
    }

    /// The trust policy's decision for an action (by default `AssumeRoleWithWebIdentity`).
    static func assume(_ trust: Policy, _ session: WebIdentitySession, action: String = "sts:AssumeRoleWithWebIdentity") -> Decision {
        PolicyEvaluator(resourcePolicy: trust).evaluate(
            AuthorizationRequest(action: action, resource: session.roleArn, context: session.assumeRoleContext(at: PolicySimulator.defaultTime)))
    }

    /// Whether a session reaches a user's folder: every object action, and listing with the folder as prefix.
    static func reaches(_ sim: PolicySimulator, folder user: String, as session: WebIdentitySession) -> Bool {
        let objects = Self.objectActions.allSatisfy { action in
            sim.decide(.s3(action), ShippedPolicies.object("\(user)/notes/a.txt"), as: session) == .allow
        }
        return objects && sim.decideListBucket(ShippedPolicies.bucket, prefix: "\(user)/", delimiter: "/", as: session) == .allow
    }

    /// Whether a session reaches anything of a user's folder: any object action, or a listing of it.
    static func touches(_ sim: PolicySimulator, folder user: String, as session: WebIdentitySession) -> Bool {
        let objects = Self.objectActions.contains { action in
            sim.decide(.s3(action), ShippedPolicies.object("\(user)/notes/a.txt"), as: session) != .implicitDeny
        }
        return objects || sim.decideListBucket(ShippedPolicies.bucket, prefix: "\(user)/", as: session) != .implicitDeny
    }

    @Test(arguments: Self.files)
    func validatesWithoutErrorsOrWarnings(file: String) throws {
        let result = Policy.validate(try Self.text(file, user: "alice"), kind: ShippedPolicies.kind(of: file), name: file)
        #expect(result.diagnostics.isEmpty, "\(file): \(result.diagnostics.map(\.description))")
        // RGW refuses policy variables in Resource: every folder is written out.
        #expect(!(try ShippedPolicies.text(file)).contains("${"), "\(file) uses a policy variable")
    }

    @Test func theSessionPolicyIsValidAsASessionPolicy() throws {
        let result = Policy.validate(try Self.text("ceph-rgw/session-policy/session-policy.json", user: "alice"), kind: .session, name: "session")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.description))")
    }

    // MARK: One role per user

    @Test func aUsersRoleAdmitsOnlyThatUserOfTheApp() throws {
        let trust = try Self.policy("ceph-rgw/role-per-user/trust.json", user: "alice", kind: .trust)
        #expect(Self.assume(trust, try Self.session(Self.identity("alice"), role: "wif-alice")) == .allow)
        for identity in [
            Self.identity("bob"), Self.identity("alice2"), Self.identity("alic"), Self.identity("*"),
            Self.identity("alice", audience: "another-app"), Self.identity("alice", issuer: "http://127.0.0.1:9999"),
        ] {
            #expect(Self.assume(trust, try Self.session(identity, role: "wif-alice")) == .implicitDeny, "\(identity.keys)")
        }
        // Not a tagged session: the role does not allow sts:TagSession.
        #expect(Self.assume(trust, try Self.session(Self.identity("alice"), role: "wif-alice"), action: "sts:TagSession") == .implicitDeny)
    }

    @Test(arguments: [("alice", "bob"), ("12", "123"), ("123", "12"), ("1001", "10012"), ("ünïcødé", "unicode")])
    func aUsersRolePolicyReachesTheirFolderOnly(user: String, other: String) throws {
        let sim = PolicySimulator(identityPolicies: [try Self.policy("ceph-rgw/role-per-user/personal-store.json", user: user)])
        let me = try Self.session(Self.identity(user), role: "wif-\(user)")
        #expect(Self.reaches(sim, folder: user, as: me))
        #expect(!Self.touches(sim, folder: other, as: me))
        for prefix in [nil, "", String(user.dropLast()), user, "\(other)/"] {
            #expect(sim.decideListBucket(ShippedPolicies.bucket, prefix: prefix, as: me) == .implicitDeny, "prefix \(prefix.debugDescription)")
        }
        #expect(sim.decide(.s3("GetObject"), ShippedPolicies.object("\(user)"), as: me) == .implicitDeny)
        #expect(sim.decide(.s3("PutBucketPolicy"), "arn:aws:s3:::\(ShippedPolicies.bucket)", as: me) == .implicitDeny)
    }

    @Test func aWildcardInAUserIdWouldWidenTheFolder() throws {
        // Why the set-up refuses ids with '*', '?' or '$': written literally, '*' matches every folder.
        let sim = PolicySimulator(identityPolicies: [try Self.policy("ceph-rgw/role-per-user/personal-store.json", user: "*")])
        let star = try Self.session(Self.identity("*"), role: "wif-star")
        #expect(Self.touches(sim, folder: "alice", as: star))
    }

    // MARK: Session tags

    func taggedSimulator(users: [String]) throws -> PolicySimulator {
        PolicySimulator(identityPolicies: try users.map { try Self.policy("ceph-rgw/session-tags/user.json", user: $0) })
    }

    @Test func theTaggedRoleAdmitsTheAppsUsersAndLetsThemTagTheSession() throws {
        let trust = try Self.policy("ceph-rgw/session-tags/trust.json", kind: .trust)
        let alice = try Self.session(Self.identity("alice"), role: "wif-tagged")
        #expect(Self.assume(trust, alice) == .allow)
        #expect(Self.assume(trust, alice, action: "sts:TagSession") == .allow)
        #expect(Self.assume(trust, try Self.session(Self.identity("alice", audience: "another-app"), role: "wif-tagged")) == .implicitDeny)
        #expect(Self.assume(trust, try Self.session(Self.identity("alice", issuer: "https://other.example"), role: "wif-tagged")) == .implicitDeny)
    }

    @Test func aTaggedSessionReachesTheTaggedUsersFolderOnly() throws {
        let sim = try self.taggedSimulator(users: ["alice", "bob", "12", "123"])
        for (user, others) in [("alice", ["bob", "12"]), ("bob", ["alice"]), ("12", ["123", "alice"]), ("123", ["12"])] {
            let session = try Self.session(Self.identity(user), role: "wif-tagged", tags: ["sub": user])
            #expect(Self.reaches(sim, folder: user, as: session), "\(user)")
            for other in others {
                #expect(!Self.touches(sim, folder: other, as: session), "\(user) reaching \(other)")
            }
            #expect(sim.decideListBucket(ShippedPolicies.bucket, prefix: nil, as: session) == .implicitDeny)
        }
    }

    @Test func aSessionWithoutTheTagReachesNothing() throws {
        let sim = try self.taggedSimulator(users: ["alice", "bob"])
        for tags in [[:], ["user": "alice"], ["sub": ""], ["sub": "carol"]] {
            let session = try Self.session(Self.identity("alice"), role: "wif-tagged", tags: tags)
            #expect(!Self.touches(sim, folder: "alice", as: session), "tags \(tags)")
            #expect(!Self.touches(sim, folder: "bob", as: session), "tags \(tags)")
        }
    }

    @Test func theTagNotTheSubDecidesTheFolder() throws {
        // Why the strategy is safe only when users cannot choose their tags: a token whose sub is mallory
        // but whose tag says alice reaches alice's folder.
        let sim = try self.taggedSimulator(users: ["alice", "bob"])
        let mallory = try Self.session(Self.identity("mallory"), role: "wif-tagged", tags: ["sub": "alice"])
        #expect(Self.reaches(sim, folder: "alice", as: mallory))
        #expect(!Self.touches(sim, folder: "mallory", as: mallory))
    }

    // MARK: Session policy from a trusted server

    @Test func theSharedRoleAdmitsTheTrustedServersTokensOnly() throws {
        let trust = try Self.policy("ceph-rgw/session-policy/trust.json", kind: .trust)
        #expect(Self.assume(trust, try Self.session(Self.identity("alice", audience: Self.brokerClientId), role: "wif-broker")) == .allow)
        // A user's own token (the app's client id) is refused: users cannot leave the session policy out.
        #expect(Self.assume(trust, try Self.session(Self.identity("alice"), role: "wif-broker")) == .implicitDeny)
        #expect(Self.assume(trust, try Self.session(Self.identity("alice", audience: "another-app"), role: "wif-broker")) == .implicitDeny)
    }

    @Test func withoutTheSessionPolicyTheSharedRoleReachesEveryFolder() throws {
        // Why only the trusted server may hold tokens the role accepts.
        let sim = PolicySimulator(identityPolicies: [try Self.policy("ceph-rgw/session-policy/shared-bucket.json")])
        let session = try Self.session(Self.identity("alice", audience: Self.brokerClientId), role: "wif-broker")
        for user in ["alice", "bob", "12"] {
            #expect(Self.reaches(sim, folder: user, as: session))
        }
    }

    @Test(arguments: [("alice", "bob"), ("12", "123"), ("bob", "alice")])
    func theSessionPolicyNarrowsTheSharedRoleToOneFolder(user: String, other: String) throws {
        let sim = PolicySimulator(
            identityPolicies: [try Self.policy("ceph-rgw/session-policy/shared-bucket.json")],
            sessionPolicies: [try Self.policy("ceph-rgw/session-policy/session-policy.json", user: user, kind: .session)])
        let session = try Self.session(Self.identity(user, audience: Self.brokerClientId), role: "wif-broker")
        #expect(Self.reaches(sim, folder: user, as: session))
        #expect(!Self.touches(sim, folder: other, as: session))
        #expect(sim.decideListBucket(ShippedPolicies.bucket, prefix: nil, as: session) == .implicitDeny)
        // The session policy alone grants nothing: it only narrows the role's permissions.
        let alone = PolicySimulator(sessionPolicies: [try Self.policy("ceph-rgw/session-policy/session-policy.json", user: user, kind: .session)])
        #expect(!Self.touches(alone, folder: user, as: session))
    }
}
