import Testing

import PolicyEngine

/// Policies and helpers shared by the prover's tests.
enum ProverFixtures {
    static let bucket = "wif-personal"
    static let idKey = "graph.facebook.com:id"

    /// An identity policy for the bucket from statements written as JSON.
    static func policy(_ statements: String, name: String = "test-policy") throws -> Policy {
        try TestSupport.policy(#"{"Version": "2012-10-17", "Statement": [\#(statements)]}"#, kind: .identity, name: name)
    }

    static let objectActions = #"["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"]"#

    /// The object statement of the Facebook per-user policy, with `resource` in place of the folder.
    static func objects(_ resource: String = "arn:aws:s3:::wif-personal/${graph.facebook.com:id}/*") -> String {
        #"{"Sid": "ReadWriteOwnObjects", "Effect": "Allow", "Action": \#(objectActions), "Resource": "\#(resource)"}"#
    }

    /// The listing statement of the Facebook per-user policy, with `condition` in place of its condition.
    static func listing(
        _ condition: String? = #"{"StringLike": {"s3:prefix": ["${graph.facebook.com:id}/", "${graph.facebook.com:id}/*"]}}"#,
        action: String = "s3:ListBucket"
    ) -> String {
        let conditionText = condition.map { #", "Condition": \#($0)"# } ?? ""
        return #"{"Sid": "ListOwnFolder", "Effect": "Allow", "Action": "\#(action)", "Resource": "arn:aws:s3:::wif-personal"\#(conditionText)}"#
    }

    static func prover(_ alphabet: String? = nil) throws -> PolicyProver {
        PolicyProver(bucket: self.bucket, alphabet: try alphabet.map { try IdentifierAlphabet($0) } ?? .any)
    }

    static func prove(
        _ policy: Policy, template: String = "{id}/", alphabet: String? = nil, idKey: String = ProverFixtures.idKey,
        resourcePolicy: Policy? = nil, sessionPolicies: [Policy] = [], boundary: Policy? = nil
    ) throws -> IsolationResult {
        try self.prover(alphabet).proveIsolation(
            identityPolicies: [policy], resourcePolicy: resourcePolicy, sessionPolicies: sessionPolicies,
            permissionsBoundary: boundary, template: try PartitionTemplate(template), idKey: idKey)
    }

    /// The counterexample, after checking it reaches another user's folder and the simulator allows it.
    static func confirmedCounterexample(
        _ result: IsolationResult, template: String = "{id}/", idKey: String = ProverFixtures.idKey,
        policies: PolicySimulator, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> IsolationCounterexample? {
        guard case .counterexample(let found) = result else {
            Issue.record("expected a counterexample, got \(result)", sourceLocation: sourceLocation)
            return nil
        }
        #expect(found.callerId != found.ownerId, sourceLocation: sourceLocation)
        #expect(!found.callerId.isEmpty && !found.ownerId.isEmpty, sourceLocation: sourceLocation)
        let folder = try PartitionTemplate(template).folder(for: found.ownerId)
        let objectPrefix = "arn:aws:s3:::\(bucket)/"
        if found.resource.hasPrefix(objectPrefix) {
            #expect(found.resource.dropFirst(objectPrefix.count).hasPrefix(folder), sourceLocation: sourceLocation)
        } else if let prefix = found.requestKeys["s3:prefix"] {
            #expect(folder.hasPrefix(prefix) || prefix.hasPrefix(folder), sourceLocation: sourceLocation)
        }
        // Replay independently of the prover.
        var values: [String: ContextValue] = [idKey: ContextValue(found.callerId)]
        for (key, value) in found.requestKeys { values[key] = ContextValue(value) }
        let context = RequestContext(principal: PolicyProver.defaultPrincipal, values: values)
        #expect(policies.decide(ActionName(found.action), found.resource, as: context) == .allow, sourceLocation: sourceLocation)
        return found
    }
}
