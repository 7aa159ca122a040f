import Testing

import PolicyEngine

/// Actions on the bucket itself that hand a user every folder indirectly: rewriting or removing the bucket
/// policy, an ACL, an inventory, replication or access logs. A per-user policy that also allows one of them
/// is not isolated, whatever its object statements say.
@Suite struct BucketEscalationTests {
    typealias F = ProverFixtures

    @Test(arguments: [
        "s3:PutBucketPolicy", "s3:DeleteBucketPolicy", "s3:PutBucketAcl", "s3:PutInventoryConfiguration",
        "s3:PutReplicationConfiguration", "s3:PutBucketLogging",
    ])
    func anActionThatHandsOutEveryFolderIsACounterexample(action: String) throws {
        let policy = try F.policy(F.objects() + "," + F.listing() + #", {"Effect": "Allow", "Action": "\#(action)", "Resource": "arn:aws:s3:::wif-personal"}"#)
        let result = try F.prove(policy, alphabet: "[0-9]")
        guard case .counterexample(let found) = result else {
            Issue.record("\(action): expected a counterexample, got \(result)")
            return
        }
        #expect(found.action == action)
        #expect(found.resource == "arn:aws:s3:::wif-personal")
        #expect(found.callerId != found.ownerId)
        #expect(found.escalation != nil)
        #expect(found.summary.contains("the folder of user '\(found.ownerId)' included"), "\(found.summary)")
        #expect(found.allowedBy.map(\.index) == [2])
    }

    @Test func aWildcardOnTheBucketIsCaughtAndADenyRestoresTheProof() throws {
        let wide = try F.policy(F.objects() + "," + F.listing() + #", {"Effect": "Allow", "Action": "s3:PutBucket*", "Resource": "arn:aws:s3:::wif-personal"}"#)
        guard case .counterexample(let found) = try F.prove(wide, alphabet: "[0-9]") else {
            Issue.record("s3:PutBucket* was not caught")
            return
        }
        #expect(found.action == "s3:PutBucketPolicy")

        let denied = try F.policy(
            F.objects() + "," + F.listing()
                + #", {"Effect": "Allow", "Action": "s3:PutBucket*", "Resource": "arn:aws:s3:::wif-personal"}"#
                + #", {"Effect": "Deny", "Action": ["s3:PutBucketPolicy", "s3:PutBucketAcl", "s3:PutBucketLogging"], "Resource": "*"}"#)
        #expect(try F.prove(denied, alphabet: "[0-9]").name == "proved")
        // Reading the bucket's settings hands out nothing.
        let reading = try F.policy(F.objects() + "," + F.listing() + #", {"Effect": "Allow", "Action": "s3:GetBucketPolicy", "Resource": "arn:aws:s3:::wif-personal"}"#)
        #expect(try F.prove(reading, alphabet: "[0-9]").name == "proved")
    }
}
