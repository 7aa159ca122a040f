import Foundation
import Testing
@testable import WIFCredentials
import WIFTestSupport

@Suite struct DefaultCredentialChainTests {
    static let roleArn = "arn:aws:iam::123456789012:role/app-role"

    /// A directory holding token, config and credentials files, and an environment pointing at them.
    struct Setup {
        let directory: TokenTestDirectory
        let clock = ManualTimeSource()
        let sts: WebIdentityFakeSTS
        var environment: [String: String]

        init(config: String? = nil, credentials: String? = nil) throws {
            self.directory = try TokenTestDirectory()
            self.sts = WebIdentityFakeSTS(clock: self.clock)
            self.environment = [
                "HOME": self.directory.url.path,
                "AWS_CONFIG_FILE": self.directory.path("config"),
                "AWS_SHARED_CREDENTIALS_FILE": self.directory.path("credentials"),
            ]
            try self.directory.write("token", "token-from-file")
            if let config { try self.directory.write("config", config) }
            if let credentials { try self.directory.write("credentials", credentials) }
        }

        func chain(profile: String? = nil) -> DefaultCredentialChain {
            DefaultCredentialChain(
                environment: self.environment,
                profile: profile,
                configuration: .init(sts: .init(retry: .disabled)),
                transport: self.sts,
                timeSource: self.clock.timeSource
            )
        }
    }

    @Test func environmentKeysComeFirst() async throws {
        var setup = try Setup()
        setup.environment["AWS_ACCESS_KEY_ID"] = "AKIDENVIRONMENT"
        setup.environment["AWS_SECRET_ACCESS_KEY"] = "environment-secret"
        setup.environment["AWS_ROLE_ARN"] = Self.roleArn
        setup.environment["AWS_WEB_IDENTITY_TOKEN_FILE"] = setup.directory.path("token")
        let chain = setup.chain()
        #expect(try await chain.getCredentials(logger: .noop).accessKeyId == "AKIDENVIRONMENT")
        #expect(chain.selectedIndex == 0)
        #expect(setup.sts.requests.isEmpty)
    }

    @Test func webIdentityFromTheEnvironment() async throws {
        var setup = try Setup(credentials: "[default]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = s\n")
        setup.environment["AWS_ROLE_ARN"] = Self.roleArn
        setup.environment["AWS_WEB_IDENTITY_TOKEN_FILE"] = setup.directory.path("token")
        setup.environment["AWS_ROLE_SESSION_NAME"] = "pod-1"
        setup.environment["AWS_REGION"] = "eu-north-1"
        let chain = setup.chain()
        #expect(try await chain.getCredentials(logger: .noop).accessKeyId == "ASIAFAKE1")
        #expect(chain.selectedIndex == 1)
        let request = try #require(setup.sts.requests.first)
        #expect(request.parameters["WebIdentityToken"] == "token-from-file")
        #expect(request.parameters["RoleSessionName"] == "pod-1")
        #expect(request.url.absoluteString == "https://sts.eu-north-1.amazonaws.com")
    }

    @Test func webIdentityFromTheProfileBeatsItsStaticKeys() async throws {
        let setup = try Setup(
            config: """
                [default]
                role_arn = \(Self.roleArn)
                web_identity_token_file = ~/token
                role_session_name = from-profile
                region = us-west-1
                """,
            credentials: "[default]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = s\n"
        )
        let chain = setup.chain()
        #expect(try await chain.getCredentials(logger: .noop).accessKeyId == "ASIAFAKE1")
        #expect(try await chain.getCredentials(logger: .noop).accessKeyId == "ASIAFAKE1")
        #expect(chain.selectedIndex == 2)
        #expect(setup.sts.requests.count == 1)
        let request = try #require(setup.sts.requests.first)
        #expect(request.parameters["WebIdentityToken"] == "token-from-file")
        #expect(request.parameters["RoleSessionName"] == "from-profile")
        #expect(request.url.absoluteString == "https://sts.us-west-1.amazonaws.com")

        // The profile's provider keeps its cache: invalidation reaches it and it asks STS again.
        await chain.invalidate(accessKeyId: "ASIAFAKE1")
        #expect(try await chain.getCredentials(logger: .noop).accessKeyId == "ASIAFAKE2")
    }

