import Testing
@testable import WIFLocal

/// Identity pools in the configuration file: read, merged with the default pool, and checked with paths.
@Suite struct IdentityPoolConfigurationTests {
    static let role = "arn:aws:iam::000000000000:role/identity-pool-authenticated"

    @Test func aPoolIsReadBesideTheDefaultOne() throws {
        let loaded = try ConfigurationTestSupport.load("""
            {"identityPools": [{"id": "eu-west-1:00000000-0000-4000-8000-0000000000aa", "name": "app",
              "allowUnauthenticatedIdentities": false, "providers": ["google", {"profile": "cognito-idp", "clientIds": ["wiflocalappclient000000000"]}],
              "roles": {"authenticated": "\(Self.role)"},
              "roleMappings": {"cognito-idp": {"type": "Rules", "ambiguousRoleResolution": "Deny",
                "rules": [{"claim": "cognito:groups", "matchType": "StartsWith", "value": "adm", "roleArn": "\(Self.role)"}]}}}]}
            """)
        #expect(loaded.identityPools.map(\.id) == [IdentityPoolDefinition.defaultPoolId, "eu-west-1:00000000-0000-4000-8000-0000000000aa"])
        let pool = try #require(loaded.identityPool(id: "eu-west-1:00000000-0000-4000-8000-0000000000aa"))
        #expect(pool.providers == [.init(profile: "google"), .init(profile: "cognito-idp", clientIds: ["wiflocalappclient000000000"])])
        #expect(pool.roles.unauthenticated == nil)
        let mapping = try #require(pool.roleMappings["cognito-idp"])
        #expect(mapping.kind == .rules && mapping.ambiguousRoleResolution == .deny)
        #expect(mapping.rules.first?.matchType == .startsWith)
        #expect(mapping.rules.first?.matches(["readers", "admins"]) == true)
        #expect(mapping.rules.first?.matches(["readers"]) == false)
    }

    @Test func problemsNameTheirPath() throws {
        let message = try #require(try ConfigurationTestSupport.loadError("""
            {"identityPools": [{"id": "not-a-pool", "providers": ["nobody", "cognito"],
              "roles": {"authenticated": "arn:aws:iam::000000000000:role/missing"},
              "roleMappings": {"google": {"type": "Rules", "ambiguousRoleResolution": "Maybe", "rules": []},
                               "oidc": {"type": "Rules", "ambiguousRoleResolution": "Deny", "rules": []}}}]}
            """))
        #expect(message.contains("identityPools[0].id: must be REGION:UUID"))
        #expect(message.contains("identityPools[0].providers[0]: no provider profile is named 'nobody'"))
        #expect(message.contains("identityPools[0].providers[1]: 'cognito' issues identity pool tokens"))
        #expect(message.contains("identityPools[0].roles.authenticated: no role has the ARN arn:aws:iam::000000000000:role/missing"))
        #expect(message.contains("identityPools[0].roleMappings.google.ambiguousRoleResolution: must be one of AuthenticatedRole, Deny, not 'Maybe'"))
        #expect(message.contains("identityPools[0].roleMappings.oidc: 'oidc' is not one of the pool's providers"))
        #expect(message.contains("identityPools[0].roleMappings.oidc.rules: a Rules mapping needs at least one rule"))
    }
}
