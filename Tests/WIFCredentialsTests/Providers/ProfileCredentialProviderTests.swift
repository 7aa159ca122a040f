import Testing
@testable import WIFCredentials

@Suite struct ProfileCredentialProviderTests {
    @Test func readsTheSelectedProfileFromFiles() async throws {
        let directory = try AWSConfigTestDirectory()
        try directory.writeConfig("[profile dev]\naws_account_id = 123456789012\n")
        try directory.writeCredentials("[default]\naws_access_key_id = AKIADEFAULT\naws_secret_access_key = s1\n[dev]\naws_access_key_id = ASIADEV\naws_secret_access_key = s2\naws_session_token = t2\n")

        let selected = ProfileCredentialProvider(environment: directory.environment(["AWS_PROFILE": "dev"]), platform: .posix)
        let credentials = try await selected.getCredentials()
        #expect(credentials == AWSCredentials(accessKeyId: "ASIADEV", secretAccessKey: "s2", sessionToken: "t2", accountId: "123456789012"))

        let byName = ProfileCredentialProvider.profile("default", environment: directory.environment(["AWS_PROFILE": "dev"]), platform: .posix)
        #expect(try await byName.getCredentials() == AWSCredentials(accessKeyId: "AKIADEFAULT", secretAccessKey: "s1"))
    }

    @Test func rereadsFilesOnEachCall() async throws {
        let directory = try AWSConfigTestDirectory()
        let provider = ProfileCredentialProvider(environment: directory.environment(), platform: .posix)
        try directory.writeCredentials("[default]\naws_access_key_id = AKIAONE\naws_secret_access_key = s\n")
        #expect(try await provider.getCredentials().accessKeyId == "AKIAONE")
        try directory.writeCredentials("[default]\naws_access_key_id = AKIATWO\naws_secret_access_key = s\n")
        #expect(try await provider.getCredentials().accessKeyId == "AKIATWO")
    }

    @Test func missingProfileNamesTheFilesSearched() async throws {
        let directory = try AWSConfigTestDirectory()
        let provider = ProfileCredentialProvider(profileName: "nope", environment: directory.environment(), platform: .posix)
        var error = try await #require(throws: WIFCredentialsError.self) { try await provider.getCredentials() }
        #expect(error.code == .noCredentials)
        #expect(error.reason == "profile 'nope' is not defined in \(directory.configPath) or \(directory.credentialsPath) (neither file exists)")

        try directory.writeConfig("[profile other]\n")
        error = try await #require(throws: WIFCredentialsError.self) { try await provider.getCredentials() }
        #expect(error.reason == "profile 'nope' is not defined in \(directory.configPath) or \(directory.credentialsPath) (\(directory.credentialsPath) does not exist)")
    }

    @Test func parseErrorsPassThrough() async throws {
        let directory = try AWSConfigTestDirectory()
        try directory.writeCredentials("[default]\nno equals sign\n")
        let error = try await #require(throws: WIFCredentialsError.self) {
            try await ProfileCredentialProvider(environment: directory.environment(), platform: .posix).getCredentials()
        }
        #expect(error.code == .profileParse)
        #expect(error.reason == "error parsing \(directory.credentialsPath) on line 2: Expected an '=' sign defining a property")
    }

    @Test(arguments: [
        ("[p]\nregion = x\n", "profile 'p' has no aws_access_key_id and aws_secret_access_key"),
        ("[p]\nrole_arn = arn:aws:iam::1:role/r\ncredential_process = x\n",
         "profile 'p' has no aws_access_key_id and aws_secret_access_key (it sets role_arn, credential_process, which this provider does not use)"),
        ("[p]\naws_access_key_id = AKIA\n", "profile 'p' has no aws_secret_access_key"),
        ("[p]\naws_secret_access_key = hidden\n", "profile 'p' has no aws_access_key_id"),
        ("[p]\naws_access_key_id =\naws_secret_access_key = hidden\n", "profile 'p' has an empty aws_access_key_id"),
        ("[p]\naws_access_key_id = AKIA\naws_secret_access_key =\n", "profile 'p' has an empty aws_secret_access_key"),
        ("[p]\naws_access_key_id =\n", "profile 'p' has an empty aws_access_key_id and no aws_secret_access_key"),
    ])
    func incompleteKeys(credentialsFile: String, reason: String) async throws {
        let set = try AWSProfileSet(credentialsFile: credentialsFile)
        let error = try await #require(throws: WIFCredentialsError.self) {
            try await ProfileCredentialProvider.profile("p", in: set).getCredentials()
        }
        #expect(error.code == .noCredentials)
        #expect(error.reason == reason)
    }

    @Test func preloadedSetUsesItsSelectedProfile() async throws {
        let set = try AWSProfileSet(
            credentialsFile: "[ci]\naws_access_key_id = AKIACI\naws_secret_access_key = s\naws_session_token =\n",
            selectedProfileName: "ci"
        )
        let credentials = try await ProfileCredentialProvider(profileSet: set).getCredentials()
        #expect(credentials == AWSCredentials(accessKeyId: "AKIACI", secretAccessKey: "s"))
        #expect(credentials.sessionToken == nil)

        let error = try await #require(throws: WIFCredentialsError.self) {
            try await ProfileCredentialProvider(profileName: "x", profileSet: set).getCredentials()
        }
        #expect(error.reason == "profile 'x' is not defined in the given profiles")
    }

    @Test func description() {
        #expect(ProfileCredentialProvider(profileName: "dev", profileSet: AWSProfileSet()).description == "ProfileCredentialProvider(profile: dev)")
        #expect(ProfileCredentialProvider(profileSet: AWSProfileSet()).description == "ProfileCredentialProvider(profile: <selected>)")
    }
}
