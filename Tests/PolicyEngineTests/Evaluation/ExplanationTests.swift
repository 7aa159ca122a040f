import Foundation
import Testing
import WIFTestSupport

@testable import PolicyEngine

@Suite("Explanations")
struct ExplanationTests {
    let sim: PolicySimulator
    let alice: WebIdentitySession

    init() throws {
        self.sim = try PolicySimulator(
            identityJSON: [
                """
                {"Version": "2012-10-17", "Statement": [
                  {"Sid": "ListOwn", "Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::photos",
                   "Condition": {"StringLike": {"s3:prefix": "users/${cognito-identity.amazonaws.com:sub}/*"}}},
                  {"Sid": "ReadOwn", "Effect": "Allow", "Action": ["s3:GetObject"],
                   "Resource": "arn:aws:s3:::photos/users/${cognito-identity.amazonaws.com:sub}/*",
                   "Condition": {"IpAddress": {"aws:SourceIp": "203.0.113.0/24"}}},
                  {"Sid": "NoTagging", "Effect": "Deny", "Action": "s3:PutObjectTagging", "Resource": "*"}
                ]}
                """
            ])
        self.alice = try WebIdentitySession(
            .cognito(identityId: "us-east-1:alice", identityPoolId: "us-east-1:pool"),
            role: TestSupport.roleArn, sessionName: "alice", sourceIp: "203.0.113.9")
    }

    @Test func explainsWhichConditionFailedWithTheValues() {
        var outside = self.alice
        outside.sourceIp = "198.51.100.4"
        let explanation = self.sim.explain(.s3("GetObject"), "arn:aws:s3:::photos/users/us-east-1:alice/a.jpg", as: outside)
        #expect(explanation.outcome == .implicitDeny)
        #expect(explanation.summary == "Implicitly denied: no statement allows s3:GetObject on arn:aws:s3:::photos/users/us-east-1:alice/a.jpg.")
        let read = explanation.policies[0].statements[1]
        #expect(read.reference.sid == "ReadOwn")
        #expect(!read.applies)
        #expect(read.action.matched)
        #expect(read.resource.matched)
        #expect(read.resource.detail == "'arn:aws:s3:::photos/users/us-east-1:alice/a.jpg' matches 'arn:aws:s3:::photos/users/us-east-1:alice/*'")
        #expect(read.conditions.count == 1)
        let condition = read.conditions[0]
        #expect(!condition.matched)
        #expect(condition.operator == "IpAddress")
        #expect(condition.key == "aws:SourceIp")
        #expect(condition.requestValues == ["198.51.100.4"])
        #expect(condition.policyValues == ["203.0.113.0/24"])
        #expect(condition.detail == "'198.51.100.4' matches none of ['203.0.113.0/24']; the condition fails")
        #expect(explanation.text.contains("condition  [no]  IpAddress aws:SourceIp: '198.51.100.4' matches none of ['203.0.113.0/24']; the condition fails"))
    }

    @Test func explainsAllowsAndDenies() {
        let allowed = self.sim.explain(.s3("GetObject"), "arn:aws:s3:::photos/users/us-east-1:alice/a.jpg", as: self.alice)
        #expect(allowed.outcome == .allow)
        #expect(allowed.summary == "Allowed by identity policy 'identity[0]' Statement[1] (Sid ReadOwn).")
        #expect(allowed.decidingStatements.map(\.sid) == ["ReadOwn"])
        #expect(allowed.text.hasPrefix("ALLOW: Allowed by identity policy 'identity[0]' Statement[1] (Sid ReadOwn).\nrequest: s3:GetObject on arn:aws:s3:::photos/users/us-east-1:alice/a.jpg\nprincipal: arn:aws:sts::111122223333:assumed-role/app-users/alice"))
        let denied = self.sim.explain(.s3("PutObjectTagging"), "arn:aws:s3:::photos/x", as: self.alice)
        #expect(denied.outcome == .explicitDeny)
        #expect(denied.summary == "Explicitly denied by identity policy 'identity[0]' Statement[2] (Sid NoTagging).")
        #expect(denied.text.hasPrefix("EXPLICIT DENY: "))
    }

    @Test func explainsListingWithPrefixes() {
        let other = self.sim.explain(
            AuthorizationRequest.s3ListBucket(bucket: "photos", prefix: "users/us-east-1:bob/", context: self.alice.context(at: TestSupport.time)))
        let list = other.policies[0].statements[0]
        #expect(list.conditions[0].detail == "'users/us-east-1:bob/' matches none of ['users/us-east-1:alice/*']; the condition fails")
        let absent = self.sim.explain(.s3("ListBucket"), "arn:aws:s3:::photos", as: self.alice)
        #expect(absent.policies[0].statements[0].conditions[0].detail == "'s3:prefix' is absent, so the condition fails")
    }

