import Foundation
import Testing
import WIFFileStore
import WIFTestSupport

/// Settings come from flags, then `WIF_*` variables, then the config file's account section, then its
/// `[default]` section; a bad one is refused with where it came from.
@Suite struct ToolConfigurationTests {
    /// A `WIF_HOME` holding `config`, removed afterwards.
    static func withHome<T>(config: String?, _ body: (URL) throws -> T) throws -> T {
        let home = TemporaryFolder.url("wif-config")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        if let config { try Data(config.utf8).write(to: home.appendingPathComponent("config")) }
        return try body(home)
    }

    static let config = """
        # shared settings
        [default]
        endpoint = http://127.0.0.1:9000/
        region = eu-west-1
        bucket = team-files
        provider = google

        [account bob]
        provider = facebook
        """

    @Test func flagsBeatVariablesWhichBeatTheConfigFile() throws {
        try Self.withHome(config: Self.config) { home in
            let environment = ["WIF_HOME": home.path, "WIF_BUCKET": "from-variable"]
            let plain = try ToolConfiguration.resolve(.init(), environment: environment)
            #expect(plain.target == .remote(s3: try #require(URL(string: "http://127.0.0.1:9000")), sts: try #require(URL(string: "http://127.0.0.1:9000"))))
            #expect(plain.region == "eu-west-1")
            #expect(plain.bucket == "from-variable")
            #expect(plain.provider == "google")
            #expect(plain.account == nil)

            let flagged = try ToolConfiguration.resolve(.init(bucket: "from-flag", account: "bob", region: "us-west-2"), environment: environment)
            #expect(flagged.bucket == "from-flag")
            #expect(flagged.region == "us-west-2")
            #expect(flagged.provider == "facebook")
            #expect(flagged.account == "bob")
            #expect(flagged.legacySessionFile.lastPathComponent == "session.bob.json")
        }
    }

    @Test func withoutAnEndpointTheTargetIsTheEmbeddedStack() throws {
        try Self.withHome(config: nil) { home in
            let configuration = try ToolConfiguration.resolve(.init(), environment: ["WIF_HOME": home.path])
            #expect(configuration.target == .embedded(dataDirectory: home.appendingPathComponent("local")))
            #expect(configuration.target.identifier == ToolConfiguration.embeddedName)
            #expect(configuration.region == "us-east-1")
        }
    }

    @Test func aBadSettingNamesWhereItCameFrom() throws {
        try Self.withHome(config: nil) { home in
            let environment = ["WIF_HOME": home.path]
            let region = #expect(throws: FileStoreError.self) {
                try ToolConfiguration.resolve(.init(region: "EU West"), environment: environment)
            }
            #expect(region?.code == .invalidSetting)
            #expect(region?.message == "--region 'EU West' is not a region name such as us-east-1")

            let sts = #expect(throws: FileStoreError.self) {
                try ToolConfiguration.resolve(.init(stsEndpoint: "http://127.0.0.1:1"), environment: environment)
            }
            #expect(sts?.message.hasPrefix("--sts-endpoint is set but the endpoint is the embedded stack") == true)

            let bucket = #expect(throws: FileStoreError.self) {
                try ToolConfiguration.resolve(.init(), environment: environment.merging(["WIF_BUCKET": "Bad_Bucket"]) { $1 })
            }
            #expect(bucket?.message == "WIF_BUCKET 'Bad_Bucket' is not a bucket name: use lower-case letters, digits, '-' and '.' only")
        }
    }

    @Test func aConfigFileMistakeNamesItsLine() throws {
        try Self.withHome(config: "[default]\nregion = eu-west-1\ncolour = blue\n") { home in
            let error = #expect(throws: FileStoreError.self) {
                try ToolConfiguration.resolve(.init(), environment: ["WIF_HOME": home.path])
            }
            #expect(error?.code == .invalidSetting)
            #expect(error?.message.contains("config line 3: unknown setting 'colour'") == true)
        }
    }

    @Test func aConfigFileWithWindowsLineEndingsReadsTheSame() throws {
        let crlf = Self.config.replacingOccurrences(of: "\n", with: "\r\n")
        try #require(crlf.contains("\r\n"))
        try Self.withHome(config: crlf) { home in
            let configuration = try ToolConfiguration.resolve(.init(), environment: ["WIF_HOME": home.path])
            #expect(configuration.region == "eu-west-1")
            #expect(configuration.bucket == "team-files")
        }
        try Self.withHome(config: "[default]\r\nregion = eu-west-1\r\ncolour = blue\r\n") { home in
            let error = #expect(throws: FileStoreError.self) {
                try ToolConfiguration.resolve(.init(), environment: ["WIF_HOME": home.path])
            }
            #expect(error?.message.contains("config line 3: unknown setting 'colour'") == true, "\(error?.message ?? "")")
        }
    }

    @Test func theSTSDeadlineComesFromTheVariableThenTheConfigFile() throws {
        try Self.withHome(config: "[default]\nsts_deadline = 4\n\n[account bob]\nsts_deadline = soon\n") { home in
            let environment = ["WIF_HOME": home.path]
            let fromFile = try ToolConfiguration.resolve(.init(), environment: environment)
            #expect(fromFile.stsDeadline == .seconds(4))
            let variable = environment.merging(["WIF_STS_DEADLINE": "2.5"]) { $1 }
            let fromVariable = try ToolConfiguration.resolve(.init(), environment: variable)
            #expect(fromVariable.stsDeadline == .milliseconds(2500))
            let error = #expect(throws: FileStoreError.self) {
                try ToolConfiguration.resolve(.init(account: "bob"), environment: environment)
            }
            #expect(error?.code == .invalidSetting)
            #expect(error?.message.hasSuffix("'soon' is not a number of seconds more than 0 and at most 86400") == true)
            #expect(error?.message.contains("line 5") == true)
        }
        try Self.withHome(config: nil) { home in
            let unset = try ToolConfiguration.resolve(.init(), environment: ["WIF_HOME": home.path])
            #expect(unset.stsDeadline == nil)
        }
    }
}
