import Testing

@testable import PolicyEngine

/// `ForAnyValue:` and `ForAllValues:`, per "Creating a condition with multiple context keys or values" and
/// "Multivalued context key examples" in the IAM User Guide: values of one key are OR'ed, ForAllValues
/// holds for an absent key or empty set, ForAnyValue does not.
@Suite("Set operators for multi-valued keys")
struct SetOperatorTests {
    private func holds(_ condition: String, _ tags: [String]?) throws -> Bool {
        try TestSupport.holds(condition, tags.map { ["aws:TagKeys": ContextValue(multiple: $0)] } ?? [:])
    }

    @Test(arguments: [
        (nil, true),
        ([], true),
        (["DataClass"], true),
        (["DataClass", "Owner"], true),
        (["DataClass", "Dept"], false),
        (["Dept", "SIC"], false),
        (["DataClass", "Owner", "Dept"], false),
    ] as [([String]?, Bool)])
    func forAllValuesStringEquals(tags: [String]?, expected: Bool) throws {
        #expect(try self.holds(#"{"ForAllValues:StringEquals": {"aws:TagKeys": ["DataClass", "Owner"]}}"#, tags) == expected)
    }

    @Test(arguments: [
        (nil, false),
        ([], false),
        (["DataClass"], true),
        (["Dept", "DataClass"], true),
        (["Dept", "SIC"], false),
    ] as [([String]?, Bool)])
    func forAnyValueStringEquals(tags: [String]?, expected: Bool) throws {
        #expect(try self.holds(#"{"ForAnyValue:StringEquals": {"aws:TagKeys": ["DataClass", "Owner"]}}"#, tags) == expected)
    }

    @Test(arguments: [
        (nil, false),
        ([], false),
        (["DataClass", "Owner"], false),
        (["Dept", "DataClass"], true),
        (["Dept", "SIC"], true),
    ] as [([String]?, Bool)])
    func forAnyValueStringNotEquals(tags: [String]?, expected: Bool) throws {
        #expect(try self.holds(#"{"ForAnyValue:StringNotEquals": {"aws:TagKeys": ["DataClass", "Owner"]}}"#, tags) == expected)
    }

    @Test(arguments: [
        (nil, true),
        ([], true),
        (["Dept", "SIC"], true),
        (["Dept", "DataClass"], false),
        (["owner"], true),
    ] as [([String]?, Bool)])
    func forAllValuesStringNotEquals(tags: [String]?, expected: Bool) throws {
        #expect(try self.holds(#"{"ForAllValues:StringNotEquals": {"aws:TagKeys": ["DataClass", "Owner"]}}"#, tags) == expected)
    }

    /// "Multivalued context key examples": deny tagging unless every tag key starts with an allowed prefix,
    /// with a Null check so requests without tags are not waved through.
    @Test func denyPolicyWithForAllValuesAndNullCheck() throws {
        let policy = try TestSupport.policy(
            """
            {"Version": "2012-10-17", "Statement": [
              {"Sid": "AllowTagging", "Effect": "Allow", "Action": "iam:Tag*", "Resource": "*"},
              {"Sid": "DenyRestrictedTags", "Effect": "Deny", "Action": ["iam:Tag*", "iam:UnTag*"], "Resource": ["*"],
               "Condition": {"Null": {"aws:TagKeys": "false"},
                             "ForAllValues:StringNotLike": {"aws:TagKeys": ["key1*", "key2*"]}}}
            ]}
            """)
        func decide(_ tags: [String]?) -> Decision {
            var context = RequestContext(principal: TestSupport.user)
            context["aws:TagKeys"] = tags.map { ContextValue(multiple: $0) }
            return TestSupport.decide(policy, "iam:TagUser", "arn:aws:iam::111122223333:user/x", context)
        }
        #expect(decide(["other"]) == .explicitDeny)
        #expect(decide(["other", "more"]) == .explicitDeny)
        #expect(decide(["key1-a"]) == .allow)
        #expect(decide(["key1-a", "other"]) == .allow)
        #expect(decide(nil) == .allow)
        #expect(decide([]) == .allow)
    }

    @Test func forAnyValueLikeOnCognitoAmr() throws {
        let condition = #"{"ForAnyValue:StringLike": {"cognito-identity.amazonaws.com:amr": "authenticated"}}"#
        #expect(try TestSupport.holds(condition, ["cognito-identity.amazonaws.com:amr": ["authenticated", "graph.facebook.com"]]))
        #expect(try !TestSupport.holds(condition, ["cognito-identity.amazonaws.com:amr": ["unauthenticated"]]))
    }

    @Test func aSingleValueIsAOneElementSet() throws {
        #expect(try TestSupport.holds(#"{"ForAnyValue:StringEquals": {"aws:username": "bob"}}"#, ["aws:username": "bob"]))
        #expect(try !TestSupport.holds(#"{"ForAllValues:StringEquals": {"aws:username": "bob"}}"#, ["aws:username": "eve"]))
    }

    @Test func plainOperatorsOnMultiValuedKeysNeedExactlyOneValue() throws {
        #expect(try TestSupport.holds(#"{"StringEquals": {"aws:TagKeys": "a"}}"#, ["aws:TagKeys": ["a"]]))
        #expect(try !TestSupport.holds(#"{"StringEquals": {"aws:TagKeys": "a"}}"#, ["aws:TagKeys": ["a", "b"]]))
        #expect(try !TestSupport.holds(#"{"StringNotEquals": {"aws:TagKeys": "z"}}"#, ["aws:TagKeys": ["a", "b"]]))
    }

    @Test func anEmptySetIsPresentForIfExistsButAbsentIsNot() throws {
        let condition = #"{"StringEqualsIfExists": {"aws:TagKeys": "a"}}"#
        #expect(try self.holds(condition, nil))
        #expect(try !self.holds(condition, []))
        #expect(try self.holds(condition, ["a"]))
    }

    @Test func ifExistsDoesNotRescueForAnyValueOnAnAbsentKey() throws {
        #expect(try !self.holds(#"{"ForAnyValue:StringEqualsIfExists": {"aws:TagKeys": "a"}}"#, nil))
        #expect(try self.holds(#"{"ForAllValues:StringEqualsIfExists": {"aws:TagKeys": "a"}}"#, nil))
    }

    @Test func setOperatorsWorkWithOtherFamilies() throws {
        #expect(try TestSupport.holds(#"{"ForAllValues:NumericLessThan": {"k:n": "10"}}"#, ["k:n": ["1", "2", "9"]]))
        #expect(try !TestSupport.holds(#"{"ForAllValues:NumericLessThan": {"k:n": "10"}}"#, ["k:n": ["1", "20"]]))
        #expect(try TestSupport.holds(#"{"ForAnyValue:IpAddress": {"k:ips": "10.0.0.0/8"}}"#, ["k:ips": ["192.0.2.1", "10.1.2.3"]]))
        #expect(try TestSupport.holds(#"{"ForAllValues:ArnLike": {"aws:CalledVia": "arn:aws:*:*:*:*"}}"#, ["aws:CalledVia": []]))
    }
}