    @Test func explainsUnresolvedVariables() throws {
        let sim = try PolicySimulator(identityJSON: [
            #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::photos/${aws:username}/*"}}"#
        ])
        let explanation = sim.explain(.s3("GetObject"), "arn:aws:s3:::photos/alice/x", as: self.alice)
        #expect(explanation.policies[0].statements[0].resource.detail
            == "'arn:aws:s3:::photos/alice/x' matches none of ['arn:aws:s3:::photos/${aws:username}/*'] (${aws:username} has no value in the request and no default, so patterns using it match nothing)")
    }

    @Test func explainsPrincipalsAndNotElements() throws {
        let sim = try PolicySimulator(
            identityJSON: [#"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "NotAction": "iam:*", "NotResource": "arn:aws:s3:::secret/*"}}"#],
            resourceJSON: #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::111122223333:role/app-users"}, "Action": "s3:GetObject", "Resource": "arn:aws:s3:::photos/*"}}"#)
        let explanation = sim.explain(.s3("GetObject"), "arn:aws:s3:::photos/a", as: self.alice)
        let identity = explanation.policies[0].statements[0]
        #expect(identity.action.detail == "'s3:GetObject' is not listed in NotAction ['iam:*'], so the statement covers it")
        #expect(identity.resource.detail == "'arn:aws:s3:::photos/a' is not listed in NotResource ['arn:aws:s3:::secret/*'], so the statement covers it")
        let resource = explanation.policies[1].statements[0]
        #expect(resource.principal?.matched == true)
        #expect(resource.principal?.detail == "the caller 'arn:aws:sts::111122223333:assumed-role/app-users/alice' is named through 'arn:aws:iam::111122223333:role/app-users'; such grants are limited by session policies and permissions boundaries")
        #expect(explanation.decidingStatements.map(\.policyKind) == [.identity, .resource])
    }

    @Test func jsonIsValidAndCarriesTheSameFacts() throws {
        let explanation = self.sim.explain(.s3("GetObject"), "arn:aws:s3:::photos/users/us-east-1:alice/a.jpg", as: self.alice)
        let object = try JSONSerialization.jsonObject(with: Data(explanation.json().utf8)) as? [String: Any]
        #expect(object?["outcome"] as? String == "allow")
        #expect(object?["summary"] as? String == explanation.summary)
        let policies = object?["policies"] as? [[String: Any]]
        let statements = policies?.first?["statements"] as? [[String: Any]]
        #expect(statements?.count == 3)
        #expect((statements?[1]["applies"] as? Bool) == true)
        let compact = try JSONSerialization.jsonObject(with: Data(explanation.json(pretty: false).utf8)) as? [String: Any]
        #expect(compact?["action"] as? String == "s3:GetObject")
        // The Codable form round-trips.
        let encoded = try JSONEncoder().encode(explanation)
        let decoded = try JSONDecoder().decode(Explanation.self, from: encoded)
        #expect(decoded == explanation)
    }

    /// The explanation is built from the same matching code as the decision, so the two always agree.
    @Test func explanationAlwaysAgreesWithTheDecision() throws {
        let bucketPolicy = #"{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "arn:aws:sts::111122223333:assumed-role/app-users/alice"}, "Action": "s3:PutObject", "Resource": "arn:aws:s3:::photos/shared/*"}, {"Effect": "Deny", "Principal": "*", "Action": "s3:DeleteObject", "Resource": "arn:aws:s3:::photos/users/*", "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]}"#
        let boundary = #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": ["s3:Get*", "s3:List*", "s3:Delete*"], "Resource": "*"}}"#
        let sim = try PolicySimulator(identityJSON: self.sim.evaluator.identityPolicies.map { $0.json() }, resourceJSON: bucketPolicy, boundaryJSON: boundary)
        var generator = SplitMix64(seed: 7)
        let actions = ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:ListBucket", "s3:PutObjectTagging"]
        let keys = ["users/us-east-1:alice/a", "users/us-east-1:bob/a", "shared/x", "other"]
        for _ in 0..<300 {
            var session = self.alice
            session.sourceIp = generator.next() % 2 == 0 ? "203.0.113.9" : "198.51.100.1"
            session.secureTransport = generator.next() % 3 != 0
            let action = actions[Int(generator.next() % UInt64(actions.count))]
            let key = keys[Int(generator.next() % UInt64(keys.count))]
            let resource = action == "s3:ListBucket" ? "arn:aws:s3:::photos" : "arn:aws:s3:::photos/\(key)"
            let extra: [String: ContextValue] = generator.next() % 2 == 0 ? ["s3:prefix": ContextValue(key + "/")] : [:]
            let request = sim.request(ActionName(action), resource, as: session, context: extra)
            let decision = sim.decide(request)
            let explanation = sim.explain(request)
            #expect(explanation.decision == decision)
            #expect(explanation.decidingStatements == decision.statements)
        }
    }
}
