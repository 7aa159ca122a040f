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
