import Testing

import PolicyEngine

/// Deny statements with conditions, and `…IgnoreCase` prefix conditions: decided exactly when their
/// conditions test keys the prover knows (the fixed context, or keys a request of the kind never carries),
/// and when ids cannot differ in case only.
@Suite struct ConditionalDenyTests {
    typealias F = ProverFixtures

    static let everyObject = #"{"Effect": "Allow", "Action": "s3:*Object", "Resource": "arn:aws:s3:::wif-personal/*"}"#

    /// Every object allowed, and everything outside the caller's folder denied when `condition` holds.
    static func denyOutside(_ condition: String) throws -> Policy {
        try F.policy(
            Self.everyObject + "," + F.listing() + #", {"Effect": "Deny", "Action": "s3:*", "#
                + #""NotResource": ["arn:aws:s3:::wif-personal/${graph.facebook.com:id}/*", "arn:aws:s3:::wif-personal"], "#
                + #""Condition": \#(condition)}"#)
    }

    static func prover(tier: String) throws -> PolicyProver {
        PolicyProver(
            bucket: F.bucket, alphabet: try IdentifierAlphabet("[0-9]"), fixedContext: ["aws:PrincipalTag/tier": ContextValue(tier)])
    }

    @Test func aDenyOnAFixedKeyThatHoldsConfinesABroadAllow() throws {
        let policy = try Self.denyOutside(#"{"StringEquals": {"aws:PrincipalTag/tier": "free"}}"#)
        let result = try Self.prover(tier: "free").proveIsolation(
            identityPolicies: [policy], template: try PartitionTemplate("{id}/"), idKey: F.idKey)
        #expect(result.name == "proved", "\(result)")
    }

    @Test func aDenyOnAFixedKeyThatFailsLeavesTheAllowOpen() throws {
        let policy = try Self.denyOutside(#"{"StringEquals": {"aws:PrincipalTag/tier": "free"}}"#)
        let result = try Self.prover(tier: "paid").proveIsolation(
            identityPolicies: [policy], template: try PartitionTemplate("{id}/"), idKey: F.idKey)
        let simulator = PolicySimulator(identityPolicies: [policy])
        guard case .counterexample(let found) = result else {
            Issue.record("expected a counterexample, got \(result)")
            return
        }
        var values: [String: ContextValue] = [F.idKey: ContextValue(found.callerId), "aws:PrincipalTag/tier": "paid"]
        for (key, value) in found.requestKeys { values[key] = ContextValue(value) }
        let context = RequestContext(principal: PolicyProver.defaultPrincipal, values: values)
        #expect(simulator.decide(ActionName(found.action), found.resource, as: context) == .allow)
    }

    @Test func aDenyOnAKeyObjectRequestsNeverCarryAppliesToEveryObjectRequest() throws {
        // Object requests carry no s3:prefix, so `Null: true` holds for each of them.
        let policy = try Self.denyOutside(#"{"Null": {"s3:prefix": "true"}}"#)
        #expect(try F.prove(policy, alphabet: "[0-9]").name == "proved")
        // While a deny that needs s3:prefix never applies to them.
        let inert = try Self.denyOutside(#"{"Null": {"s3:prefix": "false"}}"#)
        _ = try F.confirmedCounterexample(
            try F.prove(inert, alphabet: "[0-9]"), policies: PolicySimulator(identityPolicies: [inert]))
    }

    @Test func anAllowOnAFixedKeyThatFailsGrantsNothing() throws {
        let policy = try F.policy(
            F.objects() + "," + F.listing() + #", {"Effect": "Allow", "Action": "s3:*", "Resource": "*", "#
                + #""Condition": {"StringEquals": {"aws:PrincipalTag/tier": "admin"}}}"#)
        let result = try Self.prover(tier: "free").proveIsolation(
            identityPolicies: [policy], template: try PartitionTemplate("{id}/"), idKey: F.idKey)
        #expect(result.name == "proved", "\(result)")
    }

    @Test func anIgnoreCasePrefixIsConfinedWhenIdsHaveOneCase() throws {
        let policy = try F.policy(
            F.listing(#"{"StringEqualsIgnoreCase": {"s3:prefix": "${graph.facebook.com:id}/"}}"#) + "," + F.objects())
        #expect(try F.prove(policy, alphabet: "[0-9]").name == "proved")
        #expect(try F.prove(policy, alphabet: "[a-z0-9:-]").name == "proved")
        // With letters in both cases, `ALICE/` is another user's folder.
        let found = try F.confirmedCounterexample(
            try F.prove(policy, alphabet: "[A-Za-z]"), policies: PolicySimulator(identityPolicies: [policy]))
        #expect(found.map { $0.callerId.lowercased() == $0.ownerId.lowercased() } == true)
    }

    @Test func anIgnoreCaseDenyConfinesAnOpenListing() throws {
        let policy = try F.policy(
            F.objects() + "," + F.listing(nil) + #", {"Effect": "Deny", "Action": "s3:ListBucket", "#
                + #""Resource": "arn:aws:s3:::wif-personal", "#
                + #""Condition": {"StringNotEqualsIgnoreCase": {"s3:prefix": "${graph.facebook.com:id}/"}}}"#)
        #expect(try F.prove(policy, alphabet: "[0-9]").name == "proved")
        let found = try F.confirmedCounterexample(
            try F.prove(policy, alphabet: "[A-Za-z]"), policies: PolicySimulator(identityPolicies: [policy]))
        #expect(found?.action == "s3:ListBucket")
    }

    @Test func anAllowForOneNamedUserIsFoundForThatUser() throws {
        let policy = try F.policy(
            F.objects() + "," + F.listing() + #", {"Effect": "Allow", "Action": "s3:GetObject", "#
                + #""Resource": "arn:aws:s3:::wif-personal/*", "Condition": {"StringEquals": {"graph.facebook.com:id": "4242"}}}"#)
        let found = try F.confirmedCounterexample(
            try F.prove(policy, alphabet: "[0-9]"), policies: PolicySimulator(identityPolicies: [policy]))
        #expect(found?.callerId == "4242")
    }

    /// Keys the prover derives for replay from a stand-in principal and date are not known values: a
    /// condition on them neither rules an allow out nor makes a deny certain.
    @Test func thePrincipalAndTheTimeAreNotKnownValues() throws {
        let otherAccount = try F.policy(
            F.objects() + "," + F.listing() + #", {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::wif-personal/*", "#
                + #""Condition": {"StringEquals": {"aws:PrincipalAccount": "444455556666"}}}"#)
        #expect(try F.prove(otherAccount, alphabet: "[0-9]").name != "proved")
        let later = try F.policy(
            F.objects() + "," + F.listing() + #", {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::wif-personal/*", "#
                + #""Condition": {"DateGreaterThan": {"aws:CurrentTime": "2099-01-01T00:00:00Z"}}}"#)
        #expect(try F.prove(later, alphabet: "[0-9]").name != "proved")
        let untilThen = try Self.denyOutside(#"{"DateLessThan": {"aws:CurrentTime": "2099-01-01T00:00:00Z"}}"#)
        #expect(try F.prove(untilThen, alphabet: "[0-9]").name != "proved")
        // A variable of the id with a default is not a fixed value either.
        let prover = try Self.prover(tier: "admin")
        let defaulted = try Self.denyOutside(#"{"StringEquals": {"aws:PrincipalTag/tier": "${graph.facebook.com:id, 'admin'}"}}"#)
        #expect(prover.proveIsolation(identityPolicies: [defaulted], template: try PartitionTemplate("{id}/"), idKey: F.idKey).name != "proved")
        // Nor in a resource: a session may carry the tag, with another user's id in it.
        let tagged = try F.policy(
            F.objects("arn:aws:s3:::wif-personal/${aws:PrincipalTag/folder, 'zz'}/*") + "," + F.listing())
        #expect(try F.prove(tagged, alphabet: "[0-9]").name == "undecided")
    }

    @Test func ignoringCaseIsNeverConfinedWhereCaseCouldNameAnotherFolder() throws {
        // Ids in capitals: `public/` ignoring case is the folder of user PUBLIC.
        let publicFolder = try F.policy(
            F.objects() + "," + F.listing(#"{"StringEqualsIgnoreCase": {"s3:prefix": "public/"}}"#))
        #expect(try F.prove(publicFolder, alphabet: "[A-Z0-9]").name != "proved")
        // Letters after the id could nest folders once case is folded.
        let suffixed = try F.policy(
            F.objects("arn:aws:s3:::wif-personal/${graph.facebook.com:id}X*") + ","
                + F.listing(#"{"StringEqualsIgnoreCase": {"s3:prefix": "${graph.facebook.com:id}X"}}"#))
        #expect(try F.prove(suffixed, template: "{id}X", alphabet: "[a-z]").name != "proved")
        // One key, lowercase callers and capital owners: `abc` and `ABC` are two users.
        let key = F.idKey
        let listing = try F.policy(F.listing(#"{"StringEqualsIgnoreCase": {"s3:prefix": "${\#(key)}/"}}"#) + "," + F.objects())
        let roles = try [("lower", "[a-z]"), ("upper", "[A-Z]")].map { name, alphabet in
            IsolationRole(
                name: name, policies: PolicyEvaluator(identityPolicies: [listing]), template: try PartitionTemplate("{id}/"),
                idKey: key, alphabet: try IdentifierAlphabet(alphabet))
        }
        let answers = try F.prover().proveIsolation(across: roles)
        #expect(answers.first { $0.caller == "lower" && $0.owner == "upper" }?.result.name != "proved", "\(answers)")
    }
}
