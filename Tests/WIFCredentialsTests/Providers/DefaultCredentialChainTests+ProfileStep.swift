import Foundation
import Testing
@testable import WIFCredentials
import WIFTestSupport

/// The profile step honours the profile's `ignore_configured_endpoint_urls`.
extension DefaultCredentialChainTests {
    static func webIdentityProfile(role: String = roleArn, region: String = "us-west-1", extra: String = "") -> String {
        "[default]\nrole_arn = \(role)\nweb_identity_token_file = ~/token\nregion = \(region)\n\(extra)"
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
