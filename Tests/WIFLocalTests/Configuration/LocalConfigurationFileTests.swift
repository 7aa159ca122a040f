import Foundation
import PolicyEngine
import Testing
import WIFTestSupport
@testable import WIFLocal

/// Reading configuration files: merging over the defaults, policies inline or from files, round trips.
@Suite struct LocalConfigurationFileTests {
    static let bucketPolicy = """
        {"Version": "2012-10-17", "Statement": [{"Sid": "NoPlainHTTP", "Effect": "Deny", "Principal": "*",
          "Action": "s3:*", "Resource": ["arn:aws:s3:::team-share", "arn:aws:s3:::team-share/*"],
          "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]}
        """

    static let teamTrust = """
        {
          "Version": "2012-10-17",
          "Statement": [{
            "Effect": "Allow",
            "Principal": {"Federated": "accounts.google.com"},
            "Action": "sts:AssumeRoleWithWebIdentity",
            "Condition": {"StringEquals": {"accounts.google.com:aud": "team.apps.googleusercontent.com"}}
          }]
        }
        """

    static let teamPermissions = """
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject",
          "Resource": "arn:aws:s3:::team-share/team/${accounts.google.com:sub}/*"}]}
        """

    @Test func anEmptyObjectIsTheDefaultConfiguration() throws {
        let loaded = try ConfigurationTestSupport.load("{}")
        let defaults = LocalConfiguration.default(dataDirectory: loaded.dataDirectory)
        #expect(loaded.fileRepresentation() == defaults.fileRepresentation())
        #expect(loaded.dataDirectory.hasSuffix("/data"))
    }

