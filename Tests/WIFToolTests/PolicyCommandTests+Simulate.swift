import Foundation
import Testing

extension PolicyCommandTests {
    // MARK: simulate with no policy

    @Test func simulateAnswersImplicitDenyWithoutPolicies() throws {
        let allowAll = try self.write("all.json", #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "*", "Resource": "*"}}"#)
        let request = ["policy", "simulate", "--action", "s3:GetObject", "--resource", "arn:aws:s3:::b/k"]
        for extra in [[], ["--session-policy", allowAll], ["--boundary", allowAll], ["--session-policy", allowAll, "--boundary", allowAll]] {
            let result = try self.run(request + extra + ["--expect", "ImplicitDeny"])
            #expect(result.status == 0, "\(extra): \(result.stderr)")
            #expect(result.stdout == "ImplicitDeny\n", "\(extra)")
            #expect(result.stderr.isEmpty, "\(extra)")
        }
        let json = try self.run(request + ["--json"])
        #expect(json.stdout == #"{"decision":"ImplicitDeny","statements":[]}"# + "\n")
        let explained = try self.run(request + ["--boundary", allowAll, "--explain"])
        #expect(explained.stdout.hasPrefix("ImplicitDeny\nIMPLICIT DENY: Implicitly denied: no statement allows s3:GetObject on arn:aws:s3:::b/k."))
    }
}
