import AccessRules
import Benchmark
import Foundation
import PolicyEngine

// A record decision under a three-rule model (owner, the Admin group, signed-in read), beside the IAM
// decision for the same question (may Alice read her own object?) with a per-user policy; and the
// compile-and-prove of the default storage layout. Decision benchmarks make 1,000 decisions per
// measured iteration (scaling factor .kilo), on a record already decoded and a request built beforehand.

let schema = """
    type Todo @model @auth(rules: [
      { allow: owner },
      { allow: groups, groups: ["Admin"] },
      { allow: private, operations: [read] }
    ]) {
      id: ID!
      content: String
      owner: String
    }
    """

struct RecordQuestion: Sendable {
    let evaluator: RuleEvaluator
    let caller: Caller
    let record: Record
}

let perUserPolicy = """
    {"Version": "2012-10-17", "Statement": [
      {"Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
       "Resource": "arn:aws:s3:::todos/${cognito-identity.amazonaws.com:sub}/*"}]}
    """

struct ProofFailed: Error {
    var counterexamples: Int
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 1_000_000
    )

    Benchmark("record decision, three rules, owner reads") { (benchmark: Benchmark, question: RecordQuestion) in
        for _ in benchmark.scaledIterations {
            blackHole(question.evaluator.decide(model: "Todo", operation: .get, caller: question.caller, before: question.record).isAllowed)
        }
    } setup: {
        RecordQuestion(
            evaluator: RuleEvaluator(ruleSet: try RuleSet(schema: schema)), caller: .userPools(sub: "sub-a", username: "alice"),
            record: ["id": "1", "content": "milk", "owner": "sub-a::alice"])
    }

    Benchmark("record decision, three rules, another user updates") { (benchmark: Benchmark, question: RecordQuestion) in
        for _ in benchmark.scaledIterations {
            blackHole(question.evaluator.decide(model: "Todo", operation: .update, caller: question.caller, before: question.record).isAllowed)
        }
    } setup: {
        RecordQuestion(
            evaluator: RuleEvaluator(ruleSet: try RuleSet(schema: schema)), caller: .userPools(sub: "sub-b", username: "bob"),
            record: ["id": "1", "content": "milk", "owner": "sub-a::alice"])
    }

    Benchmark("IAM decision, owner reads own object") { (benchmark: Benchmark, prepared: (PolicyEvaluator, AuthorizationRequest)) in
        for _ in benchmark.scaledIterations {
            blackHole(prepared.0.evaluate(prepared.1))
        }
    } setup: {
        let evaluator = PolicyEvaluator(identityPolicies: [try Policy.parse(perUserPolicy, kind: .identity, name: "per-user")])
        let session = try WebIdentitySession(
            .cognito(identityId: "us-east-1:11111111-1111-4111-8111-111111111111", identityPoolId: "us-east-1:00000000-0000-4000-8000-000000000001"),
            role: "arn:aws:iam::000000000000:role/todos", sessionName: "alice")
        let request = AuthorizationRequest(
            action: "s3:GetObject", resource: "arn:aws:s3:::todos/us-east-1:11111111-1111-4111-8111-111111111111/1.json",
            context: session.context(at: Timestamp(secondsSince1970: 1_714_564_800)))
        return (evaluator, request)
    }

    Benchmark(
        "storage proof, default layout (compile and prove)",
        configuration: .init(metrics: [.wallClock, .throughput], scalingFactor: .one, maxDuration: .seconds(10), maxIterations: 20)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            let rules = StorageRules.amplifyDefault(bucket: "wif-personal")
            let compiled = try StorageCompiler(identityPoolId: "us-east-1:00000000-0000-4000-8000-000000000001").compile(rules)
            let proof = try StorageProof.check(rules, compiled: compiled)
            guard proof.holds else { throw ProofFailed(counterexamples: proof.counterexamples.count) }
            blackHole(proof.checked)
        }
    }
}
