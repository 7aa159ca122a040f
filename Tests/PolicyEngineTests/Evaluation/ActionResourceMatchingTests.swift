import Testing

@testable import PolicyEngine

/// Action matching (case-insensitive `service:action` with `*` and `?`) and resource matching
/// (case-sensitive ARNs, per "IAM JSON policy elements: Resource" and "IAM JSON policy elements: Action").
@Suite("Action and resource matching")
struct ActionResourceMatchingTests {
    private func allows(action pattern: String, _ action: String) throws -> Bool {
        let policy = try TestSupport.policy(
            #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": ""# + pattern + #"", "Resource": "*"}}"#)
        return TestSupport.decide(policy, action, "arn:aws:s3:::b/k", RequestContext(principal: TestSupport.user)).isAllowed
    }

    private func allows(resource pattern: String, _ resource: String, element: String = "Resource") throws -> Bool {
        let policy = try TestSupport.policy(
            #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:GetObject", ""# + element + #"": ""#
                + pattern + #""}}"#)
        return TestSupport.decide(policy, "s3:GetObject", resource, RequestContext(principal: TestSupport.user)).isAllowed
    }

    @Test(arguments: [
        ("s3:GetObject", "s3:GetObject", true),
        ("s3:GetObject", "S3:GETOBJECT", true),
        ("S3:getobject", "s3:GetObject", true),
        ("s3:Get*", "s3:GetObjectAcl", true),
        ("s3:Get*", "s3:PutObject", false),
        ("s3:?etObject", "s3:GetObject", true),
        ("s3:?etObject", "s3:GGetObject", false),
        ("iam:*AccessKey*", "iam:CreateAccessKey", true),
        ("iam:*AccessKey*", "iam:ListAccessKeys", true),
        ("*", "dynamodb:GetItem", true),
        ("s3:*", "s3express:CreateSession", false),
        ("s3:GetObject", "s3:GetObjectVersion", false),
    ])
    func actions(pattern: String, action: String, expected: Bool) throws {
        #expect(try self.allows(action: pattern, action) == expected)
    }

    @Test func notActionCoversEveryOtherAction() throws {
        let policy = try TestSupport.policy(
            #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "NotAction": ["iam:*", "s3:Delete*"], "Resource": "*"}}"#)
        let context = RequestContext(principal: TestSupport.user)
        #expect(TestSupport.decide(policy, "s3:GetObject", "arn:aws:s3:::b/k", context) == .allow)
        #expect(TestSupport.decide(policy, "s3:DeleteObject", "arn:aws:s3:::b/k", context) == .implicitDeny)
        #expect(TestSupport.decide(policy, "IAM:CreateUser", "*", context) == .implicitDeny)
    }

    @Test(arguments: [
        ("arn:aws:s3:::b/*", "arn:aws:s3:::b/a/b/c.txt", true),
        ("arn:aws:s3:::b/*", "arn:aws:s3:::b", false),
        ("arn:aws:s3:::b/*", "arn:aws:s3:::bb/x", false),
        ("arn:aws:s3:::Bucket/*", "arn:aws:s3:::bucket/x", false),
        ("arn:aws:s3:::b/file?.txt", "arn:aws:s3:::b/file1.txt", true),
        ("arn:aws:s3:::b/file?.txt", "arn:aws:s3:::b/file10.txt", false),
        ("arn:aws:s3:::b/file?.txt", "arn:aws:s3:::b/file.txt", false),
        ("arn:aws:s3:::b/file?.txt", "arn:aws:s3:::b/fileé.txt", true),
        ("arn:aws:s3:::b/*", "arn:aws:s3:::b/a:b:c", true),
        ("*", "arn:aws:s3:::anything/at/all", true),
        ("*", "*", true),
        ("arn:aws:s3:::*", "arn:aws:s3:::b/k", true),
        ("arn:aws:*", "arn:aws:s3:::b/k", true),
        ("arn:aws:s3:::b/k", "arn:aws:s3:::b/k", true),
        ("arn:aws:iam::111122223333:u*r/bob", "arn:aws:iam::111122223333:user/bob", true),
        ("arn:aws:iam::*1:user/bob", "arn:aws:iam::999:111:user/bob", false),
        ("arn:aws:iam::*:user/bob", "arn:aws:iam::111122223333:user/bob", true),
        ("arn:aws:dynamodb:*:111122223333:table/Books", "arn:aws:dynamodb:us-east-1:111122223333:table/Books", true),
        ("arn:aws:dynamodb:us-*-1:111122223333:table/Books", "arn:aws:dynamodb:us-east-1:111122223333:table/Books", true),
        ("arn:aws:dynamodb:us-*-1:111122223333:table/Books", "arn:aws:dynamodb:eu-west-2:111122223333:table/Books", false),
        ("arn:aws:s3:::b/k", "s3://b/k", false),
    ])
    func resources(pattern: String, resource: String, expected: Bool) throws {
        #expect(try self.allows(resource: pattern, resource) == expected)
    }

    /// The worked example in "IAM JSON policy elements: Resource": `*` expands across `/`.
    @Test(arguments: [
        ("1/test/object.jpg", true), ("1/2/test/object.jpg", true), ("1/2/test/3/object.jpg", true),
        ("1/2/3/test/4/object.jpg", true), ("1///test///object.jpg", true), ("1/test/.jpg", true),
        ("/test/object.jpg", true), ("1/test/", true),
        ("1-test/object.jpg", false), ("test/object.jpg", false), ("test/1.jpg", false),
    ])
    func resourceDocumentationWildcardExample(key: String, expected: Bool) throws {
        #expect(try self.allows(resource: "arn:aws:s3:::amzn-s3-demo-bucket/*/test/*", "arn:aws:s3:::amzn-s3-demo-bucket/" + key) == expected)
    }

    @Test func notResourceCoversEverythingElse() throws {
        #expect(try self.allows(resource: "arn:aws:s3:::b/private/*", "arn:aws:s3:::b/public/x", element: "NotResource"))
        #expect(try !self.allows(resource: "arn:aws:s3:::b/private/*", "arn:aws:s3:::b/private/x", element: "NotResource"))
    }

    @Test func manyStarsDoNotBlowUp() throws {
        let pattern = "arn:aws:s3:::b/" + String(repeating: "*a", count: 30) + "*b"
        let resource = "arn:aws:s3:::b/" + String(repeating: "a", count: 4000)
        #expect(try !self.allows(resource: pattern, resource))
        #expect(try self.allows(resource: pattern, resource + "b"))
    }
}
