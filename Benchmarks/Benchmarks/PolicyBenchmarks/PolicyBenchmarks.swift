import Benchmark
import Foundation
import PolicyEngine

// Decisions for the shipped Facebook personal-store policy (policies/facebook/personal-store.json: two
// statements, one policy variable, one condition), a 50-statement policy with conditions, and parsing.
// `peers/cedarpy_policy.py` makes the same three seed decisions (and parses an equivalent Cedar policy);
// `Benchmarks/run policy` prints the ratio. Each measured iteration makes 1,000 decisions (scaling factor
// .kilo), so per-decision figures are the reported time divided by 1,000.
//
// The decision benchmarks build the AuthorizationRequest for every decision, from a role session's context
// prepared once (as a server keeps it with the session's credentials); ListBucket also adds s3:prefix and
// s3:delimiter to that context. The "prepared request" variants evaluate a request built beforehand, which
// is the evaluator alone.

let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let bucket = "wif-personal"
let time = Timestamp(secondsSince1970: 1_714_564_800)

struct SeedState: Sendable {
    let text: String
    let evaluator: PolicyEvaluator
    let context: RequestContext
}

/// An evaluator and one request for it, built before measuring.
struct Prepared: Sendable {
    let evaluator: PolicyEvaluator
    let request: AuthorizationRequest
}

func loadSeed() throws -> SeedState {
    let url = repositoryRoot.appendingPathComponent("policies/facebook/personal-store.json")
    let text = try String(contentsOf: url, encoding: .utf8)
    let policy = try Policy.parse(text, kind: .identity, name: "personal-store")
    let session = try WebIdentitySession(
        .facebook(userId: "1234567890", appId: "FACEBOOK_APP_ID"),
        role: "arn:aws:iam::123456789012:role/personal-store", sessionName: "facebook-1234567890")
    return SeedState(text: text, evaluator: PolicyEvaluator(identityPolicies: [policy]), context: session.context(at: time))
}

/// Fifty statements on the same bucket, each for one team and one network: every statement's action and
/// resource match, so each one's conditions are evaluated until the last statement allows.
func fiftyStatementPolicy() throws -> Policy {
    var statements: [String] = []
    for team in 0..<50 {
        statements.append("""
            {"Sid": "Team\(team)", "Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject"],
             "Resource": "arn:aws:s3:::team-bucket/${aws:PrincipalTag/team}/*",
             "Condition": {"StringEquals": {"aws:PrincipalTag/team": "team-\(team)"},
                           "IpAddress": {"aws:SourceIp": "10.\(team).0.0/16"},
                           "Bool": {"aws:SecureTransport": "true"}}}
            """)
    }
    let text = #"{"Version": "2012-10-17", "Statement": ["# + statements.joined(separator: ",\n") + "]}"
    return try Policy.parse(text, kind: .identity, name: "fifty-statements")
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 1_000_000
    )

    Benchmark("Seed policy: allowed GetObject") { benchmark, seed in
        for _ in benchmark.scaledIterations {
            let request = AuthorizationRequest.s3Object(
                "GetObject", bucket: bucket, key: "1234567890/photos/2026/holiday.jpg", context: seed.context)
            blackHole(seed.evaluator.evaluate(request))
        }
    } setup: {
        try loadSeed()
    }

    Benchmark("Seed policy: denied cross-user GetObject") { benchmark, seed in
        for _ in benchmark.scaledIterations {
            let request = AuthorizationRequest.s3Object(
                "GetObject", bucket: bucket, key: "1234567891/photos/2026/holiday.jpg", context: seed.context)
            blackHole(seed.evaluator.evaluate(request))
        }
    } setup: {
        try loadSeed()
    }

    Benchmark("Seed policy: ListBucket with prefix") { benchmark, seed in
        for _ in benchmark.scaledIterations {
            let request = AuthorizationRequest.s3ListBucket(
                bucket: bucket, prefix: "1234567890/photos/", delimiter: "/", context: seed.context)
            blackHole(seed.evaluator.evaluate(request))
        }
    } setup: {
        try loadSeed()
    }

    Benchmark("Seed policy: allowed GetObject, prepared request") { (benchmark: Benchmark, prepared: Prepared) in
        for _ in benchmark.scaledIterations {
            blackHole(prepared.evaluator.evaluate(prepared.request))
        }
    } setup: {
        let seed = try loadSeed()
        let request = AuthorizationRequest.s3Object(
            "GetObject", bucket: bucket, key: "1234567890/photos/2026/holiday.jpg", context: seed.context)
        return Prepared(evaluator: seed.evaluator, request: request)
    }

    Benchmark("Seed policy: ListBucket with prefix, prepared request") { (benchmark: Benchmark, prepared: Prepared) in
        for _ in benchmark.scaledIterations {
            blackHole(prepared.evaluator.evaluate(prepared.request))
        }
    } setup: {
        let seed = try loadSeed()
        let request = AuthorizationRequest.s3ListBucket(
            bucket: bucket, prefix: "1234567890/photos/", delimiter: "/", context: seed.context)
        return Prepared(evaluator: seed.evaluator, request: request)
    }

    Benchmark("50-statement policy with conditions, last allows") { (benchmark: Benchmark, prepared: Prepared) in
        for _ in benchmark.scaledIterations {
            let request = AuthorizationRequest(
                action: "s3:GetObject", resource: "arn:aws:s3:::team-bucket/team-49/report.pdf",
                context: prepared.request.context)
            blackHole(prepared.evaluator.evaluate(request))
        }
    } setup: {
        let principal = try RequestPrincipal.assumedRole(roleArn: "arn:aws:iam::123456789012:role/teams", sessionName: "member")
        let context = RequestContext(principal: principal, time: time, values: [
            "aws:PrincipalTag/team": "team-49", "aws:SourceIp": "10.49.7.20", "aws:SecureTransport": "true",
        ])
        // The request is rebuilt in every iteration from this one's context.
        let request = AuthorizationRequest(action: "s3:GetObject", resource: "arn:aws:s3:::team-bucket/", context: context)
        return Prepared(evaluator: PolicyEvaluator(identityPolicies: [try fiftyStatementPolicy()]), request: request)
    }

    Benchmark("Seed policy parse and compile") { benchmark, seed in
        for _ in benchmark.scaledIterations {
            blackHole(try Policy.parse(seed.text, kind: .identity, name: "personal-store"))
        }
    } setup: {
        try loadSeed()
    }
}
