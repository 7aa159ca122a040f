import Benchmark
import Foundation
import PolicyEngine

// Time to prove isolation for each shipped per-user policy (target: under 1 s each) and for a 50-statement
// per-user policy (target: under 10 s). Each iteration is one whole proof, with the provider's id alphabet.

let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A policy to prove, ready before measuring.
struct ProofInput: Sendable {
    let prover: PolicyProver
    let policy: Policy
    let template: PartitionTemplate
    let idKey: String

    func prove() -> IsolationResult {
        self.prover.proveIsolation(identityPolicies: [self.policy], template: self.template, idKey: self.idKey)
    }
}

func shippedInput(_ file: String, idKey: String, template: String, alphabet: String) throws -> ProofInput {
    let text = try String(contentsOf: repositoryRoot.appendingPathComponent("policies/\(file)"), encoding: .utf8)
    return ProofInput(
        prover: PolicyProver(bucket: "wif-personal", alphabet: try IdentifierAlphabet(alphabet)),
        policy: try Policy.parse(text, kind: .identity, name: file), template: try PartitionTemplate(template), idKey: idKey)
}

/// Fifty per-user statements: one listing statement and 49 object statements, each for a subfolder.
func fiftyStatementInput() throws -> ProofInput {
    var statements = [#"""
        {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::wif-personal",
         "Condition": {"StringLike": {"s3:prefix": ["${graph.facebook.com:id}/", "${graph.facebook.com:id}/*"]}}}
        """#]
    for folder in 0..<49 {
        statements.append("""
            {"Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
             "Resource": "arn:aws:s3:::wif-personal/${graph.facebook.com:id}/folder-\(folder)/*"}
            """)
    }
    let text = #"{"Version": "2012-10-17", "Statement": ["# + statements.joined(separator: ",\n") + "]}"
    return ProofInput(
        prover: PolicyProver(bucket: "wif-personal", alphabet: try IdentifierAlphabet("[0-9]")),
        policy: try Policy.parse(text, kind: .identity, name: "fifty-statements"), template: try PartitionTemplate("{id}/"),
        idKey: "graph.facebook.com:id")
}

let shipped: [(file: String, idKey: String, template: String, alphabet: String)] = [
    ("facebook/personal-store.json", "graph.facebook.com:id", "{id}/", "[0-9]"),
    ("google/personal-store.json", "accounts.google.com:sub", "{id}/", "[0-9]"),
    ("amazon/personal-store.json", "www.amazon.com:user_id", "{id}/", "[A-Za-z0-9.]"),
    ("cognito/personal-store.json", "cognito-identity.amazonaws.com:sub", "{id}/", "[a-z0-9:-]"),
    ("oidc/personal-store.json", "oidc.example.com:sub", "{id}/", "[^/]"),
    ("local/facebook.json", "graph.facebook.com:id", "facebook/{id}/", "[0-9]"),
    ("local/oidc.json", "wif.localhost:sub", "oidc/{id}/", "[^/]"),
    ("seaweedfs/personal-store.json", "jwt:sub", "{id}/", "[^/]"),
]

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        // The JMH export that Benchmarks/run reads lists only benchmarks that measure throughput.
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        maxDuration: .seconds(3),
        maxIterations: 10_000
    )

    for entry in shipped {
        Benchmark("Prove isolation: \(entry.file)") { benchmark, input in
            for _ in benchmark.scaledIterations {
                blackHole(input.prove())
            }
        } setup: {
            try shippedInput(entry.file, idKey: entry.idKey, template: entry.template, alphabet: entry.alphabet)
        }
    }

    Benchmark("Prove isolation: 50-statement per-user policy") { benchmark, input in
        for _ in benchmark.scaledIterations {
            blackHole(input.prove())
        }
    } setup: {
        try fiftyStatementInput()
    }
}
