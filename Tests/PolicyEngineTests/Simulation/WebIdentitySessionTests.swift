import Testing

@testable import PolicyEngine

/// The context keys of web identity sessions, per "Available keys for AWS web identity federation" and
/// "Identifying users with web identity federation" in the IAM User Guide.
@Suite("Web identity sessions")
struct WebIdentitySessionTests {
    @Test func cognitoSessionContext() throws {
        let session = try WebIdentitySession(
            .cognito(identityId: "us-east-1:abcd", identityPoolId: "us-east-1:pool", amr: ["authenticated", "graph.facebook.com"]),
            role: "arn:aws:iam::111122223333:role/app/web", roleId: "AROAEXAMPLEROLEID0001", sessionName: "abcd-session",
            sourceIp: "203.0.113.5", secureTransport: false, additionalKeys: ["aws:PrincipalTag/plan": "pro"])
        let context = session.context(at: TestSupport.time)
        #expect(session.sessionArn == "arn:aws:sts::111122223333:assumed-role/web/abcd-session")
        #expect(context.principal == session.principal)
        #expect(context["cognito-identity.amazonaws.com:sub"] == "us-east-1:abcd")
        #expect(context["cognito-identity.amazonaws.com:aud"] == "us-east-1:pool")
        #expect(context["cognito-identity.amazonaws.com:amr"] == ContextValue(multiple: ["authenticated", "graph.facebook.com"]))
        #expect(context["aws:userid"] == "AROAEXAMPLEROLEID0001:abcd-session")
        #expect(context["aws:PrincipalType"] == "AssumedRole")
        #expect(context["aws:PrincipalArn"] == "arn:aws:iam::111122223333:role/app/web")
        #expect(context["aws:PrincipalAccount"] == "111122223333")
        #expect(context["aws:FederatedProvider"] == "cognito-identity.amazonaws.com")
        #expect(context["aws:SourceIp"] == "203.0.113.5")
        #expect(context["aws:SecureTransport"] == "false")
        #expect(context["aws:CurrentTime"] == "2024-05-01T12:00:00Z")
        #expect(context["aws:EpochTime"] == "1714564800")
        #expect(context["aws:PrincipalTag/plan"] == "pro")
        #expect(context["aws:username"] == nil)
        #expect(context["AWS:USERID"] == "AROAEXAMPLEROLEID0001:abcd-session")
    }

    @Test func providerKeys() {
        #expect(WebIdentity.facebook(userId: "1001", appId: "app-7").keys == ["graph.facebook.com:id": "1001", "graph.facebook.com:app_id": "app-7"])
        #expect(WebIdentity.amazon(userId: "amzn1.account.X", appId: "amzn1.application.Y").keys == [
            "www.amazon.com:user_id": "amzn1.account.X", "www.amazon.com:app_id": "amzn1.application.Y",
        ])
        #expect(WebIdentity.google(subject: "1234", audience: "client.apps.googleusercontent.com").keys == [
            "accounts.google.com:sub": "1234", "accounts.google.com:aud": "client.apps.googleusercontent.com",
        ])
        #expect(WebIdentity.google(subject: "1234", audience: "server", authorizedParty: "android-client").keys == [
            "accounts.google.com:sub": "1234", "accounts.google.com:aud": "android-client", "accounts.google.com:oaud": "server",
        ])
    }

    @Test func oidcProviderKeysUseTheIssuerHostAndPath() throws {
        let identity = WebIdentity.oidc(
            issuer: "https://auth.example.com/realms/app/", subject: "u-1", audiences: ["web", "cli"], authorizedParty: "web",
            amr: ["pwd", "mfa"])
        #expect(identity.keyPrefix == "auth.example.com/realms/app")
        #expect(identity.keys["auth.example.com/realms/app:sub"] == "u-1")
        #expect(identity.keys["auth.example.com/realms/app:aud"] == "web")
        #expect(identity.keys["auth.example.com/realms/app:azp"] == "web")
        #expect(identity.keys["auth.example.com/realms/app:oaud"] == ContextValue(multiple: ["web", "cli"]))
        #expect(identity.keys["auth.example.com/realms/app:amr"] == ContextValue(multiple: ["pwd", "mfa"]))
        let single = WebIdentity.oidc(issuer: "http://localhost:9000", subject: "s", audiences: ["only"])
        #expect(single.keys["localhost:9000:aud"] == "only")
        let session = try WebIdentitySession(identity, role: TestSupport.roleArn, sessionName: "u-1")
        #expect(session.federatedProvider == "arn:aws:iam::111122223333:oidc-provider/auth.example.com/realms/app")
        let assume = session.assumeRoleContext()
        #expect(assume.principal?.kind == .webIdentity)
        #expect(assume.principal?.arn == session.federatedProvider)
        #expect(assume["sts:RoleSessionName"] == "u-1")
        #expect(assume["aws:userid"] == nil)
    }

    @Test func defaultRoleIdIsStableAndRealistic() throws {
        let first = try WebIdentitySession(.facebook(userId: "1", appId: "a"), role: TestSupport.roleArn, sessionName: "s1")
        let second = try WebIdentitySession(.facebook(userId: "2", appId: "a"), role: TestSupport.roleArn, sessionName: "s2")
        let other = try WebIdentitySession(.facebook(userId: "1", appId: "a"), role: "arn:aws:iam::111122223333:role/other", sessionName: "s1")
        #expect(first.roleId == second.roleId)
        #expect(first.roleId != other.roleId)
        #expect(first.roleId.hasPrefix("AROA"))
        #expect(first.roleId.count == 21)
        #expect(first.userId == "\(first.roleId):s1")
    }

    @Test func rejectsInvalidSessions() {
        #expect(throws: PolicyEngineError.invalidRequest("")) {
            try WebIdentitySession(.facebook(userId: "1", appId: "a"), role: "not-an-arn", sessionName: "ok")
        }
        #expect(throws: PolicyEngineError.invalidRequest("")) {
            try WebIdentitySession(.facebook(userId: "1", appId: "a"), role: TestSupport.roleArn, sessionName: "no spaces")
        }
    }

    @Test func contextKeysAreCaseInsensitiveAndEditable() {
        var context = RequestContext(principal: TestSupport.user, values: ["S3:Prefix": "a/"])
        #expect(context["s3:prefix"] == "a/")
        #expect(context.keys.contains("S3:Prefix"))
        #expect(context["aws:username"] == "carol")
        context["s3:PREFIX"] = "b/"
        #expect(context["S3:prefix"] == "b/")
        context["s3:prefix"] = nil
        #expect(context["s3:prefix"] == nil)
        context["aws:username"] = "override"
        #expect(context["aws:username"] == "override")
        context.principal = nil
        #expect(context["aws:PrincipalType"] == "Anonymous")
        #expect(context.entries.contains { $0.key == "aws:username" && $0.value == "override" })
        let merged = context.merging(["a:b": ["x", "y"]])
        #expect(merged["a:b"]?.isMultiValued == true)
        #expect(context["a:b"] == nil)
    }

    @Test func contextValueLiterals() {
        let single: ContextValue = "x"
        let multiple: ContextValue = ["x"]
        let flag: ContextValue = true
        let number: ContextValue = 42
        #expect(single.singleValue == "x")
        #expect(multiple.singleValue == nil)
        #expect(single != multiple)
        #expect(flag == .bool(true))
        #expect(number == "42")
        #expect(multiple.description == "[\"x\"]")
    }
}
