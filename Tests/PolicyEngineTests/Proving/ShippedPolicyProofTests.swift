import Testing

import PolicyEngine

/// Every per-user policy shipped in `policies/` is proved to keep users apart, for every id of the
/// provider's id alphabet — and the test fails if a policy added there cannot be proved.
@Suite struct ShippedPolicyProofTests {
    /// One shipped policy (or policy pair) and what the prover needs to know about it.
    struct Case: Sendable, CustomTestStringConvertible {
        var identity: String
        var session: String? = nil
        var idKey: String
        var template: String
        /// The ids the provider issues.
        var alphabet: String
        /// For Ceph RGW, which writes each user's id into the policy: the placeholder, which is replaced by
        /// the id variable (equivalent for ids without `*`, `?` and `$`, which RGW setup refuses).
        var placeholder: String? = nil

        var testDescription: String { self.session.map { "\(self.identity) + \($0)" } ?? self.identity }
    }

    static let cases: [Case] = [
        Case(identity: "facebook/personal-store.json", idKey: "graph.facebook.com:id", template: "{id}/", alphabet: "[0-9]"),
        Case(identity: "google/personal-store.json", idKey: "accounts.google.com:sub", template: "{id}/", alphabet: "[0-9]"),
        Case(identity: "amazon/personal-store.json", idKey: "www.amazon.com:user_id", template: "{id}/", alphabet: "[A-Za-z0-9.]"),
        Case(
            identity: "cognito/personal-store.json", idKey: "cognito-identity.amazonaws.com:sub", template: "{id}/",
            alphabet: "[a-z0-9:-]"),
        Case(identity: "oidc/personal-store.json", idKey: "oidc.example.com:sub", template: "{id}/", alphabet: "[^/]"),
        Case(identity: "local/facebook.json", idKey: "graph.facebook.com:id", template: "facebook/{id}/", alphabet: "[0-9]"),
        Case(identity: "local/google.json", idKey: "accounts.google.com:sub", template: "google/{id}/", alphabet: "[0-9]"),
        Case(identity: "local/amazon.json", idKey: "www.amazon.com:user_id", template: "amazon/{id}/", alphabet: "[A-Za-z0-9.]"),
        Case(
            identity: "local/cognito.json", idKey: "cognito-identity.amazonaws.com:sub", template: "cognito/{id}/",
            alphabet: "[a-z0-9:-]"),
        Case(identity: "local/oidc.json", idKey: "wif.localhost:sub", template: "oidc/{id}/", alphabet: "[^/]"),
        Case(identity: "seaweedfs/personal-store.json", idKey: "jwt:sub", template: "{id}/", alphabet: "[^/]"),
        Case(
            identity: "ceph-rgw/role-per-user/personal-store.json", idKey: "oidc.example.com:sub", template: "{id}/",
            alphabet: "[^/*?$]", placeholder: "USER_ID"),
        Case(
            identity: "ceph-rgw/session-tags/user.json", idKey: "aws:PrincipalTag/sub", template: "{id}/",
            alphabet: "[^/*?$]", placeholder: "USER_ID"),
        Case(
            identity: "ceph-rgw/session-policy/shared-bucket.json", session: "ceph-rgw/session-policy/session-policy.json",
            idKey: "oidc.example.com:sub", template: "{id}/", alphabet: "[^/*?$]", placeholder: "USER_ID"),
        // The compiled storage layout: each identity's private/ folder is its own; public/ and protected/
        // are shared on purpose, and AccessRulesTests proves those against their rules.
        Case(
            identity: "storage/amplify-default/authenticated.json", idKey: "cognito-identity.amazonaws.com:sub",
            template: "private/{id}/", alphabet: "[a-z0-9:-]"),
    ]

    /// Policies with no folder per user: the storage layout's guests (no folder of their own) and
    /// administrators (every folder, by design).
    static let notPerUser: Set<String> = ["storage/amplify-default/unauthenticated.json", "storage/amplify-default/group-admin.json"]

    static func load(_ file: String, _ testCase: Case, kind: PolicyKind) throws -> Policy {
        var text = try ShippedPolicies.text(file)
        if let placeholder = testCase.placeholder {
            text = text.replacingOccurrences(of: placeholder, with: "${\(testCase.idKey)}")
        }
        return try TestSupport.policy(text, kind: kind, name: file)
    }

    static func result(_ testCase: Case, alphabet: IdentifierAlphabet) throws -> IsolationResult {
        let prover = PolicyProver(bucket: ShippedPolicies.bucket, alphabet: alphabet)
        return prover.proveIsolation(
            identityPolicies: [try Self.load(testCase.identity, testCase, kind: .identity)],
            sessionPolicies: try testCase.session.map { [try Self.load($0, testCase, kind: .session)] } ?? [],
            template: try PartitionTemplate(testCase.template), idKey: testCase.idKey)
    }

    @Test(arguments: cases)
    func provedForTheProvidersIds(_ testCase: Case) throws {
        let result = try Self.result(testCase, alphabet: try IdentifierAlphabet(testCase.alphabet))
        guard case .proved(let proof) = result else {
            Issue.record("\(testCase.identity) is not proved: \(result)")
            return
        }
        #expect(proof.objectActions.contains("s3:GetObject"))
        #expect(proof.listingActions.contains("s3:ListBucket"))
        #expect(proof.actionsNotConsidered.isEmpty)
    }

    /// The same policies do not isolate ids that may contain `/`: the folder of `x` holds the folder of
    /// `x/y`. An OpenID Connect `sub` is any string, so the issuer must promise no `/` for these to hold.
    @Test(arguments: cases)
    func idsWithSlashesReachNestedFolders(_ testCase: Case) throws {
        let result = try Self.result(testCase, alphabet: .any)
        guard case .counterexample(let found) = result else {
            Issue.record("\(testCase.identity): expected a counterexample, got \(result)")
            return
        }
        let caller = testCase.template.replacingOccurrences(of: "{id}", with: found.callerId)
        let owner = testCase.template.replacingOccurrences(of: "{id}", with: found.ownerId)
        #expect(caller.hasPrefix(owner) || owner.hasPrefix(caller))
    }

    /// Every per-user policy file in `policies/` is one of the cases, so a new one must be proved too.
    @Test func everyShippedPerUserPolicyIsACase() throws {
        let perUser = try ShippedPolicies.allFiles().filter { !$0.hasSuffix("trust.json") && !Self.notPerUser.contains($0) }
        let covered = Set(Self.cases.flatMap { [$0.identity] + ($0.session.map { [$0] } ?? []) })
        #expect(Set(perUser) == covered)
    }
}
