import Foundation
import Testing
@testable import WIFCredentials
import WIFTestSupport

/// The profile step reads the shared files again when they change, and honours the profile's
/// `ignore_configured_endpoint_urls`.
extension DefaultCredentialChainTests {
    static func webIdentityProfile(role: String = roleArn, region: String = "us-west-1", extra: String = "") -> String {
        "[default]\nrole_arn = \(role)\nweb_identity_token_file = ~/token\nregion = \(region)\n\(extra)"
    }

    @Test func anEditedProfileIsReadAgainOnTheNextCall() async throws {
        let setup = try Setup(config: Self.webIdentityProfile())
        let written = Date(timeIntervalSince1970: 1_700_000_000)
        try setup.directory.setModificationDate("config", written)
        let chain = setup.chain()
        _ = try await chain.getCredentials(logger: .noop)
        _ = try await chain.getCredentials(logger: .noop)
        #expect(setup.sts.requests.count == 1)

        // Same file, same size, another role: only the modification time tells.
        let otherRole = String(Self.roleArn.dropLast()) + "X"
        try setup.directory.write("config", Self.webIdentityProfile(role: otherRole))
        try setup.directory.setModificationDate("config", written.addingTimeInterval(1))
        #expect(try await chain.getCredentials(logger: .noop).accessKeyId == "ASIAFAKE2")
        #expect(setup.sts.requests.map { $0.parameters["RoleArn"] } == [Self.roleArn, otherRole])

        // The profile now has static keys instead.
        try setup.directory.write("config", "[default]\nregion = us-west-1\n")
        try setup.directory.write("credentials", "[default]\naws_access_key_id = AKIDEDITED\naws_secret_access_key = s\n")
        #expect(try await chain.getCredentials(logger: .noop).accessKeyId == "AKIDEDITED")
        #expect(setup.sts.requests.count == 2)
    }

    @Test func aReplacedConfigFileIsNoticedByItsFileNumber() async throws {
        let setup = try Setup(config: Self.webIdentityProfile(region: "us-west-1"))
        let written = Date(timeIntervalSince1970: 1_700_000_000)
        try setup.directory.setModificationDate("config", written)
        let chain = setup.chain()
        _ = try await chain.getCredentials(logger: .noop)

        // Saved as editors do: a new file renamed over the old one, same size and time.
        try setup.directory.write("config.new", Self.webIdentityProfile(region: "us-west-2"))
        try setup.directory.setModificationDate("config.new", written)
        #expect(rename(setup.directory.path("config.new"), setup.directory.path("config")) == 0)
        _ = try await chain.getCredentials(logger: .noop)
        #expect(setup.sts.requests.map(\.url.absoluteString) == ["https://sts.us-west-1.amazonaws.com", "https://sts.us-west-2.amazonaws.com"])
    }

    @Test func aTouchedProfileWithTheSameSettingsKeepsItsCachedCredentials() async throws {
        let setup = try Setup(config: Self.webIdentityProfile())
        let chain = setup.chain()
        _ = try await chain.getCredentials(logger: .noop)
        try setup.directory.write("config", Self.webIdentityProfile() + "\n# reviewed\n")
        #expect(try await chain.getCredentials(logger: .noop).accessKeyId == "ASIAFAKE1")
        #expect(setup.sts.requests.count == 1)
    }

    @Test func theProfilesIgnoreConfiguredEndpointURLsOverridesTheEndpointVariables() async throws {
        var setup = try Setup(config: Self.webIdentityProfile(region: "eu-north-1", extra: "ignore_configured_endpoint_urls = true\nendpoint_url = http://127.0.0.1:9\n"))
        setup.environment["AWS_ENDPOINT_URL_STS"] = "http://127.0.0.1:8"
        setup.environment["AWS_ENDPOINT_URL"] = "http://127.0.0.1:7"
        _ = try await setup.chain().getCredentials(logger: .noop)
        #expect(setup.sts.requests.last?.url.absoluteString == "https://sts.eu-north-1.amazonaws.com")

        // The variable, when set, wins over the file, as for every setting read from both.
        setup.environment["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"] = "false"
        _ = try await setup.chain().getCredentials(logger: .noop)
        #expect(setup.sts.requests.last?.url.absoluteString == "http://127.0.0.1:8")
    }
}
