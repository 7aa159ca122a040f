import Testing
@testable import WIFCredentials

@Suite struct AWSConfigFileLocationTests {
    @Test(arguments: [
        ("~/.aws/config", "/home/u", AWSConfigFileLocation.Platform.posix, "/home/u/.aws/config"),
        ("~", "/home/u", .posix, "/home/u"),
        ("~/a//b/./c", "/home/u/", .posix, "/home/u/a/b/c"),
        ("~other/config", "/home/u", .posix, "~other/config"),
        ("/abs/~/config", "/home/u", .posix, "/abs/~/config"),
        ("relative/config", "/home/u", .posix, "relative/config"),
        ("~\\config", "/home/u", .posix, "~\\config"),
        ("~/.aws/config", "C:\\Users\\u", .windows, "C:\\Users\\u\\.aws\\config"),
        ("~\\x\\config", "C:\\Users\\u", .windows, "C:\\Users\\u\\x\\config"),
    ])
    func homeExpansion(path: String, home: String, platform: AWSConfigFileLocation.Platform, expected: String) {
        #expect(AWSConfigFileLocation.expandingHome(in: path, homeDirectory: home, platform: platform) == expected)
    }

    @Test func withoutHomeTheTildeStays() {
        let location = AWSConfigFileLocation(environment: [:], platform: .posix)
        #expect(location.configFilePath == "~/.aws/config")
        #expect(location.credentialsFilePath == "~/.aws/credentials")
        #expect(location.profileName == "default")
    }

    @Test func windowsVariablesAreIgnoredOnPOSIX() {
        let environment = ["USERPROFILE": "C:\\Users\\u", "HOMEDRIVE": "C:", "HOMEPATH": "\\Users\\u"]
        #expect(AWSConfigFileLocation.homeDirectory(environment: environment, platform: .posix) == nil)
        #expect(AWSConfigFileLocation.homeDirectory(environment: environment, platform: .windows) == "C:\\Users\\u")
        #expect(AWSConfigFileLocation.homeDirectory(environment: ["HOMEDRIVE": "C:"], platform: .windows) == nil)
    }

    @Test func emptyVariablesCountAsUnset() {
        let location = AWSConfigFileLocation(
            environment: ["HOME": "/home/u", "AWS_CONFIG_FILE": "", "AWS_SHARED_CREDENTIALS_FILE": "", "AWS_PROFILE": ""],
            platform: .posix
        )
        #expect(location.configFilePath == "/home/u/.aws/config")
        #expect(location.credentialsFilePath == "/home/u/.aws/credentials")
        #expect(location.profileName == "default")
        #expect(AWSConfigFileLocation.homeDirectory(environment: ["HOME": ""], platform: .posix) == nil)
    }

    @Test func pathOfKind() {
        let location = AWSConfigFileLocation(configFilePath: "/c", credentialsFilePath: "/k", profileName: "p")
        #expect(location.path(of: .config) == "/c")
        #expect(location.path(of: .credentials) == "/k")
        #expect(AWSConfigFileKind.config.environmentVariable == "AWS_CONFIG_FILE")
        #expect(AWSConfigFileKind.credentials.environmentVariable == "AWS_SHARED_CREDENTIALS_FILE")
    }
}
