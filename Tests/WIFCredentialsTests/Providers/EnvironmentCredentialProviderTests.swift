import Foundation
import Testing
@testable import WIFCredentials

@Suite struct EnvironmentCredentialProviderTests {
    @Test func readsAllVariables() async throws {
        let provider = EnvironmentCredentialProvider(environment: [
            "AWS_ACCESS_KEY_ID": "ASIAENV",
            "AWS_SECRET_ACCESS_KEY": "secret",
            "AWS_SESSION_TOKEN": "token",
            "AWS_CREDENTIAL_EXPIRATION": "2030-01-02T03:04:05Z",
            "AWS_ACCOUNT_ID": "123456789012",
        ])
        let credentials = try await provider.getCredentials()
        #expect(credentials.accessKeyId == "ASIAENV")
        #expect(credentials.secretAccessKey == "secret")
        #expect(credentials.sessionToken == "token")
        #expect(credentials.expiration == Date(timeIntervalSince1970: 1_893_553_445))
        #expect(credentials.accountId == "123456789012")
    }

    @Test func optionalVariablesMayBeAbsentOrEmpty() async throws {
        let provider = EnvironmentCredentialProvider.environment([
            "AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "",
            "AWS_CREDENTIAL_EXPIRATION": "",
        ])
        let credentials = try await provider.getCredentials()
        #expect(credentials == AWSCredentials(accessKeyId: "AKIAENV", secretAccessKey: "secret"))
    }

    @Test func fractionalSecondsInExpiration() throws {
        let credentials = try EnvironmentCredentialProvider(environment: [
            "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b", "AWS_CREDENTIAL_EXPIRATION": "2030-01-02T03:04:05.500Z",
        ]).credentials()
        #expect(credentials.expiration == Date(timeIntervalSince1970: 1_893_553_445.5))
    }

    @Test(arguments: [
        ([String: String](), "no credentials in the environment: AWS_ACCESS_KEY_ID is not set and AWS_SECRET_ACCESS_KEY is not set"),
        (["AWS_ACCESS_KEY_ID": "AKIA"], "no credentials in the environment: AWS_SECRET_ACCESS_KEY is not set"),
        (["AWS_SECRET_ACCESS_KEY": "hidden"], "no credentials in the environment: AWS_ACCESS_KEY_ID is not set"),
        (["AWS_ACCESS_KEY_ID": "AKIA", "AWS_SECRET_ACCESS_KEY": ""], "no credentials in the environment: AWS_SECRET_ACCESS_KEY is empty"),
        (["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "hidden"], "no credentials in the environment: AWS_ACCESS_KEY_ID is empty"),
    ])
    func missingVariables(environment: [String: String], reason: String) async throws {
        let error = try await #require(throws: WIFCredentialsError.self) {
            try await EnvironmentCredentialProvider(environment: environment).getCredentials()
        }
        #expect(error == .noCredentials(""))
        #expect(error.reason == reason)
        #expect(!error.reason.contains("hidden"))
    }

    @Test func badExpirationIsAConfigurationError() async throws {
        let error = try await #require(throws: WIFCredentialsError.self) {
            try await EnvironmentCredentialProvider(environment: [
                "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b", "AWS_CREDENTIAL_EXPIRATION": "tomorrow",
            ]).getCredentials()
        }
        #expect(error.code == .invalidConfiguration)
        #expect(error.reason.contains("AWS_CREDENTIAL_EXPIRATION"))
        #expect(error.reason.contains("'tomorrow'"))
    }

    @Test func descriptionShowsNoValues() {
        let provider = EnvironmentCredentialProvider(environment: ["AWS_SECRET_ACCESS_KEY": "hidden"])
        #expect(provider.description == "EnvironmentCredentialProvider")
    }
}
