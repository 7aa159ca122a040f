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

    @Test func simulateWarnsOfAnActionWithoutServiceAndAResourceThatIsNoARN() throws {
        let result = try self.run(["policy", "simulate", "--action", "GetObject", "--resource", "bucket/key"])
        #expect(result.status == 0)
        #expect(result.stdout == "ImplicitDeny\n")
        #expect(result.stderr.contains("warning: --action 'GetObject' has no service prefix; IAM actions are written SERVICE:ACTION, such as s3:GetObject"), "\(result.stderr)")
        #expect(result.stderr.contains("warning: --resource 'bucket/key' is not an ARN such as arn:aws:s3:::bucket/key, nor *"), "\(result.stderr)")
    }

    // MARK: NotPrincipal

    static let allowExceptTestUser = """
        {"Version": "2012-10-17", "Statement": {"Effect": "Allow",
          "NotPrincipal": {"AWS": "arn:aws:iam::111122223333:user/test-user"}, "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"}}
        """

    @Test func simulateDoesNotLetAnAllowWithNotPrincipalGrantTheNamedUser() throws {
        let policy = try self.write("bucket.json", Self.allowExceptTestUser)
        let request = ["policy", "simulate", "--resource-policy", policy, "--action", "s3:GetObject", "--resource", "arn:aws:s3:::b/k"]
        let named = try self.run(request + ["--principal", "arn:aws:iam::111122223333:user/test-user"])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.stdout == "ImplicitDeny\n")

        let explained = try self.run(request + ["--principal", "arn:aws:iam::111122223333:user/test-user", "--explain"])
        #expect(explained.stdout.hasPrefix("ImplicitDeny\nIMPLICIT DENY: Implicitly denied: no statement allows s3:GetObject on arn:aws:s3:::b/k."))
        #expect(explained.stdout.contains("""
            principal  [no]  the caller 'arn:aws:iam::111122223333:user/test-user' is left out of this Allow: NotPrincipal \
            lists its user 'arn:aws:iam::111122223333:user/test-user'
            """), "\(explained.stdout)")
        #expect(!explained.stdout.contains("every identity"))

        let other = try self.run(request + ["--principal", "arn:aws:iam::111122223333:user/someone-else", "--explain"])
        #expect(other.stdout.hasPrefix("Allow\nALLOW: Allowed by resource policy"), "\(other.stdout)")
        #expect(other.stdout.contains("principal  [yes] the caller 'arn:aws:iam::111122223333:user/someone-else' is not listed in NotPrincipal"))

        let anonymous = try self.run(request + ["--principal", "anonymous"])
        #expect(anonymous.stdout == "Allow\n", "an Allow with NotPrincipal reaches anonymous callers too")
    }

    @Test func simulateExplainsADenyWithNotPrincipalThatMissesTheAccount() throws {
        let bucket = try self.write("bucket.json", """
            {"Version": "2012-10-17", "Statement": {"Effect": "Deny",
              "NotPrincipal": {"AWS": "arn:aws:iam::111122223333:user/test-user"}, "Action": "s3:*", "Resource": "arn:aws:s3:::b/*"}}
            """)
        let identity = try self.write("identity.json", #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:*", "Resource": "*"}}"#)
        let result = try self.run([
            "policy", "simulate", "--policy", identity, "--resource-policy", bucket, "--action", "s3:GetObject",
            "--resource", "arn:aws:s3:::b/k", "--principal", "arn:aws:iam::111122223333:user/test-user", "--explain",
        ])
        #expect(result.stdout.hasPrefix("ExplicitDeny\n"), "\(result.stdout)")
        #expect(result.stdout.contains("is not exempt from this Deny: a NotPrincipal Deny exempts a caller only when every identity of the caller is listed, and NotPrincipal does not list its account 111122223333"))
    }
}
