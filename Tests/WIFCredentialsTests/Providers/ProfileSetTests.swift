import Foundation
import Testing
import WIFTestSupport
@testable import WIFCredentials

/// A fresh directory under the system's temporary directory, removed on deinit, holding `.aws/config`
/// and `.aws/credentials` for profile tests.
final class AWSConfigTestDirectory: Sendable {
    let path: String

    init() throws {
        self.path = TemporaryFolder.path("wif-profile")
        try FileManager.default.createDirectory(atPath: self.path + "/.aws", withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: self.path)
    }

    var configPath: String { self.path + "/.aws/config" }
    var credentialsPath: String { self.path + "/.aws/credentials" }

    /// An environment whose home is this directory.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        ["HOME": self.path].merging(extra) { _, new in new }
    }

    func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    func writeConfig(_ text: String) throws { try self.write(text, to: self.configPath) }
    func writeCredentials(_ text: String) throws { try self.write(text, to: self.credentialsPath) }
}

@Suite struct ProfileSetTests {
    @Test func loadsAndMergesBothFilesFromHome() throws {
        let directory = try AWSConfigTestDirectory()
        try directory.writeConfig("[default]\nregion = eu-west-1\n[profile dev]\nregion = us-east-2\nrole_arn = arn:aws:iam::123456789012:role/dev\n")
        try directory.writeCredentials("[dev]\naws_access_key_id = AKIADEV\nregion = ap-south-1\n")

        let set = try AWSProfileSet.load(environment: directory.environment(["AWS_PROFILE": "dev"]), platform: .posix)
        #expect(set.selectedProfileName == "dev")
        #expect(set.sourcePaths == [directory.configPath, directory.credentialsPath])
        let dev = try #require(set.selectedProfile)
        #expect(dev.region == "ap-south-1")  // the credentials file wins
        #expect(dev.roleARN == "arn:aws:iam::123456789012:role/dev")
        #expect(dev["AWS_Access_Key_ID"] == "AKIADEV")
        #expect(set[profile: "default"]?.region == "eu-west-1")
    }

    @Test func missingFilesCountAsEmpty() throws {
        let directory = try AWSConfigTestDirectory()
        let set = try AWSProfileSet.load(environment: directory.environment(), platform: .posix)
        #expect(set.profiles.isEmpty)
        #expect(set.sourcePaths.isEmpty)
        #expect(set.selectedProfileName == "default")
        #expect(set.selectedProfile == nil)
    }

    @Test func environmentOverridesPaths() throws {
        let directory = try AWSConfigTestDirectory()
        try directory.write("[profile x]\nregion = r1\n", to: directory.path + "/other-config")
        try directory.write("[x]\noutput = json\n", to: directory.path + "/other-credentials")
        try directory.writeConfig("[profile x]\nregion = ignored\n")
        let set = try AWSProfileSet.load(
            environment: directory.environment([
                "AWS_CONFIG_FILE": "~/other-config",
                "AWS_SHARED_CREDENTIALS_FILE": directory.path + "/other-credentials",
            ]),
            platform: .posix
        )
        #expect(set[profile: "x"]?.properties == ["region": "r1", "output": "json"])
    }

