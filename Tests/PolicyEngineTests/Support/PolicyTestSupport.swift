import Testing

@testable import PolicyEngine

/// Shared values and helpers for PolicyEngine tests.
enum TestSupport {
    static let account = "111122223333"
    static let otherAccount = "444455556666"
    static let roleArn = "arn:aws:iam::111122223333:role/app-users"
    static let time = Timestamp(secondsSince1970: 1_714_564_800)  // 2024-05-01T12:00:00Z

    /// Parses a policy, failing the test with every diagnostic if it is invalid.
    static func policy(_ json: String, kind: PolicyKind? = .identity, name: String? = nil) throws -> Policy {
        do {
            return try Policy.parse(json, kind: kind, name: name)
        } catch {
            Issue.record("policy failed to parse: \(error)")
            throw error
        }
    }

    /// A policy with one Allow statement on `*` whose Condition block is `condition`.
    static func conditionPolicy(_ condition: String, version: String = "2012-10-17") throws -> Policy {
        try self.policy(
            """
            {"Version": "\(version)", "Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*",
             "Condition": \(condition)}}
            """)
    }

    static let user: RequestPrincipal = {
        do {
            return try RequestPrincipal.iamUser(arn: "arn:aws:iam::111122223333:user/carol")
        } catch {
            preconditionFailure("fixture principal: \(error)")
        }
    }()

    /// Whether a Condition block holds for a context with `values`.
    static func holds(_ condition: String, _ values: [String: ContextValue], version: String = "2012-10-17") throws -> Bool {
        let policy = try self.conditionPolicy(condition, version: version)
        let context = RequestContext(principal: self.user, time: self.time, values: values)
        let request = AuthorizationRequest(action: "s3:GetObject", resource: "arn:aws:s3:::b/k", context: context)
        return PolicyEvaluator(identityPolicies: [policy]).evaluate(request).isAllowed
    }

    /// A role session of `app-users` for a Cognito identity.
    static func cognitoSession(_ identityId: String, sessionName: String = "web-session") throws -> WebIdentitySession {
        try WebIdentitySession(
            .cognito(identityId: identityId, identityPoolId: "us-east-1:11111111-2222-3333-4444-555555555555"),
            role: self.roleArn, roleId: "AROAEXAMPLEROLEID0001", sessionName: sessionName)
    }

    /// The decision for one identity policy, action and resource in a context.
    static func decide(_ policy: Policy, _ action: String, _ resource: String, _ context: RequestContext) -> Decision {
        PolicyEvaluator(identityPolicies: [policy]).evaluate(
            AuthorizationRequest(action: action, resource: resource, context: context))
    }
}
