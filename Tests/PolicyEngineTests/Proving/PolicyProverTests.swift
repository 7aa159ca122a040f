import Testing

import PolicyEngine

/// The traps a per-user folder prover must get right, each with the answer that is true for it.
@Suite struct PolicyProverTests {
    typealias F = ProverFixtures

    static func perUser() throws -> Policy {
        try F.policy(F.listing() + "," + F.objects())
    }

    @Test func numericIdsAreIsolated() throws {
        let result = try F.prove(try Self.perUser(), alphabet: "[0-9]")
        guard case .proved(let proof) = result else {
            Issue.record("expected a proof, got \(result)")
            return
        }
        #expect(proof.alphabet.description == "non-empty strings of [0-9]")
        #expect(proof.objectActions.contains("s3:GetObject"))
        #expect(proof.objectActions.contains("s3:PutObjectAcl"))
        #expect(proof.listingActions == ["s3:ListBucket", "s3:ListBucketVersions", "s3:ListBucketMultipartUploads"])
    }

    @Test func idsWithSlashesNestFolders() throws {
        let policy = try Self.perUser()
        let result = try F.prove(policy)
        let found = try F.confirmedCounterexample(result, policies: PolicySimulator(identityPolicies: [policy]))
        // One id's folder holds another's: `x/` contains `x/y/`.
        #expect(found.map { $0.ownerId.hasPrefix($0.callerId + "/") || $0.callerId.hasPrefix($0.ownerId + "/") } == true)
        #expect(found?.alphabet.description == "any non-empty string")
    }

    @Test(arguments: ["[^/]", "[^/*?$]", "[A-Za-z0-9._:-]"])
    func idsWithoutSlashesAreIsolatedWhateverElseTheyContain(alphabet: String) throws {
        // `*`, `?`, `${`, `..` and case are all literal text in a substituted id.
        let result = try F.prove(try Self.perUser(), alphabet: alphabet)
        #expect(result.name == "proved", "\(result)")
    }

    @Test func trapIdsAreLiteralInTheSimulatorToo() throws {
        let simulator = PolicySimulator(identityPolicies: [try Self.perUser()])
        for (caller, owner) in [("*", "alice"), ("?", "b"), ("${x}", "alice"), ("..", "alice"), ("al", "alice"), ("alice", "Alice")] {
            let context = RequestContext(values: [F.idKey: ContextValue(caller)])
            #expect(simulator.decide("s3:GetObject", "arn:aws:s3:::wif-personal/\(owner)/f", as: context) == .implicitDeny)
        }
    }

    @Test func aStarAfterTheVariableReachesLongerIds() throws {
        let policy = try F.policy(F.objects("arn:aws:s3:::wif-personal/${graph.facebook.com:id}*"))
        let found = try F.confirmedCounterexample(
            try F.prove(policy, alphabet: "[0-9]"), policies: PolicySimulator(identityPolicies: [policy]))
        #expect(found.map { $0.ownerId.hasPrefix($0.callerId) } == true)
    }

    @Test func aTemplateWithoutSlashNestsPrefixIds() throws {
        // With folders `{id}`, the folder of 1 holds the folder of 12.
        let policy = try Self.perUser()
        let result = try F.prove(policy, template: "{id}", alphabet: "[0-9]")
        let found = try F.confirmedCounterexample(result, template: "{id}", policies: PolicySimulator(identityPolicies: [policy]))
        #expect(found != nil)
    }

