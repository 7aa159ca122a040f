import Foundation
import Testing

@testable import WIFLocal

/// OAuth clients and lifetimes in the configuration and in configuration files.
@Suite("OAuth configuration")
struct OAuthConfigurationTests {
    @Test("The default configuration has the public development client wif-local and the contract's lifetimes")
    func defaults() throws {
        let configuration = LocalConfiguration.default(dataDirectory: "/unused")
        #expect(configuration.oauthClients == [OAuthClient(clientId: "wif-local", anyLoopbackRedirect: true)])
        #expect(configuration.oauthClient(id: "wif-local")?.isConfidential == false)
        #expect(configuration.oauth == LocalConfiguration.OAuth(
            idTokenLifetime: 3600, refreshTokenLifetime: 2_592_000, authorizationCodeLifetime: 60, deviceCodeLifetime: 600, deviceInterval: 5))
        // The client id is the oidc profile's, so its ID tokens are trusted by personal-store-oidc.
        #expect(configuration.provider(named: "oidc")?.clientIds == ["wif-local"])
        try configuration.validate()
    }

    @Test("A file changes lifetimes, the default client and adds clients; it reads back to the same configuration")
    func fileMerges() throws {
        let configuration = try ConfigurationTestSupport.load("""
            {
              "oauth": {"idTokenLifetime": 120, "deviceInterval": 0},
              "oauthClients": [
                {"clientId": "wif-local", "redirectURIs": ["http://127.0.0.1/callback"], "anyLoopbackRedirect": false},
                {"clientId": "web-app", "clientSecret": "0123456789abcdef", "redirectURIs": ["https://app.example.test/cb"]}
              ]
            }
            """)
        #expect(configuration.oauth.idTokenLifetime == 120)
        #expect(configuration.oauth.deviceInterval == 0)
        #expect(configuration.oauth.refreshTokenLifetime == 2_592_000)
        #expect(configuration.oauthClients == [
            OAuthClient(clientId: "wif-local", redirectURIs: ["http://127.0.0.1/callback"]),
            OAuthClient(clientId: "web-app", clientSecret: "0123456789abcdef", redirectURIs: ["https://app.example.test/cb"]),
        ])
        let text = configuration.fileRepresentation()
        #expect(text.contains(#""oauth": {"idTokenLifetime": 120"#))
        let reloaded = try ConfigurationTestSupport.load(text)
        #expect(reloaded.oauthClients == configuration.oauthClients)
        #expect(reloaded.oauth == configuration.oauth)
        #expect(reloaded.fileRepresentation() == text)
    }

    @Test("The default client follows the oidc profile's client id; defaults false has no clients; null clears a secret")
    func defaultClientFollowsTheProfile() throws {
        let renamed = try ConfigurationTestSupport.load(#"{"providers": [{"name": "oidc", "clientIds": ["corp-cli"]}]}"#)
        #expect(renamed.oauthClients.map(\.clientId) == ["corp-cli"])
        let none = try ConfigurationTestSupport.load(#"{"defaults": false}"#)
        #expect(none.oauthClients.isEmpty)
        let cleared = try ConfigurationTestSupport.load(
            #"{"oauthClients": [{"clientId": "a", "clientSecret": "0123456789"}, {"clientId": "wif-local", "clientSecret": null}]}"#)
        #expect(cleared.oauthClient(id: "wif-local")?.clientSecret == nil)
        #expect(cleared.oauthClient(id: "a")?.isConfidential == true)
    }

    @Test(
        "Every problem of the OAuth keys is refused with its JSON path",
        arguments: [
            (#"{"oauth": []}"#, "oauth: must be an object, not an array"),
            (#"{"oauth": {"idTokenLifetime": 0}}"#, "oauth.idTokenLifetime: must be 1 to 86400 seconds, not 0"),
            (#"{"oauth": {"deviceInterval": 301}}"#, "oauth.deviceInterval: must be 0 to 300 seconds, not 301"),
            (#"{"oauth": {"authorizationCodeLifetime": "60"}}"#, "oauth.authorizationCodeLifetime: must be a whole number, not a string"),
            (#"{"oauth": {"codeLifetime": 60}}"#, "oauth.codeLifetime: unknown key; expected one of idTokenLifetime"),
            (#"{"oauthClients": {}}"#, "oauthClients: must be an array, not an object"),
            (#"{"oauthClients": [{"redirectURIs": []}]}"#, "oauthClients[0]: needs clientId"),
            (#"{"oauthClients": [{"clientId": "a b"}]}"#, "oauthClients[0].clientId: must be 1 to 255 visible ASCII characters, not 'a b'"),
            (#"{"oauthClients": [{"clientId": "x"}, {"clientId": "x"}]}"#, "oauthClients[1].clientId: 'x' is already the client id of oauthClients[0]"),
            (#"{"oauthClients": [{"clientId": "x", "clientSecret": "short"}]}"#, "oauthClients[0].clientSecret: must be 8 to 512 characters long"),
            (#"{"oauthClients": [{"clientId": "x", "redirectURIs": "http://127.0.0.1/"}]}"#, "oauthClients[0].redirectURIs: must be an array of strings"),
            (
                #"{"oauthClients": [{"clientId": "x", "redirectURIs": ["https://app.test/cb#top"]}]}"#,
                "oauthClients[0].redirectURIs[0]: must not have a fragment"
            ),
            (
                #"{"oauthClients": [{"clientId": "x", "redirectURIs": ["/callback"]}]}"#,
                "oauthClients[0].redirectURIs[0]: must be an absolute URI such as http://127.0.0.1/callback, not '/callback'"
            ),
            (#"{"oauthClients": [{"clientId": "x", "anyLoopbackRedirect": "yes"}]}"#, "oauthClients[0].anyLoopbackRedirect: must be true or false"),
            (#"{"oauthClients": [{"clientId": "x", "scopes": []}]}"#, "oauthClients[0].scopes: unknown key; expected one of clientId"),
        ]
    )
    func refusals(json: String, message: String) throws {
        let error = try #require(try ConfigurationTestSupport.loadError(json))
        #expect(error.contains(message), "\(error)")
    }

    @Test("validate() names clients by index")
    func validateLabels() {
        var configuration = LocalConfiguration.default(dataDirectory: "/unused")
        configuration.oauthClients.append(OAuthClient(clientId: "wif-local"))
        configuration.oauth.refreshTokenLifetime = -1
        let error = #expect(throws: LocalStackError.self) { try configuration.validate() }
        #expect(error?.message.contains("oauthClients[1].clientId: 'wif-local' is already the client id of oauthClients[0]") == true)
        #expect(error?.message.contains("oauth.refreshTokenLifetime: must be 1 to 31536000 seconds, not -1") == true)
    }

    @Test("A client's description never shows its secret")
    func description() {
        let client = OAuthClient(clientId: "web-app", clientSecret: "very-secret-value", redirectURIs: ["https://app.test/cb"])
        #expect(!client.description.contains("very-secret-value"))
        #expect(!"\(client)".contains("very-secret-value"))
        #expect(client.description.contains("<redacted>"))
        #expect(client.description.contains("web-app"))
    }
}
