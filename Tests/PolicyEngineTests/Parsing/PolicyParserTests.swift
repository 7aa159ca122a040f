import Testing

@testable import PolicyEngine

/// The grammar accepted, per "IAM JSON policy element reference" and "Grammar of the IAM JSON policy
/// language" in the IAM User Guide.
@Suite("Policy grammar")
struct PolicyParserTests {
    @Test func parsesAFullPolicy() throws {
        let policy = try TestSupport.policy(
            """
            {
              "Version": "2012-10-17",
              "Id": "per-user",
              "Statement": [
                {"Sid": "List", "Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::photos",
                 "Condition": {"StringLike": {"s3:prefix": ["home/${aws:userid}/*", ""]},
                               "Bool": {"aws:SecureTransport": true},
                               "NumericLessThanEquals": {"s3:max-keys": 100}}},
                {"Effect": "Deny", "NotAction": ["s3:Get*", "s3:List*"], "NotResource": "arn:aws:s3:::photos/*"}
              ]
            }
            """, name: "per-user.json")
        #expect(policy.version == .v2012_10_17)
        #expect(policy.id == "per-user")
        #expect(policy.name == "per-user.json")
        #expect(policy.statements.count == 2)
        let list = policy.statements[0]
        #expect(list.sid == "List")
        #expect(list.effect == .allow)
        #expect(list.action == .action(["s3:ListBucket"]))
        #expect(list.resource == .resource(["arn:aws:s3:::photos"]))
        #expect(list.conditions.count == 3)
        #expect(list.conditions[0] == Condition(.stringLike, key: "s3:prefix", values: ["home/${aws:userid}/*", ""]))
        #expect(list.conditions[1] == Condition(.bool, key: "aws:SecureTransport", values: ["true"]))
        #expect(list.conditions[2] == Condition(.numericLessThanEquals, key: "s3:max-keys", values: ["100"]))
        let deny = policy.statements[1]
        #expect(deny.effect == .deny)
        #expect(deny.action == .notAction(["s3:Get*", "s3:List*"]))
        #expect(deny.resource == .notResource(["arn:aws:s3:::photos/*"]))
        #expect(policy.warnings.isEmpty)
    }

    @Test func acceptsAStatementObjectInsteadOfAnArray() throws {
        let policy = try TestSupport.policy(#"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "*", "Resource": "arn:aws:s3:::b/*"}}"#)
        #expect(policy.statements.count == 1)
    }

    @Test func versionIsOptionalAndDefaultsTo2008() throws {
        let policy = try TestSupport.policy(#"{"Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"}}"#)
        #expect(policy.version == nil)
        #expect(policy.effectiveVersion == .v2008_10_17)
        #expect(policy.warnings.map(\.message) == [
            "no Version element: the policy uses the 2008-10-17 language, where policy variables are literal text"
        ])
    }

    @Test func parsesPrincipalForms() throws {
        let policy = try TestSupport.policy(
            """
            {"Version": "2012-10-17", "Statement": [
              {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/public/*",
               "Condition": {"IpAddress": {"aws:SourceIp": "203.0.113.0/24"}}},
              {"Effect": "Allow",
               "Principal": {"AWS": ["111122223333", "arn:aws:iam::111122223333:role/app",
                                     "arn:aws:sts::111122223333:assumed-role/app/alice"],
                             "Federated": "cognito-identity.amazonaws.com",
                             "Service": ["cloudtrail.amazonaws.com"],
                             "CanonicalUser": "79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be"},
               "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"}
            ]}
            """, kind: .resource)
        #expect(policy.statements[0].principal == .principal(.everyone))
        guard case .principal(let set) = policy.statements[1].principal else {
            Issue.record("expected a Principal")
            return
        }
        #expect(set.aws.count == 3)
        #expect(set.federated == ["cognito-identity.amazonaws.com"])
        #expect(set.service == ["cloudtrail.amazonaws.com"])
        #expect(set.canonicalUser.count == 1)
    }

    @Test func trustPoliciesMayOmitResource() throws {
        let trust = """
            {"Version": "2012-10-17", "Statement": {"Effect": "Allow",
             "Principal": {"Federated": "cognito-identity.amazonaws.com"},
             "Action": "sts:AssumeRoleWithWebIdentity",
             "Condition": {"StringEquals": {"cognito-identity.amazonaws.com:aud": "us-east-1:pool"},
                           "ForAnyValue:StringLike": {"cognito-identity.amazonaws.com:amr": "authenticated"}}}}
            """
        #expect(throws: Never.self) { try Policy.parse(trust, kind: .trust) }
        #expect(throws: Never.self) { try Policy.parse(trust) }
        #expect(throws: PolicyEngineError.invalidPolicy("")) { try Policy.parse(trust, kind: .resource) }
    }

    @Test func conditionValuesFromNumbersAndBooleansBecomeText() throws {
        let policy = try TestSupport.conditionPolicy(#"{"NumericEquals": {"s3:max-keys": [10, 2.5e1]}, "Null": {"aws:TokenIssueTime": false}}"#)
        #expect(policy.statements[0].conditions[0].values == ["10", "2.5e1"])
        #expect(policy.statements[0].conditions[1].values == ["false"])
    }

    @Test func roundTripsThroughJSON() throws {
        let original = try TestSupport.policy(
            """
            {"Version": "2012-10-17", "Id": "x", "Statement": [
              {"Sid": "A", "Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject"],
               "Resource": "arn:aws:s3:::b/${aws:userid}/*",
               "Condition": {"StringLike": {"s3:prefix": ["a", "b"]}, "StringEquals": {"aws:PrincipalType": "AssumedRole"}}},
              {"Effect": "Deny", "NotAction": "s3:*", "NotResource": ["arn:aws:s3:::b", "arn:aws:s3:::b/*"]}
            ]}
            """)
        let reparsed = try TestSupport.policy(original.json(pretty: true))
        #expect(reparsed == original)
        let compact = try TestSupport.policy(original.json(pretty: false))
        #expect(compact == original)
    }

    @Test func buildsPoliciesFromStatementsWithTheSameValidation() throws {
        let policy = try Policy(statements: [
            Statement(
                sid: "Own", effect: .allow, action: .action(["s3:GetObject"]),
                resource: .resource(["arn:aws:s3:::b/${aws:userid}/*"]),
                conditions: [Condition(.ipAddress, key: "aws:SourceIp", values: ["10.0.0.0/8"])])
        ], kind: .identity, name: "built")
        #expect(policy.name == "built")
        #expect(policy.statements[0].sid == "Own")
        #expect(throws: PolicyEngineError.invalidPolicy("")) {
            try Policy(statements: [
                Statement(effect: .allow, action: .action(["s3:GetObject"]), resource: .resource(["*"]),
                          conditions: [Condition(.ipAddress, key: "aws:SourceIp", values: ["not-an-ip"])])
            ])
        }
    }

    @Test func acceptsBytesWithAByteOrderMark() throws {
        let text = #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"}}"#
        let policy = try Policy.parse(bytes: [0xEF, 0xBB, 0xBF] + Array(text.utf8), kind: .identity)
        #expect(policy.statements.count == 1)
    }
}