    @Test func emptyIdsAreNotIds() throws {
        // Only an empty id would be granted the whole bucket; ids are never empty.
        let policy = try F.policy(F.objects() + "," + #"""
            {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::wif-personal/*",
             "Condition": {"StringEquals": {"graph.facebook.com:id": ""}}}
            """#)
        #expect(try F.prove(policy, alphabet: "[0-9]").name == "proved")
        #expect(!(try IdentifierAlphabet("[0-9]")).admits(""))
        #expect(!IdentifierAlphabet.any.admits(""))
    }

    @Test func caseInsensitivePrefixConditionsLeakAcrossCase() throws {
        let policy = try F.policy(
            F.listing(#"{"StringEqualsIgnoreCase": {"s3:prefix": "${graph.facebook.com:id}/"}}"#) + "," + F.objects())
        let found = try F.confirmedCounterexample(
            try F.prove(policy, alphabet: "[A-Za-z]"), policies: PolicySimulator(identityPolicies: [policy]))
        #expect(found.map { $0.callerId.lowercased() == $0.ownerId.lowercased() } == true)
    }

    @Test func listingWithoutConditionRevealsEveryFolder() throws {
        let policy = try F.policy(F.listing(nil) + "," + F.objects())
        let found = try F.confirmedCounterexample(
            try F.prove(policy, alphabet: "[0-9]"), policies: PolicySimulator(identityPolicies: [policy]))
        #expect(found?.action == "s3:ListBucket")
        #expect(found?.requestKeys["s3:prefix"] == nil)
    }

    @Test func aPrefixConditionThatMayBeAbsentRevealsEveryFolder() throws {
        let policy = try F.policy(
            F.listing(#"{"StringLikeIfExists": {"s3:prefix": "${graph.facebook.com:id}/*"}}"#) + "," + F.objects())
        let found = try F.confirmedCounterexample(
            try F.prove(policy, alphabet: "[0-9]"), policies: PolicySimulator(identityPolicies: [policy]))
        #expect(found?.requestKeys["s3:prefix"] == nil)
    }

    @Test func anEmptyPrefixValueListsTheRoot() throws {
        let policy = try F.policy(
            F.listing(#"{"StringLike": {"s3:prefix": ["", "${graph.facebook.com:id}/*"]}}"#) + "," + F.objects())
        let found = try F.confirmedCounterexample(
            try F.prove(policy, alphabet: "[0-9]"), policies: PolicySimulator(identityPolicies: [policy]))
        #expect(found?.requestKeys["s3:prefix"] == "")
    }

    @Test func notResourceAllowGrantsOtherFolders() throws {
        let policy = try F.policy(#"""
            {"Effect": "Allow", "Action": "s3:GetObject", "NotResource": "arn:aws:s3:::wif-personal/${graph.facebook.com:id}/*"}
            """#)
        let found = try F.confirmedCounterexample(
            try F.prove(policy, alphabet: "[0-9]"), policies: PolicySimulator(identityPolicies: [policy]))
        #expect(found?.action == "s3:GetObject")
    }

    @Test func notActionAllowGrantsEveryOtherAction() throws {
        let policy = try F.policy(#"""
            {"Effect": "Allow", "NotAction": "s3:GetObject", "Resource": "arn:aws:s3:::wif-personal/*"}
            """#)
        let found = try F.confirmedCounterexample(
            try F.prove(policy, alphabet: "[0-9]"), policies: PolicySimulator(identityPolicies: [policy]))
        #expect(found != nil && found?.action != "s3:GetObject")
    }

    @Test func aBucketPolicyThatGrantsMoreThanTheRoleLeaks() throws {
        let policy = try Self.perUser()
        let bucketPolicy = try TestSupport.policy(#"""
            {"Version": "2012-10-17", "Statement": {"Effect": "Allow",
             "Principal": {"AWS": "arn:aws:iam::111122223333:role/personal-store"},
             "Action": "s3:GetObject", "Resource": "arn:aws:s3:::wif-personal/*"}}
            """#, kind: .resource, name: "bucket-policy")
        let result = try F.prove(policy, alphabet: "[0-9]", resourcePolicy: bucketPolicy)
        let found = try F.confirmedCounterexample(
            result, policies: PolicySimulator(identityPolicies: [policy], resourcePolicy: bucketPolicy))
        #expect(found?.allowedBy.contains { $0.policyName == "bucket-policy" } == true)
    }

    @Test func aSessionPolicyNarrowsASharedRole() throws {
        let shared = try F.policy(
            F.listing(nil) + "," + F.objects("arn:aws:s3:::wif-personal/*"), name: "shared-bucket")
        let session = try Self.perUser()
        #expect(try F.prove(shared, alphabet: "[0-9]", sessionPolicies: [session]).name == "proved")
        #expect(try F.prove(shared, alphabet: "[0-9]", boundary: session).name == "proved")
        #expect(try F.prove(shared, alphabet: "[0-9]").name == "counterexample")
    }

    @Test func aDenyOutsideTheFolderConfinesABroadAllow() throws {
        let guarded = try F.policy(F.listing() + "," + F.objects("arn:aws:s3:::wif-personal/*") + "," + #"""
            {"Sid": "OnlyOwnFolder", "Effect": "Deny", "Action": "s3:*",
             "NotResource": ["arn:aws:s3:::wif-personal/${graph.facebook.com:id}/*", "arn:aws:s3:::wif-personal"]}
            """#)
        let result = try F.prove(guarded, alphabet: "[0-9]")
        guard case .proved(let proof) = result else {
            Issue.record("expected a proof, got \(result)")
            return
        }
        #expect(proof.reasons.contains { $0.contains("OnlyOwnFolder") })
    }

    @Test func anUnknownVariableIsUndecidedNotProved() throws {
        // aws:userid is not modelled: its value could name any folder.
        let policy = try F.policy(F.objects("arn:aws:s3:::wif-personal/${aws:userid}/*"))
        let result = try F.prove(policy, alphabet: "[0-9]")
        guard case .undecided(let undecided) = result else {
            Issue.record("expected undecided, got \(result)")
            return
        }
        #expect(undecided.construct.contains("${aws:userid}"))
        #expect(undecided.reason.contains("unknown"))
        // Given as a fixed value, it is decided.
        let prover = PolicyProver(
            bucket: F.bucket, alphabet: try IdentifierAlphabet("[A-Za-z0-9:]"), fixedContext: ["aws:userid": "AROAEXAMPLE:app"])
        let fixed = prover.proveIsolation(identityPolicies: [policy], template: try PartitionTemplate("{id}/"), idKey: F.idKey)
        #expect(fixed.name == "counterexample")
    }

    @Test func theTestingHelperReadsLikeTheAccessRule() throws {
        let prover = try F.prover("[0-9]")
        #expect(try prover.isolates(try Self.perUser(), template: "{id}/", idKey: "graph.facebook.com:id"))
        #expect(try !prover.isolates(try F.policy(F.listing(nil)), template: "{id}/", idKey: "graph.facebook.com:id"))
        #expect(throws: PolicyEngineError.self) {
            try prover.isolates(try Self.perUser(), template: "no-id/", idKey: "graph.facebook.com:id")
        }
    }

    @Test func alphabetsAndTemplatesAreCheckedUpFront() throws {
        #expect(throws: PolicyEngineError.self) { try IdentifierAlphabet("0-9") }
        #expect(throws: PolicyEngineError.self) { try IdentifierAlphabet("[9-0]") }
        #expect(throws: PolicyEngineError.self) { try PartitionTemplate("{id}/{id}/") }
        let alphabet = try IdentifierAlphabet("[^/]")
        #expect(alphabet.admits("a*b") && !alphabet.admits("a/b"))
        #expect(try IdentifierAlphabet("[a-z0-9:-]").admits("us-east-1:abc"))
        #expect(try PartitionTemplate("private/{id}/").folder(for: "7") == "private/7/")
    }
}
