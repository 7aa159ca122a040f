import Testing
@testable import AccessRules

/// Amplify's multi-auth order: rules ranked by who they are for, then by provider.
@Suite struct MultiAuthOrderTests {
    static func rule(_ allow: AuthStrategy, _ provider: AuthProvider, _ operations: ModelOperations = .all) -> AuthRule {
        AuthRule(allow: allow, provider: provider, operations: operations)
    }

    @Test func theEightLevelsInOrder() {
        // Given shuffled, they come back in the table's order.
        let rules = [
            Self.rule(.public, .apiKey), Self.rule(.private, .iam), Self.rule(.groups, .oidc), Self.rule(.owner, .userPools),
            Self.rule(.public, .iam), Self.rule(.private, .userPools), Self.rule(.owner, .oidc), Self.rule(.groups, .userPools),
        ]
        let ranks = rules.map(MultiAuthOrder.rank).sorted()
        #expect(ranks == [Self.rule(.owner, .userPools), Self.rule(.owner, .oidc), Self.rule(.groups, .userPools), Self.rule(.groups, .oidc),
            Self.rule(.private, .userPools), Self.rule(.private, .iam), Self.rule(.public, .iam), Self.rule(.public, .apiKey)].map(MultiAuthOrder.rank))
        #expect(MultiAuthOrder.modes(rules: rules, operation: .get, signedIn: true) == [.userPools, .oidc, .iam, .apiKey])
    }

    @Test func signedOutCallersGetOnlyPublicAndCustomRules() {
        let rules = [Self.rule(.owner, .userPools), Self.rule(.public, .apiKey), Self.rule(.public, .iam), Self.rule(.custom, .function)]
        #expect(MultiAuthOrder.modes(rules: rules, operation: .list, signedIn: false) == [.lambda, .iam, .apiKey])
        #expect(MultiAuthOrder.modes(rules: rules, operation: .list, signedIn: true) == [.lambda, .userPools, .iam, .apiKey])
    }

    @Test func onlyRulesListingTheOperationCount() {
        let rules = [Self.rule(.owner, .userPools), Self.rule(.public, .apiKey, .read)]
        #expect(MultiAuthOrder.modes(rules: rules, operation: .create, signedIn: true) == [.userPools])
        #expect(MultiAuthOrder.modes(rules: rules, operation: .create, signedIn: false).isEmpty)
    }

    @Test func modeNames() {
        #expect(APIAuthorizationMode(name: "AMAZON_COGNITO_USER_POOLS") == .userPools)
        #expect(APIAuthorizationMode(name: "userPools") == .userPools)
        #expect(APIAuthorizationMode(name: "function") == .lambda)
        #expect(APIAuthorizationMode(name: "api_key") == nil)
        #expect(APIAuthorizationMode.none.provider == nil)
        #expect(APIAttemptOutcome.answered(status: 500).fallsBack == false)
        #expect(APIAttemptOutcome.noCredentials("x").fallsBack)
    }
}
