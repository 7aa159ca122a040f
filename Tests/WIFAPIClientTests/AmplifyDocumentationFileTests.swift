import Foundation
import Testing
import WIFAPIClient

/// Configuration files as Amplify's documentation and Amplify for JavaScript publish them, read unchanged
/// (their sources and licence are in `Fixtures/amplify/README.md`).
@Suite struct AmplifyDocumentationFileTests {
    static func fixture(_ name: String) throws -> [UInt8] {
        let folder = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return Array(try Data(contentsOf: folder.appending(path: "amplify").appending(path: name)))
    }

    /// Replaces every `placeholder` in `bytes` with `value`, as a user fills in a template.
    static func filling(_ bytes: [UInt8], _ values: [String: String]) -> [UInt8] {
        var text = String(decoding: bytes, as: UTF8.self)
        for (placeholder, value) in values { text = text.replacingOccurrences(of: placeholder, with: value) }
        return Array(text.utf8)
    }

    @Test func theDocumentedMultiAuthTemplateIsRefusedAtItsFirstPlaceholder() throws {
        let bytes = try Self.fixture("docs-multi-auth-amplifyconfiguration.json")
        do {
            _ = try AmplifyAPIConfiguration.read(bytes)
            Issue.record("accepted the endpoint [GRAPHQL-ENDPOINT]")
        } catch {
            #expect(error.path == "api.plugins.awsAPIPlugin.[FRIENDLY-NAME-API-WITH-API-KEY].endpoint")
            #expect(error.message == "'[GRAPHQL-ENDPOINT]' is not an http or https URL")
            #expect(error.line == 9)
            #expect(error.column == 23)
        }
    }

    @Test func theDocumentedMultiAuthFileFilledInNamesOneClientPerMode() throws {
        let url = "https://xyz.appsync-api.us-west-2.amazonaws.com/graphql"
        let bytes = Self.filling(
            try Self.fixture("docs-multi-auth-amplifyconfiguration.json"),
            ["[GRAPHQL-ENDPOINT]": url, "[REGION]": "us-west-2", "[API_KEY]": "da2-examplekey"])
        let endpoints = try AmplifyAPIConfiguration.read(bytes)
        #expect(endpoints.map(\.name) == [
            "[FRIENDLY-NAME-API-WITH-API-KEY]", "[FRIENDLY-NAME-API-WITH-IAM]",
            "[FRIENDLY-NAME-API-WITH-USER-POOLS]", "[FRIENDLY-NAME-API-WITH-OPENID-CONNECT]",
        ])
        #expect(endpoints.map(\.defaultMode) == [.apiKey, .iam, .userPools, .oidc])
        #expect(endpoints.allSatisfy { $0.url.absoluteString == url && $0.region == "us-west-2" && $0.kind == .graphQL })
        #expect(endpoints.allSatisfy { $0.signingService == "appsync" })
        #expect(endpoints.map(\.apiKey) == ["da2-examplekey", nil, nil, nil])
        let iam = try AmplifyAPIConfiguration.endpoint(named: "[FRIENDLY-NAME-API-WITH-IAM]", in: bytes)
        #expect(iam.modes == [.iam])
    }

    @Test func theDocumentedOutputsFileIsADataAPIOnAPIKeys() throws {
        let bytes = try Self.fixture("docs-existing-api-amplify_outputs.json")
        let endpoints = try AmplifyAPIConfiguration.read(bytes)
        #expect(endpoints.count == 1)
        let data = try #require(endpoints.first)
        #expect(data.name == "data")
        #expect(data.kind == .graphQL)
        #expect(data.url.host == "abc123.appsync-api.us-east-1.amazonaws.com")
        #expect(data.region == "us-east-1")
        #expect(data.modes == [.apiKey])
        #expect(data.apiKey == "da2-abcdefghijklmno")
        #expect(try AmplifyAPIConfiguration.rules(in: bytes) == nil)
    }

    @Test func amplifyJavaScriptsOutputsFileIsRefusedAtItsDataURL() throws {
        let bytes = try Self.fixture("amplify-js-amplify_outputs.json")
        do {
            _ = try AmplifyAPIConfiguration.read(bytes)
            Issue.record("accepted the data URL mock-data-url")
        } catch {
            #expect(error.path == "data.url")
            #expect(error.message == "'mock-data-url' is not an http or https URL")
            #expect(error.line == 37)
            #expect(error.column == 10)
        }
    }

    @Test func amplifyJavaScriptsOutputsFileWithARealURLHasOneDataAPI() throws {
        let bytes = Self.filling(
            try Self.fixture("amplify-js-amplify_outputs.json"),
            ["\"mock-data-url\"": "\"https://mock.appsync-api.us-west-2.amazonaws.com/graphql\""])
        let endpoints = try AmplifyAPIConfiguration.read(bytes)
        #expect(endpoints.map(\.name) == ["data"])
        let data = try #require(endpoints.first)
        #expect(data.modes == [.apiKey])
        #expect(data.apiKey == "mock-data-api-key")
        #expect(data.region == "us-west-2")
        #expect(try AmplifyAPIConfiguration.rules(in: bytes) == nil)
    }
}