    @Test func profileTokenFileIsReadOnEachRefresh() async throws {
        let setup = try Setup(config: "[default]\nrole_arn = \(Self.roleArn)\nweb_identity_token_file = ~/token\n")
        let chain = setup.chain()
        _ = try await chain.getCredentials(logger: .noop)
        try setup.directory.write("token", "token-rotated-by-kubelet")
        try setup.directory.setModificationDate("token", Date(timeIntervalSince1970: 1_600_000_000))
        setup.clock.advance(by: .seconds(3600))
        _ = try await chain.getCredentials(logger: .noop)
        #expect(setup.sts.tokensSeen == ["token-from-file", "token-rotated-by-kubelet"])
    }

    @Test func staticKeysFromTheSelectedProfile() async throws {
        var setup = try Setup(
            credentials: """
                [default]
                aws_access_key_id = AKIDDEFAULT
                aws_secret_access_key = s1

                [work]
                aws_access_key_id = AKIDWORK
                aws_secret_access_key = s2
                """
        )
        #expect(try await setup.chain().getCredentials(logger: .noop).accessKeyId == "AKIDDEFAULT")
        setup.environment["AWS_PROFILE"] = "work"
        #expect(try await setup.chain().getCredentials(logger: .noop).accessKeyId == "AKIDWORK")
        #expect(try await setup.chain(profile: "default").getCredentials(logger: .noop).accessKeyId == "AKIDDEFAULT")
        #expect(setup.sts.requests.isEmpty)
    }

    @Test func nothingConfiguredListsEveryStep() async throws {
        let setup = try Setup()
        let error = await #expect(throws: WIFCredentialsError.noCredentials("")) {
            try await setup.chain().getCredentials(logger: .noop)
        }
        let reason = try #require(error?.reason)
        #expect(reason.hasPrefix("no provider in the chain supplied credentials: 1. EnvironmentCredentialProvider: "))
        #expect(reason.contains("2. WebIdentityCredentialProvider(environment): AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE are not set"))
        #expect(reason.contains("3. ProfileCredentialProvider(profile: <selected>, web identity or static keys): profile 'default' is not defined"))
    }

    @Test func partialEnvironmentIsExplained() async throws {
        var setup = try Setup()
        setup.environment["AWS_ROLE_ARN"] = Self.roleArn
        let error = await #expect(throws: WIFCredentialsError.noCredentials("")) {
            try await setup.chain().getCredentials(logger: .noop)
        }
        #expect(
            error?.reason.contains(
                "2. WebIdentityCredentialProvider(environment): AWS_ROLE_ARN is set but AWS_WEB_IDENTITY_TOKEN_FILE is not"
            ) == true
        )
    }

    @Test func badProfileIsExplained() async throws {
        let setup = try Setup(config: "[default]\nweb_identity_token_file = ~/token\n")
        let error = await #expect(throws: WIFCredentialsError.noCredentials("")) {
            try await setup.chain().getCredentials(logger: .noop)
        }
        #expect(error?.reason.contains("profile 'default' sets web_identity_token_file but not role_arn") == true)
    }

    @Test func missingProfileTokenFileIsExplained() async throws {
        let setup = try Setup(config: "[default]\nrole_arn = \(Self.roleArn)\nweb_identity_token_file = ~/absent\n")
        let error = await #expect(throws: WIFCredentialsError.noCredentials("")) {
            try await setup.chain().getCredentials(logger: .noop)
        }
        #expect(error?.reason.contains("web-identity token file '\(setup.directory.path("absent"))' does not exist") == true)
        #expect(setup.sts.requests.isEmpty)
    }

    @Test func factoryAndDescription() throws {
        let opaque: some CredentialProvider = .default(environment: [:], profile: "ci")
        let chain = try #require(opaque as? DefaultCredentialChain)
        #expect(chain.providers.count == 3)
        #expect(chain.selectedIndex == nil)
        #expect(
            chain.description
                == "DefaultCredentialChain(EnvironmentCredentialProvider, WebIdentityCredentialProvider(environment), ProfileCredentialProvider(profile: ci, web identity or static keys))"
        )
    }
}
