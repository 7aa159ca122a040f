import Testing

@testable import PolicyEngine

/// Policy variables, per "IAM policy elements: Variables and tags".
@Suite("Policy variables")
struct PolicyVariableTests {
    private let bob = RequestContext(
        principal: try? RequestPrincipal.iamUser(arn: "arn:aws:iam::111122223333:user/bob"), time: TestSupport.time)

    private func policy(_ resource: String, version: String = "2012-10-17") throws -> Policy {
        try TestSupport.policy(
            #"{"Version": ""# + version + #"", "Statement": {"Effect": "Allow", "Action": "s3:*", "Resource": ""# + resource + #""}}"#)
    }

    @Test func substitutesInResourceCaseInsensitively() throws {
        for variable in ["${aws:username}", "${AWS:UserName}", "${ aws:username }"] {
            let policy = try self.policy("arn:aws:s3:::b/home/\(variable)/*")
            #expect(TestSupport.decide(policy, "s3:GetObject", "arn:aws:s3:::b/home/bob/x", self.bob) == .allow, "\(variable)")
            #expect(TestSupport.decide(policy, "s3:GetObject", "arn:aws:s3:::b/home/alice/x", self.bob) == .implicitDeny)
        }
    }

    @Test func variablesAreLiteralTextUnderVersion2008() throws {
        let policy = try self.policy("arn:aws:s3:::b/home/${aws:username}/*", version: "2008-10-17")
        #expect(TestSupport.decide(policy, "s3:GetObject", "arn:aws:s3:::b/home/bob/x", self.bob) == .implicitDeny)
        #expect(TestSupport.decide(policy, "s3:GetObject", "arn:aws:s3:::b/home/${aws:username}/x", self.bob) == .allow)
    }

    @Test func defaultValueAppliesOnlyWhenTheKeyIsAbsent() throws {
        let policy = try self.policy("arn:aws:s3:::b/${aws:PrincipalTag/team, 'company-wide'}/*")
        #expect(TestSupport.decide(policy, "s3:GetObject", "arn:aws:s3:::b/company-wide/x", self.bob) == .allow)
        var tagged = self.bob
        tagged["aws:PrincipalTag/team"] = "red"
        #expect(TestSupport.decide(policy, "s3:GetObject", "arn:aws:s3:::b/red/x", tagged) == .allow)
        #expect(TestSupport.decide(policy, "s3:GetObject", "arn:aws:s3:::b/company-wide/x", tagged) == .implicitDeny)
    }

    @Test func emptyDefaultIsAllowed() throws {
        let policy = try self.policy("arn:aws:s3:::b/x${aws:PrincipalTag/team, ''}")
        #expect(TestSupport.decide(policy, "s3:GetObject", "arn:aws:s3:::b/x", self.bob) == .allow)
    }

    @Test(arguments: [
        ("${*}", "*", true), ("${*}", "anything", false),
        ("${?}", "?", true), ("${?}", "a", false),
        ("${$}", "$", true), ("${$}{x}", "${x}", true),
    ])
    func specialCharacterVariablesAreLiterals(variable: String, key: String, expected: Bool) throws {
        let policy = try self.policy("arn:aws:s3:::b/\(variable)")
        #expect((TestSupport.decide(policy, "s3:GetObject", "arn:aws:s3:::b/\(key)", self.bob) == .allow) == expected)
    }

    @Test func resourceWithAMissingVariableMatchesNothing() throws {
        // Role sessions have no aws:username.
        let session = try TestSupport.cognitoSession("us-east-1:alice")
        let policy = try self.policy("arn:aws:s3:::b/home/${aws:username}/*")
        let context = session.context(at: TestSupport.time)
        #expect(TestSupport.decide(policy, "s3:GetObject", "arn:aws:s3:::b/home//x", context) == .implicitDeny)
        #expect(TestSupport.decide(policy, "s3:GetObject", "arn:aws:s3:::b/home/${aws:username}/x", context) == .implicitDeny)
        #expect(TestSupport.decide(policy, "s3:GetObject", "arn:aws:s3:::b/home/x", context) == .implicitDeny)
    }

    @Test func missingVariableFailsStringConditionsButNegatedOperatorsHold() throws {
        let values: [String: ContextValue] = ["s3:prefix": "home/"]
        #expect(try !TestSupport.holds(#"{"StringLike": {"s3:prefix": "home/${aws:username}/*"}}"#, values))
        #expect(try !TestSupport.holds(#"{"StringEquals": {"s3:prefix": "${aws:username}"}}"#, values))
        #expect(try TestSupport.holds(#"{"StringNotEquals": {"s3:prefix": "${aws:username}"}}"#, values))
        #expect(try TestSupport.holds(#"{"StringNotLike": {"s3:prefix": "${aws:username}*"}}"#, values))
        #expect(try !TestSupport.holds(#"{"ArnLike": {"aws:SourceArn": "arn:aws:s3:::${aws:username}"}}"#, ["aws:SourceArn": "arn:aws:s3:::x"]))
    }

    @Test func substitutesInStringAndArnConditions() throws {
        let values: [String: ContextValue] = ["aws:username": "bob", "s3:prefix": "home/bob/photos"]
        #expect(try TestSupport.holds(#"{"StringLike": {"s3:prefix": "home/${aws:username}/*"}}"#, values))
        #expect(try TestSupport.holds(#"{"StringEquals": {"aws:username": "${aws:username}"}}"#, values))
        #expect(try TestSupport.holds(#"{"StringEqualsIgnoreCase": {"s3:prefix": "HOME/${aws:username}/PHOTOS"}}"#, values))
        #expect(try TestSupport.holds(
            #"{"ArnEquals": {"aws:PrincipalArn": "arn:aws:iam::111122223333:user/${aws:username}"}}"#,
            values.merging(["aws:PrincipalArn": "arn:aws:iam::111122223333:user/bob"]) { $1 }))
    }

    @Test func substitutedValuesAreNeverWildcards() throws {
        // A user whose name is "*" must not match other users' folders, in Resource or in StringLike.
        let values: [String: ContextValue] = ["aws:username": "*", "s3:prefix": "home/alice/"]
        #expect(try !TestSupport.holds(#"{"StringLike": {"s3:prefix": "home/${aws:username}/"}}"#, values))
        #expect(try TestSupport.holds(#"{"StringLike": {"s3:prefix": "home/${aws:username}/"}}"#, ["aws:username": "*", "s3:prefix": "home/*/"]))
        let policy = try self.policy("arn:aws:s3:::b/home/${aws:username}")
        let star = RequestContext(principal: TestSupport.user, values: ["aws:username": "*"])
        #expect(TestSupport.decide(policy, "s3:GetObject", "arn:aws:s3:::b/home/alice", star) == .implicitDeny)
        #expect(TestSupport.decide(policy, "s3:GetObject", "arn:aws:s3:::b/home/*", star) == .allow)
        let question = RequestContext(principal: TestSupport.user, values: ["aws:username": "?"])
        #expect(TestSupport.decide(policy, "s3:GetObject", "arn:aws:s3:::b/home/a", question) == .implicitDeny)
    }

    @Test func multiValuedKeysCannotBeVariables() throws {
        let policy = try self.policy("arn:aws:s3:::b/${aws:TagKeys}/*")
        let context = RequestContext(principal: TestSupport.user, values: ["aws:TagKeys": ["a"]])
        #expect(TestSupport.decide(policy, "s3:GetObject", "arn:aws:s3:::b/a/x", context) == .implicitDeny)
        let withDefault = try self.policy("arn:aws:s3:::b/${aws:TagKeys, 'none'}/*")
        #expect(TestSupport.decide(withDefault, "s3:GetObject", "arn:aws:s3:::b/none/x", context) == .allow)
    }

    @Test func variablesAreNotSubstitutedInActions() throws {
        let policy = try TestSupport.policy(
            #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:Get${aws:username}", "Resource": "*"}}"#)
        let context = RequestContext(principal: TestSupport.user, values: ["aws:username": "Object"])
        #expect(TestSupport.decide(policy, "s3:GetObject", "arn:aws:s3:::b/k", context) == .implicitDeny)
    }

    @Test func userIdsWithColonsWorkInTheResourcePart() throws {
        let policy = try self.policy("arn:aws:s3:::b/home/${aws:userid}/*")
        let context = RequestContext(principal: TestSupport.user, values: ["aws:userid": "AROAEXAMPLE:alice"])
        #expect(TestSupport.decide(policy, "s3:GetObject", "arn:aws:s3:::b/home/AROAEXAMPLE:alice/x", context) == .allow)
        #expect(TestSupport.decide(policy, "s3:GetObject", "arn:aws:s3:::b/home/AROAEXAMPLE:bob/x", context) == .implicitDeny)
    }

    @Test func variableInTheAccountPartIsMatchedLiterally() throws {
        let policy = try TestSupport.policy(
            #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "dynamodb:GetItem", "Resource": "arn:aws:dynamodb:*:${aws:PrincipalAccount}:table/*"}}"#)
        let context = RequestContext(principal: TestSupport.user)
        #expect(TestSupport.decide(policy, "dynamodb:GetItem", "arn:aws:dynamodb:us-east-1:111122223333:table/T", context) == .allow)
        #expect(TestSupport.decide(policy, "dynamodb:GetItem", "arn:aws:dynamodb:us-east-1:444455556666:table/T", context) == .implicitDeny)
    }
}
