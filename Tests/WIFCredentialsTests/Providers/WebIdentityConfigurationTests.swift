import Foundation
import Testing
@testable import WIFCredentials

@Suite struct WebIdentityConfigurationTests {
    static let roleArn = "arn:aws:iam::123456789012:role/app-role"

    // MARK: Environment

    @Test func fromEnvironment() throws {
        let configuration = try #require(
            try WebIdentityConfiguration(environment: [
                "AWS_ROLE_ARN": Self.roleArn,
                "AWS_WEB_IDENTITY_TOKEN_FILE": "/var/run/secrets/eks.amazonaws.com/serviceaccount/token",
                "AWS_ROLE_SESSION_NAME": "pod-session@ns",
                "AWS_REGION": "eu-west-1",
                "AWS_DEFAULT_REGION": "us-west-2",
                "AWS_ENDPOINT_URL_STS": "http://127.0.0.1:5000",
                "AWS_ENDPOINT_URL": "http://127.0.0.1:9999",
            ])
        )
        #expect(configuration.roleArn == Self.roleArn)
        #expect((configuration.tokenSource as? FileTokenSource)?.path == "/var/run/secrets/eks.amazonaws.com/serviceaccount/token")
        #expect(configuration.roleSessionName == "pod-session@ns")
        #expect(configuration.region == "eu-west-1")
        #expect(configuration.stsEndpoint == "http://127.0.0.1:5000")
        #expect(configuration.durationSeconds == nil)
        #expect(configuration.providerId == nil)
    }

    @Test func environmentFallbacks() throws {
        let configuration = try #require(
            try WebIdentityConfiguration(environment: [
                "AWS_ROLE_ARN": Self.roleArn,
                "AWS_WEB_IDENTITY_TOKEN_FILE": "/token",
                "AWS_ROLE_SESSION_NAME": "",
                "AWS_REGION": "",
                "AWS_DEFAULT_REGION": "us-west-2",
                "AWS_ENDPOINT_URL_STS": "",
                "AWS_ENDPOINT_URL": "https://sts.example.com",
            ])
        )
        #expect(configuration.roleSessionName == nil)
        #expect(configuration.region == "us-west-2")
        #expect(configuration.stsEndpoint == "https://sts.example.com")
    }

    @Test func environmentCanIgnoreEndpoints() throws {
        let configuration = try #require(
            try WebIdentityConfiguration(environment: [
                "AWS_ROLE_ARN": Self.roleArn,
                "AWS_WEB_IDENTITY_TOKEN_FILE": "/token",
                "AWS_ENDPOINT_URL_STS": "http://127.0.0.1:5000",
                "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "TRUE",
            ])
        )
        #expect(configuration.stsEndpoint == nil)
        #expect(configuration.region == nil)
    }

    @Test func environmentWithoutWebIdentity() throws {
        #expect(try WebIdentityConfiguration(environment: [:]) == nil)
        #expect(try WebIdentityConfiguration(environment: ["AWS_ROLE_ARN": "", "AWS_WEB_IDENTITY_TOKEN_FILE": ""]) == nil)
        #expect(try WebIdentityConfiguration(environment: ["AWS_ACCESS_KEY_ID": "AKIDEXAMPLE"]) == nil)
    }

    @Test(arguments: [
        (
            ["AWS_ROLE_ARN": roleArn],
            "AWS_ROLE_ARN is set but AWS_WEB_IDENTITY_TOKEN_FILE is not; set it to the path of the web-identity token file"
        ),
        (
            ["AWS_WEB_IDENTITY_TOKEN_FILE": "/token"],
            "AWS_WEB_IDENTITY_TOKEN_FILE is set but AWS_ROLE_ARN is not; set it to the ARN of the role to assume"
        ),
        (
            ["AWS_ROLE_ARN": "my-role", "AWS_WEB_IDENTITY_TOKEN_FILE": "/token"],
            "AWS_ROLE_ARN is 7 characters; STS accepts 20–2048"
        ),
        (
            ["AWS_ROLE_ARN": "arn:aws:s3:::bucket-name-long-enough", "AWS_WEB_IDENTITY_TOKEN_FILE": "/token"],
            "AWS_ROLE_ARN 'arn:aws:s3:::bucket-name-long-enough' is not an IAM role ARN; expected arn:<partition>:iam::<account>:role/<name>"
        ),
        (
            ["AWS_ROLE_ARN": roleArn, "AWS_WEB_IDENTITY_TOKEN_FILE": "/token", "AWS_ROLE_SESSION_NAME": "my session"],
            "AWS_ROLE_SESSION_NAME 'my session' is not a valid session name: STS accepts 2–64 letters, digits and + = , . @ _ -"
        ),
        (
            ["AWS_ROLE_ARN": roleArn, "AWS_WEB_IDENTITY_TOKEN_FILE": "/token", "AWS_ROLE_SESSION_NAME": "x"],
            "AWS_ROLE_SESSION_NAME 'x' is not a valid session name: STS accepts 2–64 letters, digits and + = , . @ _ -"
        ),
        (
            ["AWS_ROLE_ARN": roleArn, "AWS_WEB_IDENTITY_TOKEN_FILE": "/token", "AWS_REGION": "EU West"],
            "AWS_REGION 'EU West' is not a region name (lowercase letters, digits and dashes, such as us-east-1)"
        ),
        (
            ["AWS_ROLE_ARN": roleArn, "AWS_WEB_IDENTITY_TOKEN_FILE": "/token", "AWS_ENDPOINT_URL_STS": "ftp://sts.example.com"],
            "AWS_ENDPOINT_URL_STS 'ftp://sts.example.com' has scheme 'ftp'; STS endpoints must use http or https"
        ),
    ])
    func environmentErrors(environment: [String: String], reason: String) throws {
        let error = #expect(throws: WIFCredentialsError.invalidConfiguration("")) {
            try WebIdentityConfiguration(environment: environment)
        }
        #expect(error?.reason == reason)
    }

    // MARK: Profiles

    @Test func fromProfile() throws {
        let profiles = try AWSProfileSet(
            configFile: """
                [default]
                region = us-east-2

                [profile ci]
                role_arn = \(Self.roleArn)
                web_identity_token_file = ~/tokens/ci
                role_session_name = ci-build
                duration_seconds = 1800
                region = eu-central-1
                services = local

                [services local]
                sts =
                  endpoint_url = http://localhost:4566
                """
        )
        let configuration = try #require(
            try WebIdentityConfiguration(profileSet: profiles, profileName: "ci", environment: ["HOME": "/home/app"], platform: .posix)
        )
        #expect(configuration.roleArn == Self.roleArn)
        #expect((configuration.tokenSource as? FileTokenSource)?.path == "/home/app/tokens/ci")
        #expect(configuration.roleSessionName == "ci-build")
        #expect(configuration.durationSeconds == 1800)
        #expect(configuration.region == "eu-central-1")
        #expect(configuration.stsEndpoint == "http://localhost:4566")
    }

    @Test func environmentOverridesProfileRegionAndEndpoint() throws {
        let profiles = try AWSProfileSet(
            configFile: """
                [default]
                role_arn = \(Self.roleArn)
                web_identity_token_file = /token
                region = eu-central-1
                endpoint_url = http://profile-endpoint:1
                """
        )
        let plain = try #require(try WebIdentityConfiguration(profileSet: profiles, environment: [:]))
        #expect(plain.region == "eu-central-1")
        #expect(plain.stsEndpoint == "http://profile-endpoint:1")

        let overridden = try #require(
            try WebIdentityConfiguration(
                profileSet: profiles,
                environment: ["AWS_REGION": "ap-south-1", "AWS_ENDPOINT_URL": "http://environment-endpoint:2"]
            )
        )
        #expect(overridden.region == "ap-south-1")
        #expect(overridden.stsEndpoint == "http://environment-endpoint:2")

        let ignored = try #require(
            try WebIdentityConfiguration(profileSet: profiles, environment: ["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true"])
        )
        #expect(ignored.stsEndpoint == nil)
    }

    @Test func profilesWithoutWebIdentity() throws {
        let profiles = try AWSProfileSet(
            configFile: """
                [profile keys]
                region = us-east-1

                [profile chained]
                role_arn = \(Self.roleArn)
                source_profile = keys

                [profile container]
                role_arn = \(Self.roleArn)
                credential_source = EcsContainer
                """,
            credentialsFile: """
                [keys]
                aws_access_key_id = AKIDEXAMPLE
                aws_secret_access_key = secret
                """
        )
        for name in ["keys", "chained", "container", "absent"] {
            #expect(try WebIdentityConfiguration(profileSet: profiles, profileName: name, environment: [:]) == nil)
        }
    }

    @Test(arguments: [
        (
            "role_arn = \(roleArn)",
            "profile 'p' sets role_arn but not web_identity_token_file (nor source_profile or credential_source); set web_identity_token_file to the path of the web-identity token file"
        ),
        (
            "web_identity_token_file = /token",
            "profile 'p' sets web_identity_token_file but not role_arn; set role_arn to the ARN of the role to assume"
        ),
        (
            "role_arn = \(roleArn)\nweb_identity_token_file = /token\nsource_profile = other",
            "profile 'p' sets web_identity_token_file together with source_profile or credential_source; keep only one way of assuming role_arn"
        ),
        (
            "role_arn = arn:aws:iam::123456789012:user/someone\nweb_identity_token_file = /token",
            "profile 'p': role_arn 'arn:aws:iam::123456789012:user/someone' is not an IAM role ARN; expected arn:<partition>:iam::<account>:role/<name>"
        ),
        (
            "role_arn = \(roleArn)\nweb_identity_token_file = /token\nrole_session_name = a/b",
            "profile 'p': role_session_name 'a/b' is not a valid session name: STS accepts 2–64 letters, digits and + = , . @ _ -"
        ),
        (
            "role_arn = \(roleArn)\nweb_identity_token_file = /token\nduration_seconds = 1h",
            "profile 'p': duration_seconds must be a whole number of seconds, found '1h'"
        ),
        (
            "role_arn = \(roleArn)\nweb_identity_token_file = /token\nduration_seconds = 60",
            "profile 'p': duration_seconds is 60; STS accepts 900–43200 seconds (15 minutes to 12 hours)"
        ),
        (
            "role_arn = \(roleArn)\nweb_identity_token_file = /token\nregion = Mars_1",
            "profile 'p': region 'Mars_1' is not a region name (lowercase letters, digits and dashes, such as us-east-1)"
        ),
        (
            "role_arn = \(roleArn)\nweb_identity_token_file = /token\nendpoint_url = http://",
            "profile 'p': endpoint_url 'http://' has no host"
        ),
    ])
    func profileErrors(body: String, reason: String) throws {
        let profiles = try AWSProfileSet(configFile: "[profile p]\n\(body)\n")
        let error = #expect(throws: WIFCredentialsError.invalidConfiguration("")) {
            try WebIdentityConfiguration(profileSet: profiles, profileName: "p", environment: [:])
        }
        #expect(error?.reason == reason)
    }

    @Test func loadsProfileFilesFromTheEnvironment() throws {
        let directory = try TokenTestDirectory()
        let configPath = try directory.write(
            "config",
            """
            [profile wif]
            role_arn = \(Self.roleArn)
            web_identity_token_file = \(directory.path("token"))
            """
        )
        let environment = [
            "AWS_CONFIG_FILE": configPath,
            "AWS_SHARED_CREDENTIALS_FILE": directory.path("absent-credentials"),
            "AWS_PROFILE": "wif",
        ]
        let configuration = try #require(try WebIdentityConfiguration.load(environment: environment))
        #expect((configuration.tokenSource as? FileTokenSource)?.path == directory.path("token"))
        #expect(try WebIdentityConfiguration.load(profileName: "default", environment: environment) == nil)
    }

    // MARK: Request and description

    @Test func defaultSessionNameIsValid() throws {
        for seconds in [0.0, 1_700_000_000.123, 4_102_444_800] {
            let date = Date(timeIntervalSince1970: seconds)
            let name = WebIdentityConfiguration.defaultRoleSessionName(at: date)
            #expect(name.hasPrefix("wif-"))
            #expect(try WebIdentityConfiguration.checkRoleSessionName(name, origin: "generated") == ())
        }
        #expect(WebIdentityConfiguration.defaultRoleSessionName(at: Date(timeIntervalSince1970: 1_700_000_000.123)) == "wif-1700000000123")
    }

    @Test func requestCarriesEverySetting() throws {
        var configuration = WebIdentityConfiguration(
            roleArn: Self.roleArn,
            tokenSource: .string("opaque-token"),
            durationSeconds: 3600,
            providerId: "graph.facebook.com",
            policy: #"{"Version":"2012-10-17","Statement":[]}"#,
            policyArns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"]
        )
        let request = configuration.request(at: Date(timeIntervalSince1970: 1_700_000_000))
        #expect(request.roleArn == Self.roleArn)
        #expect(request.roleSessionName == "wif-1700000000000")
        #expect(request.durationSeconds == 3600)
        #expect(request.providerId == "graph.facebook.com")
        #expect(request.policy == #"{"Version":"2012-10-17","Statement":[]}"#)
        #expect(request.policyArns == ["arn:aws:iam::aws:policy/ReadOnlyAccess"])
        try configuration.validate()

        configuration.roleSessionName = "named"
        #expect(configuration.request(at: .distantPast).roleSessionName == "named")
    }

    @Test func validateReportsBadSettings() throws {
        var configuration = WebIdentityConfiguration(roleArn: Self.roleArn, tokenSource: .string("opaque-token"), durationSeconds: 100)
        let parameterError = #expect(throws: WIFCredentialsError.invalidParameter("")) { try configuration.validate() }
        #expect(parameterError?.reason.hasPrefix("DurationSeconds is 100") == true)

        configuration.durationSeconds = nil
        configuration.stsEndpoint = "sts.example.com"
        let endpointError = #expect(throws: WIFCredentialsError.invalidConfiguration("")) { try configuration.validate() }
        #expect(endpointError?.reason.contains("sts.example.com") == true)
    }

    @Test func descriptionNamesSettingsButNoToken() {
        let configuration = WebIdentityConfiguration(
            roleArn: Self.roleArn,
            tokenSource: .string("secret-token-value"),
            roleSessionName: "s1",
            policy: "{}",
            region: "eu-west-1"
        )
        #expect(
            configuration.description
                == "WebIdentityConfiguration(roleArn: \(Self.roleArn), tokenSource: StringTokenSource, roleSessionName: s1, policy: 2 characters, region: eu-west-1)"
        )
        #expect(!"\(configuration)".contains("secret"))
    }
}
