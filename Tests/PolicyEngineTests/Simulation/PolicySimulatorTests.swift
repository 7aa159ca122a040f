import Testing

@testable import PolicyEngine

@Suite("Policy simulator")
struct PolicySimulatorTests {
    static let perUserPolicy = """
        {"Version": "2012-10-17", "Statement": [
          {"Sid": "ListOwnPrefix", "Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::b",
           "Condition": {"StringLike": {"s3:prefix": ["${cognito-identity.amazonaws.com:sub}/*"]}}},
          {"Sid": "OwnObjects", "Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject"],
           "Resource": "arn:aws:s3:::b/${cognito-identity.amazonaws.com:sub}/*"}
        ]}
        """

    let sim: PolicySimulator
    let alice: WebIdentitySession
    let bob: WebIdentitySession

    init() throws {
        self.sim = try PolicySimulator(identityJSON: [Self.perUserPolicy])
        self.alice = try TestSupport.cognitoSession("alice", sessionName: "alice")
        self.bob = try TestSupport.cognitoSession("bob", sessionName: "bob")
    }

    @Test func readsLikeTheAccessRules() {
        #expect(self.sim.decide(.s3("GetObject"), "arn:aws:s3:::b/alice/x", as: self.alice) == .allow)
        #expect(self.sim.decide(.s3("GetObject"), "arn:aws:s3:::b/bob/x", as: self.alice) == .implicitDeny)
        #expect(self.sim.decide(.s3("PutObject"), "arn:aws:s3:::b/bob/x", as: self.bob) == .allow)
        #expect(self.sim.decide(.s3("DeleteObject"), "arn:aws:s3:::b/bob/x", as: self.bob) == .implicitDeny)
        #expect(self.sim.decideListBucket("b", prefix: "alice/", as: self.alice) == .allow)
        #expect(self.sim.decideListBucket("b", prefix: "bob/", as: self.alice) == .implicitDeny)
        #expect(self.sim.decideListBucket("b", prefix: nil, as: self.alice) == .implicitDeny)
        #expect(self.sim.decide(.s3("ListBucket"), "arn:aws:s3:::b", as: self.alice, context: ["s3:prefix": "alice/photos/"]) == .allow)
    }

    @Test func decidesForOtherPrincipalsAndContexts() throws {
        let user = try RequestPrincipal.iamUser(arn: "arn:aws:iam::111122223333:user/carol")
        #expect(self.sim.decide(.s3("GetObject"), "arn:aws:s3:::b/carol/x", as: user) == .implicitDeny)
        #expect(self.sim.decide(.s3("GetObject"), "arn:aws:s3:::b/carol/x", as: nil as RequestPrincipal?) == .implicitDeny)
        let context = RequestContext(principal: user, values: ["cognito-identity.amazonaws.com:sub": "carol"])
        #expect(self.sim.decide(.s3("GetObject"), "arn:aws:s3:::b/carol/x", as: context) == .allow)
        #expect(self.sim.request(.s3("GetObject"), "arn:aws:s3:::b/carol/x", as: context).context.time == self.sim.time)
    }

    @Test func timeComesFromTheSimulator() throws {
        var sim = try PolicySimulator(identityJSON: [
            #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", "Condition": {"DateLessThan": {"aws:CurrentTime": "2025-01-01T00:00:00Z"}}}}"#
        ])
        #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::b/k", as: self.alice) == .allow)
        sim.time = Timestamp(secondsSince1970: 1_800_000_000)
        #expect(sim.decide(.s3("GetObject"), "arn:aws:s3:::b/k", as: self.alice) == .implicitDeny)
    }

    @Test func invalidPoliciesNameTheirRoleInDiagnostics() {
        do {
            _ = try PolicySimulator(
                identityJSON: [Self.perUserPolicy],
                resourceJSON: #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"}}"#)
            Issue.record("expected an error")
        } catch {
            #expect(error == .invalidPolicy(""))
            #expect(error.reason == "resource: the policy has 1 error")
            #expect(error.errors.map(\.description) == ["resource: Statement: missing Principal or NotPrincipal (required in resource policies)"])
        }
    }

    @Test func actionNames() {
        #expect(ActionName.s3("GetObject").rawValue == "s3:GetObject")
        #expect(ActionName.sts("AssumeRoleWithWebIdentity").description == "sts:AssumeRoleWithWebIdentity")
        #expect(ActionName.iam("PassRole") == "iam:PassRole")
        #expect(ActionName.service("dynamodb", "GetItem") == ActionName("dynamodb:GetItem"))
    }
}
