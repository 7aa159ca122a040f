import Foundation
import Testing
import WIFCredentials
import WIFFileStore

/// A command with no endpoint of its own acts where its sign-in was made; one with its own endpoint
/// must name the sign-in's.
extension ToolConfigurationTests {
    /// A sign-in made with `login --endpoint`.
    static func remoteSession(target: String = "http://127.0.0.1:9000", sts: String? = "http://127.0.0.1:9001") -> StoredSession {
        StoredSession(
            target: target, stsEndpoint: sts, region: "eu-west-1", provider: "google", providerId: nil, subject: "alice",
            roleArn: "arn:aws:iam::123456789012:role/personal-store", assumedRoleArn: nil, roleSessionName: "wif-alice",
            bucket: "team-files", prefix: "alice/", partitionTemplate: "{id}/",
            token: StoredSession.TokenRecord(kind: .file, path: "/tokens/alice.jwt"),
            credentials: StoredSession.CredentialRecord(AWSCredentials(accessKeyId: "ASIAEXAMPLE", secretAccessKey: "secret")),
            signedInAt: Date(timeIntervalSince1970: 1_700_000_000))
    }

    static func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    @Test func withoutAnEndpointOfItsOwnACommandUsesTheSignInsEndpointRegionAndBucket() throws {
        try ToolConfigurationTests.withHome(config: nil) { home in
            let configuration = try ToolConfiguration.resolve(.init(), environment: ["WIF_HOME": home.path, "AWS_REGION": "us-west-2"])
            #expect(configuration.endpointOrigin == nil)
            let adopted = try configuration.forSignIn(Self.remoteSession())
            #expect(adopted.target == .remote(s3: try Self.url("http://127.0.0.1:9000"), sts: try Self.url("http://127.0.0.1:9001")))
            #expect(adopted.region == "eu-west-1")
            #expect(adopted.bucket == "team-files")

            // A sign-in without a separate STS endpoint federates through the S3 endpoint.
            let single = try configuration.forSignIn(Self.remoteSession(sts: nil))
            #expect(single.target == .remote(s3: try Self.url("http://127.0.0.1:9000"), sts: try Self.url("http://127.0.0.1:9000")))

            // An embedded sign-in stays on the embedded stack.
            var embedded = Self.remoteSession(target: ToolConfiguration.embeddedName, sts: nil)
            embedded.region = "us-east-1"
            #expect(try configuration.forSignIn(embedded).target == .embedded(dataDirectory: home.appendingPathComponent("local")))
        }
    }

    @Test func theSameEndpointOfItsOwnKeepsTheCommandsSettings() throws {
        try ToolConfigurationTests.withHome(config: nil) { home in
            let configuration = try ToolConfiguration.resolve(
                .init(endpoint: "http://127.0.0.1:9000/", region: "us-west-2"), environment: ["WIF_HOME": home.path])
            #expect(configuration.endpointOrigin == "--endpoint")
            let kept = try configuration.forSignIn(Self.remoteSession())
            #expect(kept.target == configuration.target)
            #expect(kept.region == "us-west-2")
        }
    }

    @Test(arguments: [
        ("flag", "--endpoint"),
        ("variable", "WIF_ENDPOINT"),
        ("config file", "line 2 (endpoint)"),
        ("embedded flag", "--endpoint"),
    ])
    func anotherEndpointOfItsOwnIsRefusedNamingWhereItWasSet(_ source: String, origin: String) throws {
        let config = source == "config file" ? "[default]\nendpoint = http://127.0.0.1:7000\n" : nil
        try ToolConfigurationTests.withHome(config: config) { home in
            var flags = ToolConfiguration.Flags()
            var environment = ["WIF_HOME": home.path]
            switch source {
            case "flag": flags.endpoint = "http://127.0.0.1:7000"
            case "variable": environment["WIF_ENDPOINT"] = "http://127.0.0.1:7000"
            case "embedded flag": flags.endpoint = ToolConfiguration.embeddedName
            default: break
            }
            let configuration = try ToolConfiguration.resolve(flags, environment: environment)
            let error = #expect(throws: FileStoreError.self) { try configuration.forSignIn(Self.remoteSession()) }
            #expect(error?.code == .signInRequired)
            let message = error?.message ?? ""
            let used = source == "embedded flag" ? "the embedded local stack" : "the endpoint http://127.0.0.1:7000"
            #expect(message.hasPrefix("the stored sign-in is for the endpoint http://127.0.0.1:9000, but this command uses \(used) (set by "), "\(message)")
            #expect(message.contains(origin), "\(message)")
            #expect(message.hasSuffix("sign in again: wif-tool login --token-file /tokens/alice.jwt --provider google"), "\(message)")
        }
    }
}
