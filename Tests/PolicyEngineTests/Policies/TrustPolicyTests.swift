import Testing

import PolicyEngine

/// Each provider's trust policy lets that provider's users of the configured application assume the role,
/// and nobody else: not another application's users, not another provider's.
@Suite("Shipped trust policies")
struct TrustPolicyTests {
    func evaluator(_ provider: ShippedPolicies.Provider) throws -> PolicyEvaluator {
        PolicyEvaluator(resourcePolicy: try ShippedPolicies.policy(provider.trust, kind: .trust))
    }

    /// The decision for `AssumeRoleWithWebIdentity` with a web identity, as STS evaluates the trust policy.
    func assume(_ evaluator: PolicyEvaluator, _ identity: WebIdentity, role: String = ShippedPolicies.roleArn) throws -> Decision {
        let session = try WebIdentitySession(identity, role: role, sessionName: "personal-store-user")
        return evaluator.evaluate(AuthorizationRequest(
            action: "sts:AssumeRoleWithWebIdentity", resource: role, context: session.assumeRoleContext(at: PolicySimulator.defaultTime)))
    }

    @Test(arguments: ShippedPolicies.providers)
    func theProvidersUsersOfTheAppMayAssume(provider: ShippedPolicies.Provider) throws {
        let evaluator = try self.evaluator(provider)
        for id in ["1001", "*", "", "ünïcødé"] {
            let decision = try self.assume(evaluator, provider.user(id))
            #expect(decision == .allow, "\(provider.name) id \(id.debugDescription)")
            #expect(decision.statements.map(\.policyKind) == [.trust])
        }
    }

    @Test(arguments: ShippedPolicies.providers)
    func anotherAppOfTheSameProviderMayNot(provider: ShippedPolicies.Provider) throws {
        let evaluator = try self.evaluator(provider)
        #expect(try self.assume(evaluator, provider.userOfAnotherApp("1001")) == .implicitDeny)
    }

    @Test(arguments: ShippedPolicies.providers)
    func anotherProviderMayNot(provider: ShippedPolicies.Provider) throws {
        let evaluator = try self.evaluator(provider)
        for other in ShippedPolicies.providers where other.name != provider.name {
            #expect(try self.assume(evaluator, other.user("1001")) == .implicitDeny, "\(other.name) assuming \(provider.name)'s role")
        }
    }

    @Test(arguments: ShippedPolicies.providers)
    func otherActionsAreNotTrusted(provider: ShippedPolicies.Provider) throws {
        let evaluator = try self.evaluator(provider)
        let session = try ShippedPolicies.session(provider.user("1001"))
        for action in ["sts:AssumeRole", "sts:AssumeRoleWithSAML", "sts:TagSession", "s3:GetObject"] {
            let decision = evaluator.evaluate(AuthorizationRequest(
                action: action, resource: ShippedPolicies.roleArn, context: session.assumeRoleContext(at: PolicySimulator.defaultTime)))
            #expect(decision == .implicitDeny, "\(action)")
        }
    }

    @Test func cognitoRequiresAnAuthenticatedIdentity() throws {
        let evaluator = try self.evaluator(ShippedPolicies.cognito)
        let pool = "us-east-1:COGNITO_IDENTITY_POOL_ID"
        #expect(try self.assume(evaluator, .cognito(identityId: "us-east-1:u", identityPoolId: pool, amr: ["unauthenticated"])) == .implicitDeny)
        #expect(try self.assume(evaluator, .cognito(identityId: "us-east-1:u", identityPoolId: pool, amr: [])) == .implicitDeny)
        #expect(try self.assume(
            evaluator, .cognito(identityId: "us-east-1:u", identityPoolId: pool, amr: ["authenticated", "graph.facebook.com", "graph.facebook.com:1001"])) == .allow)
    }

    @Test func googleChecksTheAuthorizedPartyWhenThereIsOne() throws {
        let evaluator = try self.evaluator(ShippedPolicies.google)
        let client = "GOOGLE_CLIENT_ID.apps.googleusercontent.com"
        // With azp, AWS reports azp as :aud (and the original aud as :oaud).
        #expect(try self.assume(evaluator, .google(subject: "1", audience: "server-audience", authorizedParty: client)) == .allow)
        #expect(try self.assume(evaluator, .google(subject: "1", audience: client, authorizedParty: "someone-else")) == .implicitDeny)
    }

    @Test func oidcTrustNamesTheIssuerInTheAccount() throws {
        let evaluator = try self.evaluator(ShippedPolicies.oidc)
        // Same issuer and audience, but the provider registered in another account.
        #expect(try self.assume(
            evaluator, ShippedPolicies.oidc.user("1001"), role: "arn:aws:iam::444455556666:role/personal-store") == .implicitDeny)
        // Another issuer whose client happens to use the same client id.
        #expect(try self.assume(evaluator, .oidc(issuer: "https://evil.example.com", subject: "1001", audiences: ["OIDC_CLIENT_ID"])) == .implicitDeny)
        // A path under the issuer is another issuer.
        #expect(try self.assume(
            evaluator, .oidc(issuer: "https://oidc.example.com/tenant", subject: "1001", audiences: ["OIDC_CLIENT_ID"])) == .implicitDeny)
        // With azp, AWS reports azp as :aud, so the client the token was issued to is the one checked.
        #expect(try self.assume(
            evaluator, .oidc(issuer: "https://oidc.example.com", subject: "1001", audiences: ["x"], authorizedParty: "OIDC_CLIENT_ID")) == .allow)
    }

    @Test(arguments: ShippedPolicies.providers)
    func aWebIdentityCannotUseTheRoleWithoutAssumingIt(provider: ShippedPolicies.Provider) throws {
        // The trust policy governs AssumeRoleWithWebIdentity only; the role session's own requests are
        // judged by the personal-store policy.
        let evaluator = try self.evaluator(provider)
        let session = try ShippedPolicies.session(provider.user("1001"))
        let decision = evaluator.evaluate(AuthorizationRequest(
            action: "sts:AssumeRoleWithWebIdentity", resource: ShippedPolicies.roleArn, context: session.context(at: PolicySimulator.defaultTime)))
        #expect(decision == .implicitDeny, "a role session is not the identity provider")
    }
}
