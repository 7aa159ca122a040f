import Foundation
import Testing

@testable import WIFCredentials

@Suite struct OAuth2ClientConfigurationTests {
    static func url(_ text: String) -> URL {
        URL(string: text) ?? URL(fileURLWithPath: "/")
    }

    @Test func anIssuerGivesItsWellKnownDiscoveryURL() throws {
        let configuration = OAuth2ClientConfiguration(issuer: "https://accounts.example.com/", clientId: "app")
        try configuration.validate()
        #expect(configuration.effectiveDiscoveryURL?.absoluteString == "https://accounts.example.com/.well-known/openid-configuration")
        #expect(configuration.scopes == ["openid", "offline_access"])
        #expect(configuration.effectiveClientAuthentication == .none)
    }

    @Test func anExplicitDiscoveryURLWinsAndTheIssuerStaysSeparate() throws {
        let configuration = OAuth2ClientConfiguration(
            issuer: "https://wif.localhost",
            discoveryURL: Self.url("http://127.0.0.1:4566/.well-known/openid-configuration"),
            clientId: "wif-local"
        )
        try configuration.validate()
        #expect(configuration.effectiveDiscoveryURL?.absoluteString == "http://127.0.0.1:4566/.well-known/openid-configuration")
    }

    @Test func explicitEndpointsNeedNoDiscovery() throws {
        let configuration = OAuth2ClientConfiguration(
            issuer: "https://issuer.example",
            endpoints: .init(token: Self.url("https://issuer.example/token"), jwks: Self.url("https://issuer.example/jwks")),
            clientId: "app"
        )
        try configuration.validate()
        #expect(configuration.effectiveDiscoveryURL == nil)
    }

    @Test func aSecretIsSentWithBasicAuthenticationByDefault() throws {
        let configuration = OAuth2ClientConfiguration(issuer: "https://issuer.example", clientId: "app", clientSecret: "s3cret")
        try configuration.validate()
        #expect(configuration.effectiveClientAuthentication == .clientSecretBasic)
    }

    @Test(arguments: [
        (OAuth2ClientConfiguration(issuer: "https://i.example", clientId: ""), "clientId is 0 bytes"),
        (OAuth2ClientConfiguration(issuer: "https://i.example", clientId: "a\u{1}b"), "printable ASCII"),
        (OAuth2ClientConfiguration(issuer: "https://i.example", clientId: "app", scopes: ["profile"]), "must include 'openid'"),
        (OAuth2ClientConfiguration(issuer: "https://i.example", clientId: "app", scopes: ["openid", "two words"]), "not a scope token"),
        (OAuth2ClientConfiguration(clientId: "app"), "needs an issuer or a discoveryURL"),
        (OAuth2ClientConfiguration(issuer: "http://issuer.example", clientId: "app"), "http on a host that is not loopback"),
        (OAuth2ClientConfiguration(issuer: "ftp://issuer.example", clientId: "app"), "must be an https URL"),
        (OAuth2ClientConfiguration(issuer: "https://i.example", clientId: "app", clientSecret: ""), "clientSecret is empty"),
        (
            OAuth2ClientConfiguration(issuer: "https://i.example", clientId: "app", clientAuthentication: .clientSecretPost),
            "there is no clientSecret"
        ),
        (
            OAuth2ClientConfiguration(issuer: "https://i.example", clientId: "app", clientSecret: "x", clientAuthentication: OAuth2ClientConfiguration.ClientAuthentication.none),
            "never sends the clientSecret"
        ),
        (
            OAuth2ClientConfiguration(issuer: "https://i.example", clientId: "app", redirectURI: OAuth2ClientConfigurationTests.url("http://localhost/callback")),
            "127.0.0.1 or [::1]"
        ),
        (
            OAuth2ClientConfiguration(issuer: "https://i.example", clientId: "app", redirectURI: OAuth2ClientConfigurationTests.url("https://127.0.0.1/callback")),
            "http loopback URI"
        ),
        (
            OAuth2ClientConfiguration(
                issuer: "https://i.example", endpoints: .init(token: OAuth2ClientConfigurationTests.url("https://i.example/token")), clientId: "app"),
            ""
        ),
    ])
    func badSettingsAreRefusedNamingTheSetting(configuration: OAuth2ClientConfiguration, expected: String) throws {
        if expected.isEmpty {
            // A token endpoint without a JWKS still discovers the rest from the issuer.
            try configuration.validate()
            return
        }
        #expect {
            try configuration.validate()
        } throws: { error in
            let error = error as? WIFCredentialsError
            return error?.code == .invalidConfiguration && error?.reason.contains(expected) == true
        }
    }

    @Test func loopbackRedirectsGiveTheAddressToBind() throws {
        let ipv4 = try OAuth2ClientConfiguration.loopbackRedirect(Self.url("http://127.0.0.1/cb"))
        #expect(ipv4.bindHost == "127.0.0.1" && ipv4.port == 0 && ipv4.path == "/cb")
        let ipv6 = try OAuth2ClientConfiguration.loopbackRedirect(Self.url("http://[::1]:8123/x/y"))
        #expect(ipv6.bindHost == "::1" && ipv6.port == 8123 && ipv6.path == "/x/y")
    }

    @Test func theSecretNeverAppearsInTheDescriptionButSurvivesCoding() throws {
        let configuration = OAuth2ClientConfiguration(
            issuer: "https://issuer.example", clientId: "app", clientSecret: "very-secret-value", clientAuthentication: .clientSecretPost,
            redirectURI: Self.url("http://127.0.0.1:9000/callback"), scopes: ["openid", "email"])
        #expect(!configuration.description.contains("very-secret-value"))
        #expect(configuration.description.contains("clientSecret: <redacted>"))
        let decoded = try JSONDecoder().decode(OAuth2ClientConfiguration.self, from: JSONEncoder().encode(configuration))
        #expect(decoded == configuration)
        #expect(decoded.clientAuthentication == .clientSecretPost)
    }

    @Test func anUnknownAuthenticationMethodIsADecodingError() {
        let json = #"{"clientId":"app","scopes":["openid"],"endpoints":{},"clientAuthentication":"private_key_jwt"}"#
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(OAuth2ClientConfiguration.self, from: Data(json.utf8))
        }
    }
}
