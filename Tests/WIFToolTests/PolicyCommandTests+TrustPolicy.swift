import Foundation
import Testing

/// `policy validate --trust-policy`: a permissions policy checked against the providers its role trusts.
extension PolicyCommandTests {
    @Test func validateWithATrustPolicyFlagsVariablesOfProvidersItDoesNotTrust() throws {
        let trust = Self.root.appendingPathComponent("policies/google/trust.json").path
        let facebook = Self.root.appendingPathComponent("policies/facebook/personal-store.json").path
        let google = Self.root.appendingPathComponent("policies/google/personal-store.json").path
        let result = try self.run(["policy", "validate", "--trust-policy", trust, facebook, google])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = self.lines(result.stdout)
        #expect(lines.contains { $0.hasPrefix("\(facebook):") && $0.contains("warning: Statement[") && $0.contains("${graph.facebook.com:id}: the role's trust policy trusts accounts.google.com") }, "\(result.stdout)")
        #expect(!lines.contains { $0.hasPrefix("\(google):") && $0.contains("warning") }, "\(result.stdout)")

        // A permissions policy given as the trust policy names no Principal.
        let refused = try self.run(["policy", "validate", "--trust-policy", facebook, google])
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(refused.stderr.contains("is not a valid trust policy"), "\(refused.stderr)")
    }

    @Test func proveIsolationWithATrustPolicyWarnsOnceAboutEachElement() throws {
        let trust = Self.root.appendingPathComponent("policies/google/trust.json").path
        let facebook = Self.root.appendingPathComponent("policies/facebook/personal-store.json").path
        let result = try self.run([
            "policy", "prove-isolation", "--policy", facebook, "--trust-policy", trust, "--bucket", "wif-personal", "--template", "{id}/",
            "--id-key", "graph.facebook.com:id", "--id-chars", "[0-9]",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let warnings = self.lines(result.stderr).filter { $0.contains("the role's trust policy trusts accounts.google.com") }
        #expect(warnings.count == 2, "\(result.stderr)")
        #expect(warnings.allSatisfy { $0.hasSuffix("(use ${accounts.google.com:sub})") }, "\(warnings)")
    }
}

/// `policy prove-isolation --context`: context keys every session carries with one value.
extension PolicyCommandTests {
    @Test func aFixedContextKeyTurnsAnUndecidedVariableIntoAnAnswer() throws {
        let policy = try self.write(
            "userid.json",
            #"{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::wif-personal/${aws:userid}/*"}]}"#)
        let base = [
            "policy", "prove-isolation", "--policy", policy, "--bucket", "wif-personal", "--template", "{id}/", "--id-key",
            "graph.facebook.com:id", "--id-chars", "[A-Za-z0-9:]",
        ]
        let unknown = try self.run(base)
        #expect(unknown.status == 2, "\(unknown.stdout)")
        #expect(unknown.stdout.contains("the value of ${aws:userid} is unknown to the prover"), "\(unknown.stdout)")
        // With its value fixed, every user reaches the folder named after it.
        let fixed = try self.run(base + ["--context", "aws:userid=AROAEXAMPLE:app"])
        #expect(fixed.status == 1, "\(fixed.stdout)")
        #expect(fixed.stdout.contains("reaches the folder of user 'AROAEXAMPLE:app'"), "\(fixed.stdout)")

        for (context, message) in [("nokey", "--context must be KEY=VALUE"), ("graph.facebook.com:id=1", "is the --id-key")] {
            let refused = try self.run(base + ["--context", context])
            #expect(refused.status == 64, "\(context): \(refused.stderr)")
            #expect(refused.stderr.contains(message), "\(context): \(refused.stderr)")
        }
    }
}