    @Test func parseErrorNamesFileAndLine() throws {
        let directory = try AWSConfigTestDirectory()
        try directory.writeConfig("# header\n[profile ok]\nregion = x\n\n[profile broken\nname = v\n")
        let error = try #require(throws: WIFCredentialsError.self) {
            try AWSProfileSet.load(environment: directory.environment(), platform: .posix)
        }
        #expect(error.code == .profileParse)
        #expect(error.reason == "error parsing \(directory.configPath) on line 5: Profile definition must end with ']'")
    }

    @Test func parseErrorNeverQuotesTheLine() throws {
        let error = try #require(throws: WIFCredentialsError.self) {
            try AWSProfileSet(credentialsFile: "aws_secret_access_key = very-secret-value\n")
        }
        #expect(error.code == .profileParse)
        #expect(error.reason.contains("line 1"))
        #expect(error.reason.contains("the credentials file"))
        #expect(!error.reason.contains("very-secret"))
    }

    @Test func fileThatIsNotUTF8IsRejected() throws {
        let directory = try AWSConfigTestDirectory()
        try Data([0x5B, 0x64, 0x65, 0x66, 0x61, 0x75, 0x6C, 0x74, 0x5D, 0x0A, 0xFF, 0xFE, 0x3D, 0x0A])
            .write(to: URL(fileURLWithPath: directory.credentialsPath))
        let error = try #require(throws: WIFCredentialsError.self) {
            try AWSProfileSet.load(environment: directory.environment(), platform: .posix)
        }
        #expect(error.code == .profileParse)
        #expect(error.reason.contains(directory.credentialsPath))
        #expect(error.reason.contains("not UTF-8"))
    }

    @Test func unreadablePathIsAConfigurationError() throws {
        let directory = try AWSConfigTestDirectory()
        // A directory where the config file should be: it exists but cannot be read as a file.
        try FileManager.default.createDirectory(atPath: directory.configPath, withIntermediateDirectories: true)
        let error = try #require(throws: WIFCredentialsError.self) {
            try AWSProfileSet.load(environment: directory.environment(), platform: .posix)
        }
        #expect(error.code == .invalidConfiguration)
        #expect(error.reason.contains(directory.configPath))
    }

    @Test func ignoredSectionsAreReportedWithoutValues() throws {
        let set = try AWSProfileSet(
            configFile: "[dev]\naws_secret_access_key = hidden-1\n[profile ok]\nbad key = hidden-2\n",
            credentialsFile: "[profile x]\nk = v\n"
        )
        #expect(set.profiles.keys.sorted() == ["ok"])
        #expect(set.warnings.count == 3)
        #expect(set.warnings[0].contains("[dev] at the config file line 1 ignored"))
        #expect(set.warnings[1].contains("'bad key' ignored"))
        #expect(set.warnings[2].contains("without 'profile'"))
        #expect(!set.warnings.joined().contains("hidden"))
    }

    @Test func ssoSessionsAndServicesSectionsAreKeptApart() throws {
        let set = try AWSProfileSet(
            configFile: """
                [profile dev]
                services = local
                sso_session = corp
                [sso-session corp]
                sso_start_url = https://example.awsapps.com/start
                [services local]
                s3 =
                  endpoint_url = http://127.0.0.1:9000
                  Addressing_Style = path
                sts =
                  endpoint_url = http://127.0.0.1:9001
                """
        )
        #expect(set.profiles.keys.sorted() == ["dev"])
        #expect(set.ssoSession(named: "corp")?["sso_start_url"] == "https://example.awsapps.com/start")
        let profile = try #require(set[profile: "dev"])
        let services = try #require(profile.services.flatMap(set.servicesSection(named:)))
        #expect(services.type == "services")
        #expect(services["s3", subProperty: "endpoint_url"] == "http://127.0.0.1:9000")
        #expect(services.subProperties("s3") == ["endpoint_url": "http://127.0.0.1:9000", "addressing_style": "path"])
        #expect(services["sts", subProperty: "ENDPOINT_URL"] == "http://127.0.0.1:9001")
        #expect(services.subProperties("missing").isEmpty)
    }

    @Test func mergeOrderDecidesWhichValueWins() throws {
        var set = AWSProfileSet()
        try set.merge(contents: "[a]\nregion = from-credentials\n", kind: .credentials, path: "/c")
        try set.merge(contents: "[profile a]\nregion = from-config\noutput = json\n", kind: .config, path: "/f")
        #expect(set[profile: "a"]?.properties == ["region": "from-config", "output": "json"])
        #expect(set.sourcePaths == ["/c", "/f"])
    }

    @Test func setDescriptionNamesProfilesOnly() throws {
        let set = try AWSProfileSet(credentialsFile: "[b]\naws_secret_access_key = s3cr3t\n[a]\nx = 1\n")
        #expect(set.description == "AWSProfileSet(selected: default, profiles: [a, b])")
    }
}

@Suite struct ProfileTests {
    @Test func descriptionRedactsSecrets() {
        let profile = AWSProfile(
            name: "dev",
            properties: [
                "aws_access_key_id": "AKIAEXAMPLE",
                "AWS_SECRET_ACCESS_KEY": "secret-value-1",
                "aws_session_token": "secret-value-2",
                "region": "us-east-1",
                "s3": "\nsecret_key = secret-value-3\nregion = eu-west-1",
            ]
        )
        for text in [profile.description, profile.debugDescription, "\(profile)", String(reflecting: profile)] {
            #expect(!text.contains("secret-value"))
            #expect(text.contains("AKIAEXAMPLE"))
            #expect(text.contains("us-east-1"))
            #expect(text.contains("eu-west-1"))
            #expect(text.contains("aws_secret_access_key: <redacted>"))
            #expect(text.contains("aws_session_token: <redacted>"))
        }
    }

    @Test func sectionDescriptionRedactsSecrets() {
        let section = AWSConfigFileSection(type: "sso-session", name: "corp", properties: ["client_secret": "hush", "sso_region": "us-east-1"])
        #expect(section.description == "AWSConfigFileSection(sso-session corp, client_secret: <redacted>, sso_region: us-east-1)")
    }

    @Test func settingsAccessors() throws {
        let set = try AWSProfileSet(
            configFile: """
                [profile web]
                role_arn = arn:aws:iam::123456789012:role/web
                web_identity_token_file = /var/run/token
                role_session_name = ci-run
                duration_seconds = 3600
                region = eu-central-1
                source_profile = base
                credential_process = /usr/bin/creds --json
                endpoint_url = http://localhost:4566
                services = local
                [profile empty]
                role_arn =
                duration_seconds =
                """
        )
        let web = try #require(set[profile: "web"])
        #expect(web.roleARN == "arn:aws:iam::123456789012:role/web")
        #expect(web.webIdentityTokenFile == "/var/run/token")
        #expect(web.roleSessionName == "ci-run")
        #expect(try web.durationSeconds == 3600)
        #expect(web.region == "eu-central-1")
        #expect(web.sourceProfile == "base")
        #expect(web.credentialProcess == "/usr/bin/creds --json")
        #expect(web.endpointURL == "http://localhost:4566")
        #expect(web.services == "local")
        #expect(!web.hasStaticKeys)

        let empty = try #require(set[profile: "empty"])
        #expect(empty["role_arn"] == "")
        #expect(empty.roleARN == nil)
        #expect(try empty.durationSeconds == nil)
    }

    @Test func badDurationIsAConfigurationError() throws {
        let profile = AWSProfile(name: "p", properties: ["duration_seconds": "1h"])
        let error = try #require(throws: WIFCredentialsError.self) { try profile.durationSeconds }
        #expect(error.code == .invalidConfiguration)
        #expect(error.reason == "profile 'p': duration_seconds must be a whole number of seconds, found '1h'")
    }
}
