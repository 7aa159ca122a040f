import Foundation
import Logging
import Testing
@testable import WIFLocal
import WIFTestSupport

/// How the local identity pool chooses a role: guests, the authenticated role, `Token` and `Rules`
/// mappings, ambiguity, and `CustomRoleArn`, without HTTP.
@Suite struct IdentityPoolRoleChoiceTests {
    static let authenticated = "arn:aws:iam::000000000000:role/identity-pool-authenticated"
    static let unauthenticated = "arn:aws:iam::000000000000:role/identity-pool-unauthenticated"
    static let admin = "arn:aws:iam::000000000000:role/identity-pool-admin"

    static func withService(_ body: (CognitoIdentityService) throws -> Void) throws {
        let path = TemporaryFolder.url("wif-role-choice").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let state = try LocalState(configuration: .default(dataDirectory: path), logger: .noop)
        let sts = STSService(state: state, verifier: try TokenVerifier(state: state), authenticator: RequestAuthenticator(state: state))
        try body(try CognitoIdentityService(state: state, sts: sts))
    }

    static func pool(_ mapping: IdentityPoolDefinition.RoleMapping?, unauthenticated: String? = Self.unauthenticated) -> IdentityPoolDefinition {
        IdentityPoolDefinition(
            id: IdentityPoolDefinition.defaultPoolId, name: "test", allowUnauthenticatedIdentities: true,
            providers: [.init(profile: "cognito-idp")], roles: .init(authenticated: Self.authenticated, unauthenticated: unauthenticated),
            roleMappings: mapping.map { ["cognito-idp": $0] } ?? [:])
    }

    static func login(_ claims: [String: TokenJSON]) -> CognitoIdentityService.VerifiedLogin {
        let profile = ProviderProfile.cognitoUserPool()
        let identity = IdentityRecord(kind: .oidc, issuer: profile.issuer, subject: "carol", audiences: profile.clientIds)
        return .init(
            key: profile.loginsKey ?? "", profile: profile,
            token: VerifiedToken(identity: identity, expiresAt: nil, sourceIdentity: nil, claims: claims))
    }

    static func code(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as AWSErrorResponse {
            return error.code
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func guestsGetTheUnauthenticatedRoleOrAConfigurationError() throws {
        try Self.withService { service in
            let guest = try service.chooseRole(pool: Self.pool(nil), logins: [], customRoleArn: nil)
            #expect(guest.arn == Self.unauthenticated && guest.reason == "unauthenticated")
            #expect(Self.code { _ = try service.chooseRole(pool: Self.pool(nil, unauthenticated: nil), logins: [], customRoleArn: nil) }
                == "InvalidIdentityPoolConfigurationException")
            let signedIn = try service.chooseRole(pool: Self.pool(nil), logins: [Self.login([:])], customRoleArn: nil)
            #expect(signedIn.arn == Self.authenticated && signedIn.reason == "authenticated")
        }
    }

    @Test func tokenMappingsUseThePreferredRoleOrTheOnlyRoleOrCustomRoleArn() throws {
        try Self.withService { service in
            let token = IdentityPoolDefinition.RoleMapping(kind: .token, ambiguousRoleResolution: .authenticatedRole)
            let preferred = try service.chooseRole(
                pool: Self.pool(token),
                logins: [Self.login(["cognito:preferred_role": .string(Self.admin), "cognito:roles": .array([.string(Self.authenticated)])])],
                customRoleArn: nil)
            #expect(preferred.arn == Self.admin && preferred.reason == "token")

            let two: [String: TokenJSON] = ["cognito:roles": .array([.string(Self.admin), .string("arn:aws:iam::000000000000:role/other")])]
            let ambiguous = try service.chooseRole(pool: Self.pool(token), logins: [Self.login(two)], customRoleArn: nil)
            #expect(ambiguous.arn == Self.authenticated && ambiguous.reason == "authenticated")
            let chosen = try service.chooseRole(pool: Self.pool(token), logins: [Self.login(two)], customRoleArn: Self.admin)
            #expect(chosen.arn == Self.admin && chosen.reason == "token")

            let deny = IdentityPoolDefinition.RoleMapping(kind: .token, ambiguousRoleResolution: .deny)
            #expect(Self.code { _ = try service.chooseRole(pool: Self.pool(deny), logins: [Self.login(two)], customRoleArn: nil) }
                == "NotAuthorizedException")
        }
    }

    static let matches: [(IdentityPoolDefinition.Rule.MatchType, String, Bool)] = [
        (.equals, "admin", true), (.equals, "adm", false), (.contains, "dmi", true),
        (.startsWith, "ad", true), (.startsWith, "dm", false), (.notEqual, "admin", false), (.notEqual, "staff", true),
    ]

    @Test(arguments: Self.matches)
    func rulesMatchClaimsAsAWSDoes(matchType: IdentityPoolDefinition.Rule.MatchType, value: String, matches: Bool) throws {
        try Self.withService { service in
            let rules = IdentityPoolDefinition.RoleMapping(
                kind: .rules, ambiguousRoleResolution: .deny,
                rules: [.init(claim: "cognito:groups", matchType: matchType, value: value, roleArn: Self.admin)])
            let login = Self.login(["cognito:groups": .array([.string("admin")])])
            if matches {
                let choice = try service.chooseRole(pool: Self.pool(rules), logins: [login], customRoleArn: nil)
                #expect(choice.arn == Self.admin && choice.reason == "rule")
            } else {
                #expect(Self.code { _ = try service.chooseRole(pool: Self.pool(rules), logins: [login], customRoleArn: nil) } == "NotAuthorizedException")
            }
            // A claim the token lacks matches nothing, NotEqual included.
            #expect(Self.code { _ = try service.chooseRole(pool: Self.pool(rules), logins: [Self.login([:])], customRoleArn: nil) } == "NotAuthorizedException")
        }
    }

    @Test func aCustomRoleArnTheIdentityMayNotHaveIsRefused() throws {
        try Self.withService { service in
            #expect(Self.code { _ = try service.chooseRole(pool: Self.pool(nil), logins: [Self.login([:])], customRoleArn: Self.admin) }
                == "NotAuthorizedException")
            let same = try service.chooseRole(pool: Self.pool(nil), logins: [Self.login([:])], customRoleArn: Self.authenticated)
            #expect(same.arn == Self.authenticated)
        }
    }
}
