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
}
