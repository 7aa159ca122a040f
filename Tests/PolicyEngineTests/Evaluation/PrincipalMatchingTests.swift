import Testing

@testable import PolicyEngine

/// `Principal` and `NotPrincipal` matching, per "AWS JSON policy elements: Principal" (role session
/// principals, web identity session principals) and "AWS JSON policy elements: NotPrincipal".
@Suite("Principals")
struct PrincipalMatchingTests {
    let alice: RequestPrincipal
    let withBoundary: Policy

    init() throws {
        self.alice = try RequestPrincipal.assumedRole(roleArn: "arn:aws:iam::111122223333:role/app-users", sessionName: "alice")
        self.withBoundary = try TestSupport.policy(
            #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "*", "Resource": "*"}}"#, kind: .permissionsBoundary)
    }

    private func decide(_ resourcePolicy: String, principal: RequestPrincipal?, boundary: Policy? = nil) throws -> Decision {
        let resource = try TestSupport.policy(resourcePolicy, kind: .resource)
        let identity = try TestSupport.policy(#"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:*", "Resource": "*"}}"#)
        let evaluator = PolicyEvaluator(identityPolicies: [identity], resourcePolicy: resource, permissionsBoundary: boundary)
        return evaluator.evaluate(AuthorizationRequest(
            action: "s3:GetObject", resource: "arn:aws:s3:::b/k", context: RequestContext(principal: principal)))
    }

    private static func denyExcept(_ principals: [String]) -> String {
        let list = principals.map { "\"\($0)\"" }.joined(separator: ", ")
        return #"{"Version": "2012-10-17", "Statement": {"Effect": "Deny", "NotPrincipal": {"AWS": ["# + list
            + #"]}, "Action": "s3:*", "Resource": "arn:aws:s3:::b/*"}}"#
    }

    @Test func derivesSessionArnFromRoleWithPath() throws {
        let session = try RequestPrincipal.assumedRole(roleArn: "arn:aws:iam::111122223333:role/division/app", sessionName: "s-1")
        #expect(session.arn == "arn:aws:sts::111122223333:assumed-role/app/s-1")
        #expect(session.roleArn == "arn:aws:iam::111122223333:role/division/app")
        #expect(session.accountId == "111122223333")
        let fromSession = try RequestPrincipal.assumedRole(sessionArn: "arn:aws:sts::111122223333:assumed-role/app/s-1")
        #expect(fromSession.roleArn == "arn:aws:iam::111122223333:role/app")
    }

    @Test(arguments: [
        ("arn:aws:iam::111122223333:user/bob", "role ARN must look like arn:aws:iam::ACCOUNT:role/NAME, got 'arn:aws:iam::111122223333:user/bob'"),
        ("role/app", "role ARN must be an ARN (arn:partition:service:region:account:resource), got 'role/app'"),
    ])
    func rejectsBadRoleArns(arn: String, reason: String) {
        #expect(throws: PolicyEngineError.invalidRequest("")) { try RequestPrincipal.assumedRole(roleArn: arn, sessionName: "ok-name") }
        do {
            _ = try RequestPrincipal.assumedRole(roleArn: arn, sessionName: "ok-name")
        } catch {
            #expect(error.reason == reason)
        }
    }

    @Test(arguments: ["a", String(repeating: "x", count: 65), "has space", "star*", "slash/", "ünï"])
    func rejectsSessionNamesThatStsRejects(name: String) {
        #expect(throws: PolicyEngineError.invalidRequest("")) {
            try RequestPrincipal.assumedRole(roleArn: "arn:aws:iam::111122223333:role/app", sessionName: name)
        }
    }

    @Test func otherPrincipalFactoriesValidate() {
        #expect(throws: PolicyEngineError.invalidRequest("")) { try RequestPrincipal.root(accountId: "12345") }
        #expect(throws: PolicyEngineError.invalidRequest("")) { try RequestPrincipal.iamUser(arn: "arn:aws:iam::111122223333:role/x") }
        #expect(throws: PolicyEngineError.invalidRequest("")) { try RequestPrincipal.federatedUser(arn: "arn:aws:sts::111122223333:assumed-role/a/b") }
        #expect(throws: PolicyEngineError.invalidRequest("")) { try RequestPrincipal.assumedRole(sessionArn: "arn:aws:sts::111122223333:assumed-role/a") }
    }

    @Test(arguments: [
        (#"{"AWS": "arn:aws:sts::111122223333:assumed-role/app-users/alice"}"#, true),
        (#"{"AWS": "arn:aws:sts::111122223333:assumed-role/app-users/bob"}"#, false),
        (#"{"AWS": "arn:aws:iam::111122223333:role/app-users"}"#, true),
        (#"{"AWS": "arn:aws:iam::111122223333:role/other"}"#, false),
        (#"{"AWS": "111122223333"}"#, true),
        (#"{"AWS": "arn:aws:iam::111122223333:root"}"#, true),
        (#"{"AWS": "444455556666"}"#, false),
        (#"{"AWS": "*"}"#, true),
        (#""*""#, true),
        (#"{"Federated": "cognito-identity.amazonaws.com"}"#, false),
    ])
    func principalElementForARoleSession(principal: String, applies: Bool) throws {
        let json = #"{"Version": "2012-10-17", "Statement": {"Effect": "Deny", "Principal": "# + principal
            + #", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"}}"#
        #expect(try self.decide(json, principal: self.alice) == (applies ? .explicitDeny : .allow))
    }

    @Test(arguments: [
        (["111122223333", "arn:aws:iam::111122223333:role/app-users", "arn:aws:sts::111122223333:assumed-role/app-users/alice"], Decision.allow),
        (["arn:aws:iam::111122223333:root", "arn:aws:iam::111122223333:role/app-users", "arn:aws:sts::111122223333:assumed-role/app-users/alice"], .allow),
        (["arn:aws:sts::111122223333:assumed-role/app-users/alice"], .explicitDeny),
        (["arn:aws:iam::111122223333:role/app-users", "arn:aws:sts::111122223333:assumed-role/app-users/alice"], .explicitDeny),
        (["111122223333", "arn:aws:iam::111122223333:role/app-users"], .explicitDeny),
        (["*"], .allow),
    ])
    func notPrincipalExcludesOnlyWhenEveryIdentityIsListed(listed: [String], expected: Decision) throws {
        #expect(try self.decide(Self.denyExcept(listed), principal: self.alice) == expected)
    }

    @Test func notPrincipalDenyAlwaysAppliesToCallersWithABoundary() throws {
        let listed = ["111122223333", "arn:aws:iam::111122223333:role/app-users", "arn:aws:sts::111122223333:assumed-role/app-users/alice"]
        #expect(try self.decide(Self.denyExcept(listed), principal: self.alice) == .allow)
        #expect(try self.decide(Self.denyExcept(listed), principal: self.alice, boundary: self.withBoundary) == .explicitDeny)
    }

    @Test func notPrincipalForUsersAndAnonymousCallers() throws {
        let bob = try RequestPrincipal.iamUser(arn: "arn:aws:iam::111122223333:user/bob")
        #expect(try self.decide(Self.denyExcept(["111122223333", bob.arn]), principal: bob) == .allow)
        #expect(try self.decide(Self.denyExcept([bob.arn]), principal: bob) == .explicitDeny)
        #expect(try self.decide(Self.denyExcept(["111122223333", bob.arn]), principal: nil) == .explicitDeny)
    }

    @Test func trustPolicyMatchesWebIdentityByFederatedProvider() throws {
        let trust = try TestSupport.policy(
            """
            {"Version": "2012-10-17", "Statement": {"Effect": "Allow",
              "Principal": {"Federated": "cognito-identity.amazonaws.com"},
              "Action": "sts:AssumeRoleWithWebIdentity",
              "Condition": {"StringEquals": {"cognito-identity.amazonaws.com:aud": "us-east-1:11111111-2222-3333-4444-555555555555"},
                            "ForAnyValue:StringLike": {"cognito-identity.amazonaws.com:amr": "authenticated"}}}}
            """, kind: .trust)
        let evaluator = PolicyEvaluator(resourcePolicy: trust)
        let alice = try TestSupport.cognitoSession("us-east-1:alice")
        let assume = AuthorizationRequest(action: "sts:AssumeRoleWithWebIdentity", resource: TestSupport.roleArn, context: alice.assumeRoleContext(at: TestSupport.time))
        #expect(evaluator.evaluate(assume) == .allow)
        let guest = try WebIdentitySession(
            .cognito(identityId: "us-east-1:guest", identityPoolId: "us-east-1:11111111-2222-3333-4444-555555555555", amr: ["unauthenticated"]),
            role: TestSupport.roleArn, sessionName: "guest")
        let guestAssume = AuthorizationRequest(action: "sts:AssumeRoleWithWebIdentity", resource: TestSupport.roleArn, context: guest.assumeRoleContext())
        #expect(evaluator.evaluate(guestAssume) == .implicitDeny)
        let google = try WebIdentitySession(.google(subject: "1234", audience: "client"), role: TestSupport.roleArn, sessionName: "g-user")
        let googleAssume = AuthorizationRequest(action: "sts:AssumeRoleWithWebIdentity", resource: TestSupport.roleArn, context: google.assumeRoleContext())
        #expect(evaluator.evaluate(googleAssume) == .implicitDeny)
    }
}
