import Foundation
import PolicyEngine
import Testing
@testable import WIFLocal

/// The default stack's roles carry exactly the policies published in `policies/`.
@Suite struct LocalConfigurationDefaultsTests {
    static let profiles = ["facebook", "amazon", "google", "cognito", "oidc"]

    /// The placeholders of `policies/<provider>/trust.json` and the default configuration's values for them.
    static let trustPlaceholders: [String: [(String, String)]] = [
        "facebook": [("FACEBOOK_APP_ID", "100000000000001")],
        "amazon": [("amzn1.application-oa2-client.AMAZON_CLIENT_ID", "amzn1.application-oa2-client.wiflocal")],
        "google": [("GOOGLE_CLIENT_ID.apps.googleusercontent.com", "wif-local.apps.googleusercontent.com")],
        "cognito": [("us-east-1:COGNITO_IDENTITY_POOL_ID", "us-east-1:00000000-0000-4000-8000-000000000001")],
        "oidc": [("oidc.example.com", "wif.localhost"), ("111122223333", "000000000000"), ("OIDC_CLIENT_ID", "wif-local")],
    ]

    static func policyFile(_ relativePath: String) throws -> String {
        let url = ConfigurationTestSupport.repositoryRoot.appendingPathComponent("policies").appendingPathComponent(relativePath)
        return try String(contentsOf: url, encoding: .utf8)
    }

    @Test(arguments: Self.profiles)
    func permissionsAreTheLocalPolicyFile(profile: String) throws {
        let configuration = LocalConfiguration.default(dataDirectory: "/unused")
        let role = try #require(configuration.roles.first { $0.name == "personal-store-\(profile)" })
        #expect(role.permissionPolicies.count == 1)
        let published = try Policy.parse(try Self.policyFile("local/\(profile).json"), kind: .identity)
        let built = try Policy.parse(role.permissionPolicies[0], kind: .identity)
        #expect(built == published)
        #expect(built.warnings.isEmpty)
    }

    @Test(arguments: Self.profiles)
    func trustIsTheProviderTrustFileWithPlaceholdersFilled(profile: String) throws {
        let configuration = LocalConfiguration.default(dataDirectory: "/unused")
        let role = try #require(configuration.roles.first { $0.name == "personal-store-\(profile)" })
        var text = try Self.policyFile("\(profile)/trust.json")
        let placeholders = try #require(Self.trustPlaceholders[profile])
        for (placeholder, value) in placeholders {
            #expect(text.contains(placeholder), "the placeholder \(placeholder) is gone from \(profile)/trust.json")
            text = text.replacingOccurrences(of: placeholder, with: value)
        }
        let published = try Policy.parse(text, kind: .trust)
        let built = try Policy.parse(role.trustPolicy, kind: .trust)
        #expect(built == published)
        // The placeholders' replacements are the profile's development client ids.
        let provider = try #require(configuration.provider(named: profile))
        #expect(role.trustPolicy.contains(provider.clientIds[0]))
    }

    @Test(arguments: Self.profiles)
    func eachProfileHasItsRoleFolderAndBucket(profile: String) throws {
        let configuration = LocalConfiguration.default(dataDirectory: "/unused")
        let role = try #require(configuration.roles.first { $0.provider == profile })
        #expect(configuration.arn(of: role) == "arn:aws:iam::000000000000:role/personal-store-\(profile)")
        #expect(role.bucket == "wif-personal")
        #expect(role.partitionTemplate == "\(profile)/{id}/")
        #expect(role.maxSessionDuration == 3600)
        #expect(configuration.provider(named: profile)?.kind.rawValue == profile)
    }

    @Test func theDefaultConfigurationIsValid() throws {
        let configuration = LocalConfiguration.default(dataDirectory: "/unused")
        try configuration.validate()
        #expect(configuration.buckets.map(\.name) == ["wif-personal"])
        // A personal-store role per provider kind, and the default identity pool's three roles.
        #expect(configuration.roles.count == 8)
        #expect(configuration.identityPools.map(\.id) == [IdentityPoolDefinition.defaultPoolId])
        #expect(configuration.externalIssuers.isEmpty)
        #expect(configuration.adminCredentials == nil)
    }
}
