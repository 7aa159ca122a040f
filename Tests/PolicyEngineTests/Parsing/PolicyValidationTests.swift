import Testing

@testable import PolicyEngine

/// Errors name the JSON path and the reason, several at once, never a crash.
@Suite("Policy validation")
struct PolicyValidationTests {
    private func errors(_ json: String, kind: PolicyKind? = .identity) -> [PolicyDiagnostic] {
        Policy.validate(json, kind: kind).errors
    }

    private func warnings(_ json: String, kind: PolicyKind? = .identity) -> [PolicyDiagnostic] {
        let validation = Policy.validate(json, kind: kind)
        #expect(validation.errors.isEmpty, "unexpected errors: \(validation.errors)")
        return validation.warnings
    }

    @Test func unknownOperatorIsReportedWithPathPositionAndSuggestion() {
        let json = """
            {
              "Version": "2012-10-17",
              "Statement": [
                {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::b"},
                {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*",
                 "Condition": {
                   "StringLikes": {"s3:prefix": "x"}}}
              ]
            }
            """
        let errors = self.errors(json)
        #expect(errors.count == 1)
        let error = errors.first
        #expect(error?.path == "Statement[1].Condition.StringLikes")
        #expect(error?.message == "unknown condition operator")
        #expect(error?.hint == "did you mean 'StringLike'?")
        #expect(error?.line == 7)
        #expect(error?.column == 8)
        #expect(error?.description == "Statement[1].Condition.StringLikes: unknown condition operator (did you mean 'StringLike'?)")
        #expect(error?.formatted(sourceName: "p.json") == "p.json:7:8: error: Statement[1].Condition.StringLikes: unknown condition operator (did you mean 'StringLike'?)")
    }

