import Testing

import PolicyEngine

/// Warnings where a web-identity per-user policy cannot do what its author meant, with JSON paths.
@Suite struct WebIdentityLintTests {
    static func warnings(_ statements: String) -> [PolicyDiagnostic] {
        Policy.validate(#"{"Version": "2012-10-17", "Statement": [\#(statements)]}"#, kind: .identity).warnings
    }

    @Test func aProviderKeyNoProviderIssuesIsFlagged() {
        let warnings = Self.warnings(#"""
            {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/${cognito-identity.amazon.com:sub}/*"}
            """#)
        let warning = warnings.first { $0.message.contains("no identity provider issues") }
        #expect(warning?.path == "Statement[0].Resource")
        #expect(warning?.hint == "did you mean ${cognito-identity.amazonaws.com:sub}?")
    }

    @Test func aKeyTheProviderDoesNotIssueIsFlagged() {
        let warnings = Self.warnings(#"""
            {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/${graph.facebook.com:sub}/*"}
            """#)
        #expect(warnings.contains { $0.message.contains("graph.facebook.com issues no key 'sub'") })
    }

    @Test func anIdWithoutSlashAfterItIsFlagged() {
        let warnings = Self.warnings(#"""
            {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/${graph.facebook.com:id}*"}
            """#)
        #expect(warnings.map(\.path) == ["Statement[0].Resource"])
        #expect(warnings.first?.message.contains("not followed by '/'") == true)
    }

    @Test func listBucketWithoutPrefixBesidePerUserObjectsIsFlagged() {
        let warnings = Self.warnings(#"""
            {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::b"},
            {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/${graph.facebook.com:id}/*"}
            """#)
        #expect(warnings.map(\.path) == ["Statement[0].Action"])
        // Without per-user object statements a bucket-wide listing is not this mistake.
        #expect(Self.warnings(#"{"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::b"}"#).isEmpty)
    }

    @Test func stringLikeWithoutWildcardIsFlagged() {
        let warnings = Self.warnings(#"""
            {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::b",
             "Condition": {"StringLike": {"s3:prefix": "${graph.facebook.com:id}/"}}}
            """#)
        #expect(warnings.map(\.path) == ["Statement[0].Condition.StringLike.s3:prefix"])
        #expect(warnings.first?.hint == "use StringEquals if that is meant")
    }

    @Test func theShippedShapeHasNoWarnings() {
        #expect(Self.warnings(#"""
            {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::b",
             "Condition": {"StringLike": {"s3:prefix": ["${jwt:sub}/", "${jwt:sub}/*"]}}},
            {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/${jwt:sub}/*"}
            """#).isEmpty)
    }
}
