import Testing
import WIFTestSupport

@testable import PolicyEngine

/// Mutated policies never crash the parser: every input yields a policy or errors that say where.
@Suite("Policy parser fuzzing")
struct PolicyFuzzTests {
    static let seeds = [
        #"{"Version":"2012-10-17","Statement":[{"Sid":"A","Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::b/${aws:userid}/*"}]}"#,
        #"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::b","Condition":{"StringLike":{"s3:prefix":["${cognito-identity.amazonaws.com:sub}/*",""]},"Bool":{"aws:SecureTransport":true}}}}"#,
        #"{"Version":"2012-10-17","Statement":[{"Effect":"Deny","NotPrincipal":{"AWS":["111122223333","arn:aws:iam::111122223333:role/r"]},"NotAction":"s3:Get*","NotResource":"*","Condition":{"ForAllValues:StringEquals":{"aws:TagKeys":["a"]},"NotIpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}]}"#,
        #"{"Statement":[{"Effect":"Allow","Principal":{"Federated":"cognito-identity.amazonaws.com"},"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"DateLessThan":{"aws:CurrentTime":"2030-01-01T00:00:00Z"},"NumericLessThanEquals":{"s3:max-keys":10},"Null":{"aws:TokenIssueTime":"false"}}}]}"#,
    ]

    /// Fragments that steer mutations toward interesting grammar.
    static let dictionary = [
        "\"*\"", "\"${aws:userid}\"", "\"${\"", "\"${*}\"", "\"\"", "[]", "{}", "null", "true", "1e999", "-0", "\"\\u0000\"",
        "\"\\ud800\"", "\"Effect\"", "\"NotAction\"", "\"Condition\"", "\"StringLike\"", "\"ForAnyValue:StringLike\"",
        "\"Null\"", "\"IpAddress\"", "\"ArnLike\"", "\"Principal\"", "\"AWS\"", "\"arn:aws:s3:::*\"", "\"2012-10-17\"",
        "\"Statement\"", "\"Resource\"", "\"Deny\"", "\"::/0\"", "\"2024-02-30\"", "[[[[", "]]]]", "{\"a\":", ",", ":", "\"",
        "\"StringEqualsIfExists\"", "\"${aws:username, 'x'}\"", "\"é\"", "\"\u{1F600}\"",
    ].map { Array($0.utf8) }

    static func mutate(_ input: [UInt8], _ generator: inout SplitMix64) -> [UInt8] {
        var bytes = input
        for _ in 0...generator.below(3) {
            let position = bytes.isEmpty ? 0 : generator.below(bytes.count + 1)
            switch generator.below(7) {
            case 0 where !bytes.isEmpty:
                bytes[min(position, bytes.count - 1)] = UInt8(truncatingIfNeeded: generator.next())
            case 1:
                bytes.insert(UInt8(truncatingIfNeeded: generator.next() % 128), at: position)
            case 2 where !bytes.isEmpty:
                let end = min(bytes.count, position + generator.below(16) + 1)
                bytes.removeSubrange(min(position, end)..<end)
            case 3:
                bytes.insert(contentsOf: Self.dictionary[generator.below(Self.dictionary.count)], at: position)
            case 4:
                // Replace the next JSON string with a dictionary entry.
                if let quote = bytes[min(position, bytes.count)...].firstIndex(of: UInt8(ascii: "\"")),
                   let close = bytes[(quote + 1)...].firstIndex(of: UInt8(ascii: "\""))
                {
                    bytes.replaceSubrange(quote...close, with: Self.dictionary[generator.below(Self.dictionary.count)])
                }
            case 5 where bytes.count > 2:
                // Duplicate a slice, which duplicates keys and elements.
                let start = generator.below(bytes.count)
                let end = min(bytes.count, start + generator.below(40) + 1)
                bytes.insert(contentsOf: bytes[start..<end], at: position)
            default:
                bytes.insert(contentsOf: Self.seeds[generator.below(Self.seeds.count)].utf8, at: position)
            }
        }
        return bytes
    }

    static let request = AuthorizationRequest(
        action: "s3:GetObject", resource: "arn:aws:s3:::b/AROAEXAMPLE:alice/x",
        context: RequestContext(principal: TestSupport.user, time: TestSupport.time, values: [
            "aws:userid": "AROAEXAMPLE:alice", "s3:prefix": "a/", "aws:TagKeys": ["a", "b"], "aws:SourceIp": "10.1.2.3",
        ]))

    /// Parses `count` mutations; returns how many were valid policies.
    static func run(seed: UInt64, count: Int) -> (valid: Int, failures: [String]) {
        var generator = SplitMix64(seed: seed)
        var valid = 0
        var failures: [String] = []
        for index in 0..<count {
            let base = Array(Self.seeds[generator.below(Self.seeds.count)].utf8)
            let input = Self.mutate(base, &generator)
            let kind: PolicyKind? = generator.below(4) == 0 ? PolicyKind.allCases[generator.below(PolicyKind.allCases.count)] : nil
            let validation = Policy.validate(bytes: input, kind: kind)
            if let policy = validation.policy {
                valid += 1
                if !validation.errors.isEmpty { failures.append("seed \(seed) #\(index): a valid policy with errors") }
                _ = PolicyEvaluator(identityPolicies: [policy], resourcePolicy: policy).evaluate(Self.request)
                if index % 16 == 0 {
                    // A valid policy survives a round trip through its JSON form.
                    let reparsed = Policy.validate(policy.json(pretty: false), kind: kind).policy
                    if reparsed != policy { failures.append("seed \(seed) #\(index): round trip changed the policy") }
                }
            } else {
                if validation.errors.isEmpty { failures.append("seed \(seed) #\(index): rejected without an error") }
                for error in validation.errors where error.path.isEmpty && error.line == nil {
                    failures.append("seed \(seed) #\(index): error without a location: \(error)")
                }
            }
        }
        return (valid, failures)
    }

    @Test func hundredThousandMutatedPoliciesNeverCrash() async {
        // Split across tasks so both cores share the work; each task has its own seed, so runs are repeatable.
        let tasks = 4
        let perTask = 25_000
        let results = await withTaskGroup(of: (Int, [String]).self) { group in
            for task in 0..<tasks {
                group.addTask { Self.run(seed: 0xF0_0D + UInt64(task), count: perTask) }
            }
            var collected: [(Int, [String])] = []
            for await result in group { collected.append(result) }
            return collected
        }
        let valid = results.reduce(0) { $0 + $1.0 }
        let failures = results.flatMap(\.1)
        #expect(failures.isEmpty, "\(failures.prefix(10))")
        // The mutations must exercise both outcomes, or the fuzzing proves little.
        #expect(valid > 1_000)
        #expect(valid < tasks * perTask - 1_000)
    }

    @Test func pathologicalInputs() {
        let inputs: [[UInt8]] = [
            [], [0xFF, 0xFE], Array(repeating: UInt8(ascii: "["), count: 100_000),
            Array(("{\"Statement\":\"" + String(repeating: "\\", count: 10_001) + "\"}").utf8),
            Array(("{" + String(repeating: "\"a\":1,", count: 5_000) + "\"a\":1}").utf8),
            Array(#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"arn:aws:s3:::"#.utf8)
                + Array(repeating: UInt8(ascii: "*"), count: 50_000) + Array(#""}}"#.utf8),
        ]
        for input in inputs {
            let validation = Policy.validate(bytes: input)
            #expect(validation.policy != nil || !validation.errors.isEmpty)
        }
    }
}