    /// `local serve --config <(command)`: the configuration may come from a pipe.
    @Test func aConfigurationMayComeFromAPipe() throws {
        let folder = try TemporaryFolder("wif-config-pipe")
        let pipe = try NamedPipe(at: folder.file("wif.json"), feeding: Array(#"{"region": "eu-west-1"}"#.utf8))
        let loaded = try LocalConfiguration.load(file: pipe.path, dataDirectory: folder.file("data"))
        #expect(loaded.region == "eu-west-1")
    }

    @Test func defaultsFalseStartsFromNothing() throws {
        let loaded = try ConfigurationTestSupport.load(#"{"defaults": false}"#)
        #expect(loaded.providers.isEmpty)
        #expect(loaded.roles.isEmpty)
        #expect(loaded.buckets.isEmpty)
        #expect(loaded.issuer == LocalConfiguration.defaultIssuer)
        #expect(loaded.port == 0)
        #expect(loaded.host == "127.0.0.1")
    }

    @Test func scalarsReplaceTheDefaults() throws {
        let loaded = try ConfigurationTestSupport.load("""
            {"host": "::1", "port": 4566, "region": "eu-west-1", "allowedClockSkew": 300, "tokenLeeway": 5,
             "adminCredentials": {"accessKeyId": "AKIAWIFLOCALADMIN001", "secretAccessKey": "admin-secret-0123"}}
            """)
        #expect(loaded.host == "::1")
        #expect(loaded.port == 4566)
        #expect(loaded.region == "eu-west-1")
        #expect(loaded.allowedClockSkew == 300)
        #expect(loaded.tokenLeeway == 5)
        #expect(loaded.adminCredentials == AdminCredentials(accessKeyId: "AKIAWIFLOCALADMIN001", secretAccessKey: "admin-secret-0123"))
        #expect(loaded.roles.count == 8)
    }

    @Test func aProviderOverrideChangesOnlyItsFieldsAndTheDefaultTrustPolicyFollows() throws {
        let loaded = try ConfigurationTestSupport.load("""
            {"providers": [{"name": "google", "clientIds": ["mine.apps.googleusercontent.com", "other.apps.googleusercontent.com"]}]}
            """)
        let google = try #require(loaded.provider(named: "google"))
        #expect(google.kind == .google)
        #expect(google.issuer == "https://accounts.google.com")
        #expect(google.clientIds == ["mine.apps.googleusercontent.com", "other.apps.googleusercontent.com"])
        #expect(loaded.providers.count == 6)
        let role = try #require(loaded.roles.first { $0.name == "personal-store-google" })
        let trust = try Policy.parse(role.trustPolicy, kind: .trust)
        let expected = try Policy.parse(
            PolicyTemplates.trust(for: google, accountId: LocalConfiguration.defaultAccountId), kind: .trust)
        #expect(trust == expected)
        #expect(role.trustPolicy.contains("\"mine.apps.googleusercontent.com\", \"other.apps.googleusercontent.com\""))
    }

    @Test func issuerAndAccountShowInTheDefaultRoles() throws {
        let loaded = try ConfigurationTestSupport.load(#"{"issuer": "https://auth.example.test/realms/dev", "accountId": "123456789012"}"#)
        let oidc = try #require(loaded.provider(named: "oidc"))
        #expect(oidc.keyPrefix == "auth.example.test/realms/dev")
        let role = try #require(loaded.roles.first { $0.provider == "oidc" })
        #expect(loaded.arn(of: role) == "arn:aws:iam::123456789012:role/personal-store-oidc")
        #expect(role.trustPolicy.contains("arn:aws:iam::123456789012:oidc-provider/auth.example.test/realms/dev"))
        #expect(role.permissionPolicies[0].contains("${auth.example.test/realms/dev:sub}"))
    }

    @Test func rolesBucketsAndIssuersAreAddedWithPoliciesInlineOrFromFiles() throws {
        let loaded = try ConfigurationTestSupport.load(
            """
            {
              "providers": [{"name": "team", "kind": "google", "clientIds": ["team.apps.googleusercontent.com"], "issuer": "https://team.example.test"}],
              "buckets": [{"name": "team-share", "policy": "policies/bucket.json"}],
              "roles": [{
                "name": "team-reader", "path": "/teams/", "provider": "team", "bucket": "team-share",
                "partitionTemplate": "team/{id}/", "maxSessionDuration": 7200,
                "trustPolicy": "policies/trust.json",
                "permissionPolicies": [\(Self.teamPermissions)]
              }],
              "externalIssuers": [
                {"issuer": "https://token.actions.githubusercontent.com", "jwksURL": "https://token.actions.githubusercontent.com/.well-known/jwks", "clientIds": ["sts.amazonaws.com"]},
                {"issuer": "https://kubernetes.default.svc", "jwksFile": "keys/cluster.jwks", "clientIds": ["sts.amazonaws.com", "wif"]}
              ]
            }
            """,
            files: ["policies/bucket.json": Self.bucketPolicy, "policies/trust.json": Self.teamTrust])
        #expect(loaded.providers.map(\.name) == ["facebook", "amazon", "google", "cognito", "oidc", "cognito-idp", "team"])
        #expect(loaded.provider(named: "team")?.issuer == "https://team.example.test")
        #expect(loaded.buckets.map(\.name) == ["wif-personal", "team-share"])
        #expect(loaded.buckets[1].policy == Self.bucketPolicy)
        let role = try #require(loaded.roles.last)
        #expect(loaded.arn(of: role) == "arn:aws:iam::000000000000:role/teams/team-reader")
        #expect(role.trustPolicy == Self.teamTrust)
        // An inline policy is kept exactly as written.
        #expect(role.permissionPolicies == [Self.teamPermissions])
        #expect(role.maxSessionDuration == 7200)
        #expect(role.provider == "team")
        #expect(role.bucket == "team-share")
        #expect(role.partitionTemplate == "team/{id}/")
        #expect(loaded.externalIssuers.count == 2)
        #expect(loaded.externalIssuers[0].jwksURL == "https://token.actions.githubusercontent.com/.well-known/jwks")
        #expect(loaded.externalIssuers[0].jwksFile == nil)
        // A JWKS file is relative to the configuration file.
        let file = try #require(loaded.externalIssuers[1].jwksFile)
        #expect(file.hasPrefix("/") && file.hasSuffix("/keys/cluster.jwks"))
        #expect(loaded.externalIssuers[1].clientIds == ["sts.amazonaws.com", "wif"])
    }

    @Test func aRoleOverrideKeepsTheFieldsItDoesNotGive() throws {
        let loaded = try ConfigurationTestSupport.load("""
            {"roles": [{"name": "personal-store-facebook", "maxSessionDuration": 43200, "partitionTemplate": null}]}
            """)
        let defaults = LocalConfiguration.default(dataDirectory: "/unused")
        let role = try #require(loaded.roles.first { $0.name == "personal-store-facebook" })
        let original = try #require(defaults.roles.first { $0.name == "personal-store-facebook" })
        #expect(role.maxSessionDuration == 43200)
        #expect(role.partitionTemplate == nil)
        #expect(role.trustPolicy == original.trustPolicy)
        #expect(role.permissionPolicies == original.permissionPolicies)
        #expect(role.bucket == "wif-personal")
        #expect(loaded.roles.count == 8)
    }

    @Test func aBucketOverrideSetsItsPolicy() throws {
        let policy = Self.bucketPolicy.replacingOccurrences(of: "team-share", with: "wif-personal")
        let loaded = try ConfigurationTestSupport.load(#"{"buckets": [{"name": "wif-personal", "policy": \#(policy)}]}"#)
        #expect(loaded.buckets.count == 1)
        #expect(loaded.buckets[0].policy == policy)
    }

    @Test func theFileRepresentationReadsBackToTheSameConfiguration() throws {
        var configuration = LocalConfiguration.default(dataDirectory: "/unused")
        configuration.port = 4566
        configuration.region = "eu-central-1"
        configuration.adminCredentials = AdminCredentials(accessKeyId: "AKIAWIFLOCALADMIN001", secretAccessKey: "admin-secret-0123")
        configuration.externalIssuers = [ExternalIssuer(issuer: "https://ci.example.test", jwksURL: "https://ci.example.test/jwks", clientIds: ["sts.amazonaws.com"])]
        configuration.buckets.append(BucketDefinition(name: "team-share", policy: Self.bucketPolicy))
        configuration.providers.append(ProviderProfile(name: "team", kind: .oidc, clientIds: ["a", "b"], issuer: "https://team.example.test"))
        configuration.roles.append(RoleDefinition(
            name: "team-reader", path: "/teams/", trustPolicy: Self.teamTrust, permissionPolicies: [Self.teamPermissions, Self.teamPermissions],
            maxSessionDuration: 7200, provider: "team", bucket: "team-share", partitionTemplate: "team/{id}/"))
        configuration.roles.append(RoleDefinition(name: "no-permissions", trustPolicy: Self.teamTrust, permissionPolicies: []))
        try configuration.validate()

        let text = configuration.fileRepresentation()
        let loaded = try ConfigurationTestSupport.load(text)
        #expect(loaded.fileRepresentation() == text)
        #expect(loaded.providers == configuration.providers)
        #expect(loaded.externalIssuers == configuration.externalIssuers)
        #expect(loaded.adminCredentials == configuration.adminCredentials)
        #expect(loaded.buckets.map(\.name) == configuration.buckets.map(\.name))
        for (read, written) in zip(loaded.roles, configuration.roles) {
            #expect(read.name == written.name && read.path == written.path && read.provider == written.provider)
            #expect(read.bucket == written.bucket && read.partitionTemplate == written.partitionTemplate)
            #expect(read.maxSessionDuration == written.maxSessionDuration)
            #expect(try Policy.parse(read.trustPolicy) == Policy.parse(written.trustPolicy))
            #expect(try read.permissionPolicies.map { try Policy.parse($0) } == written.permissionPolicies.map { try Policy.parse($0) })
        }
        #expect(loaded.roles.count == configuration.roles.count)
        #expect(loaded.identityPools == configuration.identityPools)
    }

    @Test func jsonEscapesAndUnicodeAreRead() throws {
        let loaded = try ConfigurationTestSupport.load(#"""
            {"providers": [{"name": "team", "kind": "oidc", "clientIds": ["caf\u00e9 \"quoted\" \ud83d\ude00 tab\t/\/"], "issuer": "https://team.example.test"}]}
            """#)
        #expect(loaded.provider(named: "team")?.clientIds == ["café \"quoted\" 😀 tab\t//"])
    }
}
