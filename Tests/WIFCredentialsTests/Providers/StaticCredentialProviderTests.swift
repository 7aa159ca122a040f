import Testing
@testable import WIFCredentials

@Suite struct StaticCredentialProviderTests {
    @Test func returnsItsCredentials() async throws {
        let credentials = AWSCredentials(accessKeyId: "AKIASTATIC", secretAccessKey: "hidden", sessionToken: "tok")
        #expect(try await StaticCredentialProvider(credentials: credentials).getCredentials() == credentials)
        #expect(try await StaticCredentialProvider.static(credentials).getCredentials() == credentials)
        let fromParts = StaticCredentialProvider.static(accessKeyId: "AKIASTATIC", secretAccessKey: "hidden", sessionToken: "tok")
        #expect(try await fromParts.getCredentials() == credentials)
    }

    @Test func descriptionNamesTheKeyIdOnly() {
        let provider = StaticCredentialProvider(accessKeyId: "AKIASTATIC", secretAccessKey: "hidden", sessionToken: "hidden-too")
        for text in [provider.description, "\(provider)", String(reflecting: provider)] {
            #expect(text == "StaticCredentialProvider(accessKeyId: AKIASTATIC)")
        }
    }
}
