import AccessRules
import Foundation
import Testing
import WIFAPIClient
import WIFCredentials

/// Requests, endpoints and credentials of the API client can be logged, interpolated and dumped
/// without their secrets: API keys, tokens and presigned query strings.
@Suite struct RedactionTests {
    static let apiKey = "da2-keepthisapikeyoutofthelogs"
    static let token = "eyJ-keep-this-token-out-of-the-logs"

    /// Everything a value shows: `description`, `debugDescription`, `dump` and reflection.
    static func shown(_ value: Any) -> String {
        var dumped = ""
        dump(value, to: &dumped)
        let mirrored = Mirror(reflecting: value).children.map { "\($0.label ?? ""): \($0.value)" }.joined(separator: " ")
        return [String(describing: value), String(reflecting: value), dumped, mirrored].joined(separator: "\n")
    }

    @Test func aRequestShowsItsHeadersButNotTheirCredentials() throws {
        let url = try #require(URL(string: "https://api.example.com/Todo?X-Amz-Signature=abc123sig"))
        let request = APIRequest(
            method: "GET", url: url,
            headers: [("Authorization", Self.token), ("x-api-key", Self.apiKey), ("content-type", "application/json")], body: [1, 2, 3])
        let shown = Self.shown(request)
        #expect(request.description == "APIRequest(GET https://api.example.com/Todo?…, headers: [Authorization: <redacted>, x-api-key: <redacted>, content-type: application/json], body: 3 bytes)")
        #expect(!shown.contains(Self.token) && !shown.contains(Self.apiKey) && !shown.contains("abc123sig"), "\(shown)")
    }

    @Test func anEndpointAndCredentialsDoNotShowTheKey() throws {
        let url = try #require(URL(string: "https://api.example.com/graphql"))
        let endpoint = APIEndpoint(name: "todo", kind: .graphQL, url: url, region: "eu-west-1", defaultMode: .apiKey, apiKey: Self.apiKey)
        #expect(endpoint.description.contains("apiKey: <redacted>"))
        #expect(endpoint.description.contains("https://api.example.com/graphql"))
        let credentials = APIClientCredentials(userPoolTokens: StaticAPIToken(Self.token), apiKey: Self.apiKey)
        #expect(credentials.description == "APIClientCredentials(userPoolTokens, apiKey; secrets: <redacted>)")
        for value in [Self.shown(endpoint), Self.shown(credentials)] {
            #expect(!value.contains(Self.apiKey) && !value.contains(Self.token), "\(value)")
        }
    }

    @Test func credentialsAndTokensAreNotDumped() {
        let secret = "wJalrXUtnFEMI-keep-this-secret"
        let credentials = AWSCredentials(accessKeyId: "ASIAEXAMPLE", secretAccessKey: secret, sessionToken: Self.token)
        let webIdentity = WebIdentityToken(value: Self.token)
        for value in [Self.shown(credentials), Self.shown(webIdentity), Self.shown([credentials])] {
            #expect(!value.contains(secret) && !value.contains(Self.token), "\(value)")
        }
        #expect(Self.shown(credentials).contains("ASIAEXAMPLE"))
    }
}