    @Test func parseThrowsInvalidPolicyCarryingEveryError() {
        let json = """
            {"Version": "2012-10-17", "Statement": [
              {"Effect": "allow", "Resource": "arn:aws:s3:::b/*"},
              {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*",
               "Condition": {"IpAddress": {"aws:SourceIp": ["10.0.0.0/8", "10.0.0.300"]}}}
            ]}
            """
        do {
            _ = try Policy.parse(json, kind: .identity)
            Issue.record("expected an error")
        } catch {
            #expect(error == .invalidPolicy(""))
            #expect(error.reason == "the policy has 3 errors")
            #expect(error.errors.map(\.description) == [
                "Statement[0]: missing Action or NotAction",
                "Statement[0].Effect: Effect must be \"Allow\" or \"Deny\" (did you mean 'Allow'?)",
                "Statement[1].Condition.IpAddress.aws:SourceIp[1]: '10.0.0.300' is not an IPv4 or IPv6 address or CIDR range",
            ])
        }
    }

    @Test func malformedJSONIsItsOwnErrorCodeWithPosition() {
        do {
            _ = try Policy.parse("{\n  \"Version\": \"2012-10-17\",\n  \"Statement\": [}\n}")
            Issue.record("expected an error")
        } catch {
            #expect(error == .malformedJSON(""))
            #expect(error.diagnostics.count == 1)
            #expect(error.diagnostics[0].message == "unexpected character '}', expected a value")
            #expect(error.diagnostics[0].line == 3)
            #expect(error.diagnostics[0].column == 17)
        }
    }

    @Test(arguments: [
        (#"[]"#, "", "a policy must be a JSON object, not an array"),
        (#"{"Version": "2012-10-17"}"#, "", "missing Statement element"),
        (#"{"Version": "2012-10-18", "Statement": []}"#, "Version", "Version must be \"2012-10-17\" or \"2008-10-17\""),
        (#"{"Version": "2012-10-17", "Statement": []}"#, "Statement", "Statement must contain at least one statement"),
        (#"{"Version": "2012-10-17", "Statement": "x"}"#, "Statement", "Statement must be an object or an array of objects, not a string"),
        (#"{"Version": "2012-10-17", "Statement": [1]}"#, "Statement[0]", "a statement must be an object, not a number"),
        (#"{"Version": "2012-10-17", "Id": 3, "Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}}"#, "Id", "Id must be a string, not a number"),
        (#"{"Version": "2012-10-17", "Statment": []}"#, "Statment", "unknown policy element"),
        (#"{"Version": "2012-10-17", "Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}}"#, "Version", "duplicate key \"Version\""),
    ])
    func documentErrors(json: String, path: String, message: String) {
        let errors = self.errors(json)
        #expect(errors.contains { $0.path == path && $0.message == message }, "got \(errors)")
    }

    private static func statement(_ body: String) -> String {
        #"{"Version": "2012-10-17", "Statement": [{"#
            + body + "}]}"
    }

    @Test(arguments: [
        (#""Action": "s3:GetObject", "Resource": "*""#, "Statement[0]", "missing Effect"),
        (#""Effect": "Allow", "Action": "s3:GetObject""#, "Statement[0]", "missing Resource or NotResource"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "NotAction": "s3:PutObject", "Resource": "*""#, "Statement[0].NotAction", "a statement cannot have both Action and NotAction"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", "NotResource": "*""#, "Statement[0].NotResource", "a statement cannot have both Resource and NotResource"),
        (#""Effect": "Allow", "Action": [], "Resource": "*""#, "Statement[0].Action", "Action must not be an empty list"),
        (#""Effect": "Allow", "Action": ["s3:GetObject", 7], "Resource": "*""#, "Statement[0].Action[1]", "Action entries must be strings, not a number"),
        (#""Effect": "Allow", "Action": "GetObject", "Resource": "*""#, "Statement[0].Action", "an action must be 'service:action' (such as s3:GetObject) or '*'"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "bucket/key""#, "Statement[0].Resource", "a resource must be an ARN (arn:partition:service:region:account:resource) or '*'"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", "Sids": "x""#, "Statement[0].Sids", "unknown statement element"),
        (#""Effect": "Allow", "Effect": "Deny", "Action": "s3:GetObject", "Resource": "*""#, "Statement[0].Effect", "duplicate key \"Effect\""),
        (#""Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "*""#, "Statement[0].Principal", "Principal is not allowed in identity policies; it belongs in resource and trust policies"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", "Condition": []"#, "Statement[0].Condition", "Condition must be an object mapping operators to {key: value} objects, not an array"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", "Condition": {"StringEquals": "x"}"#, "Statement[0].Condition.StringEquals", "must be an object mapping condition keys to values, not a string"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", "Condition": {"StringEquals": {}}"#, "Statement[0].Condition.StringEquals", "must name at least one condition key"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", "Condition": {"StringEquals": {"aws:username": []}}"#, "Statement[0].Condition.StringEquals.aws:username", "a condition needs at least one value"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", "Condition": {"StringEquals": {"aws:username": [null]}}"#, "Statement[0].Condition.StringEquals.aws:username[0]", "a condition value must be a string, number or boolean, not null"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", "Condition": {"StringEquals": {"aws:username": {"a": 1}}}"#, "Statement[0].Condition.StringEquals.aws:username", "a condition value must be a string, number, boolean or an array of them, not an object"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", "Condition": {"NullIfExists": {"aws:username": "true"}}"#, "Statement[0].Condition.NullIfExists", "Null cannot take the IfExists suffix"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", "Condition": {"ForAnyValue:Null": {"aws:username": "true"}}"#, "Statement[0].Condition.ForAnyValue:Null", "Null cannot be combined with ForAnyValue"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", "Condition": {"ForAnyValues:StringEquals": {"aws:TagKeys": "a"}}"#, "Statement[0].Condition.ForAnyValues:StringEquals", "unknown set qualifier; use ForAnyValue: or ForAllValues:"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", "Condition": {"NumericLessThan": {"s3:max-keys": "ten"}}"#, "Statement[0].Condition.NumericLessThan.s3:max-keys", "'ten' is not a number"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", "Condition": {"DateGreaterThan": {"aws:CurrentTime": "2024-13-01"}}"#, "Statement[0].Condition.DateGreaterThan.aws:CurrentTime", "'2024-13-01' is not an ISO 8601 date or date-time, or epoch seconds"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", "Condition": {"Bool": {"aws:SecureTransport": "yes"}}"#, "Statement[0].Condition.Bool.aws:SecureTransport", "'yes' is not true or false"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", "Condition": {"BinaryEquals": {"k:bin": "@@@"}}"#, "Statement[0].Condition.BinaryEquals.k:bin", "'@@@' is not base64"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", "Condition": {"Null": {"aws:username": "maybe"}}"#, "Statement[0].Condition.Null.aws:username", "Null takes \"true\" (the key is absent) or \"false\" (it is present), not 'maybe'"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", "Condition": {"StringEquals": {"accounts.google.com:sub": 5, "accounts.google.com:aud": null}}"#, "Statement[0].Condition.StringEquals[\"accounts.google.com:aud\"]", "a condition value must be a string, number, boolean or an array of them, not null"),
    ])
    func statementErrors(body: String, path: String, message: String) {
        let errors = self.errors(Self.statement(body))
        #expect(errors.contains { $0.path == path && $0.message == message }, "got \(errors)")
    }

    @Test(arguments: [
        (#"{"AWS": "arn:aws:iam::*:root"}"#, "Statement[0].Principal.AWS", "wildcards are not allowed in a principal (only \"*\" on its own, for everyone)"),
        (#"{"AWS": "arn:aws:sts::111122223333:assumed-role/app/*"}"#, "Statement[0].Principal.AWS", "wildcards are not allowed in a principal (only \"*\" on its own, for everyone)"),
        (#"{"AWS": "bob"}"#, "Statement[0].Principal.AWS", "an AWS principal must be a 12-digit account id or an IAM or STS ARN"),
        (#"{"AWS": "arn:aws:sts::111122223333:assumed-role/app"}"#, "Statement[0].Principal.AWS", "an STS principal must be arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION or …:federated-user/NAME"),
        (#"{"Aws": "111122223333"}"#, "Statement[0].Principal.Aws", "unknown principal type"),
        (#"{}"#, "Statement[0].Principal", "Principal must name at least one principal"),
        (#""everyone""#, "Statement[0].Principal", "Principal must be \"*\" or an object such as {\"AWS\": \"arn:aws:iam::111122223333:root\"}"),
    ])
    func principalErrors(principal: String, path: String, message: String) {
        let json = Self.statement(#""Effect": "Allow", "Principal": "# + principal + #", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*""#)
        let errors = self.errors(json, kind: .resource)
        #expect(errors.contains { $0.path == path && $0.message == message }, "got \(errors)")
    }

    @Test func resourcePoliciesRequireAPrincipalAndTrustPoliciesRejectNotPrincipal() {
        let missing = self.errors(Self.statement(#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*""#), kind: .resource)
        #expect(missing.map(\.message) == ["missing Principal or NotPrincipal (required in resource policies)"])
        let trust = self.errors(
            Self.statement(#""Effect": "Deny", "NotPrincipal": {"AWS": "111122223333"}, "Action": "sts:AssumeRole""#), kind: .trust)
        #expect(trust.map(\.message) == ["NotPrincipal cannot be used in a role trust policy"])
    }

    @Test func duplicateSidsAreErrorsInIdentityPoliciesAndWarningsElsewhere() {
        let json = """
            {"Version": "2012-10-17", "Statement": [
              {"Sid": "A", "Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*", "Principal": {"AWS": "111122223333"}},
              {"Sid": "A", "Effect": "Allow", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::b/*", "Principal": {"AWS": "111122223333"}}
            ]}
            """
        #expect(Policy.validate(json, kind: .resource).warnings.map(\.description) == [
            "Statement[1].Sid: duplicate Sid \"A\"; Sids should be unique within a policy"
        ])
        let identity = """
            {"Version": "2012-10-17", "Statement": [
              {"Sid": "A", "Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"},
              {"Sid": "A", "Effect": "Allow", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::b/*"}
            ]}
            """
        #expect(self.errors(identity).map(\.description) == [
            "Statement[1].Sid: duplicate Sid \"A\"; Sids must be unique within a policy"
        ])
    }

    @Test func reportsManyErrorsAtOnceButCapsThem() {
        let statements = (0..<150).map { _ in #"{"Effect": "Maybe", "Action": "s3:GetObject", "Resource": "*"}"# }
        let json = #"{"Version": "2012-10-17", "Statement": ["# + statements.joined(separator: ",") + "]}"
        let errors = self.errors(json)
        #expect(errors.count == PolicyParser.maximumErrors + 1)
        #expect(errors.contains { $0.message == "too many errors; stopping" })
        #expect(errors.first?.path == "Statement[0].Effect")
    }

    // MARK: Warnings

    @Test func warnsWhenVariablesAreLiteralBecauseOfTheVersion() {
        for version in [#""Version": "2008-10-17", "#, ""] {
            let json = "{" + version + #""Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/${aws:userid}/*","#
                + #""Condition": {"StringLike": {"s3:prefix": "${aws:userid}/*"}}}}"#
            let warnings = self.warnings(json)
            #expect(warnings.contains {
                $0.path == "Statement.Resource"
                    && $0.message == "policy variables are substituted only under Version 2012-10-17; here '${' is literal text"
                    && $0.hint == "add \"Version\": \"2012-10-17\""
            }, "got \(warnings)")
            #expect(warnings.contains { $0.path == "Statement.Condition.StringLike.s3:prefix" }, "got \(warnings)")
        }
    }

    @Test func warnsAboutResourceStarOnObjectActions() {
        for resource in ["*", "arn:aws:s3:::*", "arn:aws:s3:::*/*"] {
            let warnings = self.warnings(Self.statement(#""Effect": "Allow", "Action": ["s3:ListBucket", "s3:Get*"], "Resource": ""# + resource + "\""))
            // The action as written, and what its wildcard allows.
            #expect(warnings.map(\.message) == [
                "Resource \"\(resource)\" with Action \"s3:Get*\", which allows s3:GetObject, covers every object in every bucket; scope it to a bucket and a per-user prefix"
            ], "\(resource)")
        }
        #expect(self.warnings(Self.statement(#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "*""#)).map(\.message) == [
            "Resource \"*\" with s3:GetObject covers every object in every bucket; scope it to a bucket and a per-user prefix"
        ])
        #expect(self.warnings(Self.statement(#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*""#)).isEmpty)
        #expect(self.warnings(Self.statement(#""Effect": "Deny", "Action": "s3:GetObject", "Resource": "*""#)).isEmpty)
        #expect(self.warnings(Self.statement(#""Effect": "Allow", "Action": "s3:ListAllMyBuckets", "Resource": "*""#)).isEmpty)
    }

    @Test(arguments: [
        (#""Effect": "Allow", "Action": "s3:${aws:username}", "Resource": "arn:aws:s3:::b/*""#, "Statement[0].Action", "policy variables are not substituted in Action; '${' is literal text here"),
        (#""Effect": "Allow", "Action": "*", "Resource": "*""#, "Statement[0].Action", "Action \"*\" on Resource \"*\" grants full administrator access"),
        (#""Effect": "Allow", "NotAction": "iam:*", "Resource": "arn:aws:s3:::b/*""#, "Statement[0].NotAction", "NotAction with Allow grants every action not listed, including actions added later"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "NotResource": "arn:aws:s3:::b/private/*""#, "Statement[0].NotResource", "NotResource with Allow grants access to every resource not listed"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/${aws:userid/*""#, "Statement[0].Resource", "'${' without a closing '}' is treated as literal text"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/${aws:userid, default}/*""#, "Statement[0].Resource", "${aws:userid, default}: a default value must be in single quotes, as in ${key, 'default'}; treated as literal text"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/x", "Condition": {"ForAllValues:StringEquals": {"aws:TagKeys": "team"}}"#, "Statement[0].Condition.ForAllValues:StringEquals.aws:TagKeys", "ForAllValues also holds when aws:TagKeys is absent or empty, so this Allow applies to requests without it"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/x", "Condition": {"ForAnyValue:StringEquals": {"aws:SourceIp": "x"}}"#, "Statement[0].Condition.ForAnyValue:StringEquals.aws:SourceIp", "aws:SourceIp is single-valued; ForAnyValue is meant for multi-valued keys and can make the policy overly permissive"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/x", "Condition": {"StringEquals": {"cognito-identity.amazonaws.com:amr": "authenticated"}}"#, "Statement[0].Condition.StringEquals[\"cognito-identity.amazonaws.com:amr\"]", "cognito-identity.amazonaws.com:amr is multi-valued; use ForAnyValue: or ForAllValues:"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/x", "Condition": {"ArnLike": {"aws:SourceArn": "arn:aws:s3"}}"#, "Statement[0].Condition.ArnLike.aws:SourceArn", "'arn:aws:s3' is not a six-part ARN (arn:partition:service:region:account:resource), so it matches nothing"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/x", "Condition": {"StringEquals": {"username": "x"}}"#, "Statement[0].Condition.StringEquals.username", "condition keys are normally 'service:name' (such as aws:SourceIp)"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:*:::b/x""#, "Statement[0].Resource", "AWS does not allow wildcards or variables in the service part of a resource ARN"),
        (#""Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3""#, "Statement[0].Resource", "has fewer than six colon-separated parts, so it matches no ARN"),
    ])
    func statementWarnings(body: String, path: String, message: String) {
        let warnings = self.warnings(Self.statement(body))
        #expect(warnings.contains { $0.path == path && $0.message == message }, "got \(warnings)")
    }

    @Test func warnsAboutNotPrincipalWithAllowAndPublicGrants() {
        let notPrincipal = self.warnings(
            Self.statement(#""Effect": "Allow", "NotPrincipal": {"AWS": "111122223333"}, "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*""#),
            kind: .resource)
        #expect(notPrincipal.map(\.message) == ["NotPrincipal with Allow grants access to everyone not listed, including anonymous users"])
        let everyone = self.warnings(
            Self.statement(#""Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*""#), kind: .resource)
        #expect(everyone.map(\.message) == ["Principal \"*\" with Allow and no condition grants access to everyone, including anonymous users"])
    }

    @Test func aNullCheckSilencesTheForAllValuesWarning() {
        let json = Self.statement(
            #""Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/x", "Condition": {"ForAllValues:StringEquals": {"aws:TagKeys": "team"}, "Null": {"aws:TagKeys": "false"}}"#)
        #expect(self.warnings(json).isEmpty)
    }

    @Test func warningsDoNotStopParsing() throws {
        let policy = try Policy.parse(Self.statement(#""Effect": "Allow", "Action": "*", "Resource": "*""#), kind: .identity)
        #expect(policy.warnings.count == 1)
        #expect(policy.warnings[0].severity == .warning)
        #expect(policy.warnings[0].line == 1)
    }

    @Test func warningsAreReportedAlongsideErrors() throws {
        // No Version (a warning), a statement with an error, and a valid statement with a risky construct.
        let json = """
            {"Statement": [
              {"Effect": "Alow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"},
              {"Effect": "Allow", "NotAction": "iam:*", "Resource": "arn:aws:s3:::b/*"}
            ]}
            """
        let validation = Policy.validate(json, kind: .identity)
        #expect(validation.policy == nil)
        #expect(validation.errors.map(\.path) == ["Statement[0].Effect"])
        #expect(validation.warnings.map(\.path) == ["", "Statement[1].NotAction"])
        #expect(validation.warnings.first?.message.hasPrefix("no Version element") == true)
        #expect(validation.warnings.last?.message == "NotAction with Allow grants every action not listed, including actions added later")
        // Errors still come first.
        #expect(validation.diagnostics.map(\.severity) == [.error, .warning, .warning])
        do {
            _ = try Policy.parse(json, kind: .identity)
            Issue.record("expected an error")
        } catch {
            #expect(error.reason == "the policy has 1 error")
            #expect(error.diagnostics.filter { $0.severity == .warning }.count == 2)
        }
    }

    @Test func aStatementWithErrorsIsNotLintedUnderAnotherStatementsPath() {
        // The first statement fails; the second's warning must name Statement[1], not Statement[0].
        let json = """
            {"Version": "2012-10-17", "Statement": [
              7,
              {"Effect": "Allow", "NotResource": "arn:aws:s3:::b/*", "Action": "s3:GetObject"}
            ]}
            """
        let validation = Policy.validate(json, kind: .identity)
        #expect(validation.errors.map(\.path) == ["Statement[0]"])
        #expect(validation.warnings.map(\.path) == ["Statement[1].NotResource"])
    }

    @Test func anInvalidVersionIsAnErrorNotAMissingVersion() {
        let json = #"{"Version": "2020-01-01", "Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"}}"#
        let validation = Policy.validate(json, kind: .identity)
        #expect(validation.errors.map(\.path) == ["Version"])
        #expect(validation.warnings.isEmpty, "\(validation.warnings)")
    }
}
