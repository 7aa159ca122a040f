import Foundation
import Testing
import WIFEngines
import WIFTestSupport

/// `wif-tool engine seaweedfs setup` without a SeaweedFS: the command's behaviour offline and against a
/// local issuer. The IAM config it writes is tested with the library, in WIFEnginesTests.
@Suite("SeaweedFS set-up", .oneToolRunAtATime)
struct SeaweedFSSetupTests {
    // MARK: The command

    @Test func helpDocumentsTheCommand() throws {
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let group = try ToolRunner.run(["engine", "--help"], environment: ToolRunner.cleanEnvironment(home: home))
        #expect(group.status == 0)
        #expect(group.stdout.contains("seaweedfs"))
        let setup = try ToolRunner.run(["engine", "seaweedfs", "setup", "--help"], environment: ToolRunner.cleanEnvironment(home: home))
        #expect(setup.status == 0)
        let text = setup.stdout.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        for option in ["--iam-config", "--issuer-url", "--jwks-uri", "--client-id", "--partition-template", "--skip-bucket", "${jwt:sub}", "Exit status", "admin.env"] {
            #expect(text.contains(option), "missing \(option)")
        }
    }

    @Test(arguments: [
        (["--iam-config", "x.json", "--skip-bucket"], "give the issuer"),
        (["--iam-config", "x.json", "--skip-bucket", "--issuer", "https://i"], "give the issuer"),
        (["--iam-config", "x.json", "--skip-bucket", "--issuer-url", "http://i", "--issuer", "https://i", "--jwks-uri", "http://i/k"], "not both"),
        (["--iam-config", "x.json", "--issuer-url", "http://127.0.0.1:9"], "--endpoint"),
    ])
    func badOptionsAreRefused(arguments: [String], message: String) throws {
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try ToolRunner.run(["engine", "seaweedfs", "setup"] + arguments, environment: ToolRunner.cleanEnvironment(home: home))
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func offlineSetUpWritesAPrivateFileOnceAndKeepsItsKey() throws {
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let file = home.appendingPathComponent("seaweedfs/iam.json")
        let arguments = [
            "engine", "seaweedfs", "setup", "--skip-bucket", "--iam-config", file.path, "--issuer", "https://wif.localhost",
            "--jwks-uri", "http://127.0.0.1:4566/.well-known/jwks.json", "--json",
        ]
        let first = try ToolRunner.run(arguments, environment: ToolRunner.cleanEnvironment(home: home))
        try #require(first.status == 0, "\(first.stderr)")
        let output = try StoreFixture.object(first)
        #expect(output["iamConfigChanged"] as? Bool == true)
        #expect(output["bucketCreated"] == nil)
        #expect(output["folderPattern"] as? String == "${jwt:sub}/")
        let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
        #expect(permissions?.intValue == 0o600, "the file holds the STS signing key")
        let key = SeaweedFSIAMConfig.existingSigningKey(in: try Data(contentsOf: file))
        #expect(key != nil)

        let second = try ToolRunner.run(arguments, environment: ToolRunner.cleanEnvironment(home: home))
        #expect(try StoreFixture.object(second)["iamConfigChanged"] as? Bool == false)
        let changed = try ToolRunner.run(arguments + ["--bucket", "another-bucket"], environment: ToolRunner.cleanEnvironment(home: home))
        #expect(try StoreFixture.object(changed)["iamConfigChanged"] as? Bool == true)
        #expect(SeaweedFSIAMConfig.existingSigningKey(in: try Data(contentsOf: file)) == key, "sessions survive a rewrite")

        let text = try ToolRunner.run(Array(arguments.dropLast()) + ["--bucket", "another-bucket"], environment: ToolRunner.cleanEnvironment(home: home))
        #expect(text.status == 0)
        #expect(text.stdout.contains("(unchanged)"), "\(text.stdout)")
        #expect(text.stdout.contains("not created: --skip-bucket"))
        #expect(!text.stdout.contains(key ?? "no key"), "the signing key is not printed")
    }

    @Test func anUnusableSettingIsAUsageError() throws {
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try ToolRunner.run(
            ["engine", "seaweedfs", "setup", "--skip-bucket", "--iam-config", home.appendingPathComponent("iam.json").path, "--issuer", "https://i",
             "--jwks-uri", "http://i/keys", "--partition-template", "*/{id}/"],
            environment: ToolRunner.cleanEnvironment(home: home))
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("must not contain '*'"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("iam.json").path))
    }

    @Test func theIssuerIsDiscoveredFromItsEndpoint() async throws {
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let server = try ServeProcess(["local", "serve", "--port", "0", "--data-dir", home.appendingPathComponent("issuer").path], home: home)
        let endpoint = try await server.firstLine()
        let file = home.appendingPathComponent("iam.json")
        let result = try ToolRunner.run(
            ["engine", "seaweedfs", "setup", "--skip-bucket", "--iam-config", file.path, "--issuer-url", endpoint + "/", "--json"],
            environment: ToolRunner.cleanEnvironment(home: home))
        try #require(result.status == 0, "\(result.stderr)")
        let output = try StoreFixture.object(result)
        #expect(output["issuer"] as? String == "https://wif.localhost", "the tokens' iss, not the address it was found at")
        #expect(output["jwksUri"] as? String == endpoint + "/.well-known/jwks.json")
        #expect(output["clientId"] as? String == "wif-local")

        let unreachable = try ToolRunner.run(
            ["engine", "seaweedfs", "setup", "--skip-bucket", "--iam-config", file.path, "--issuer-url", "http://127.0.0.1:9"],
            environment: ToolRunner.cleanEnvironment(home: home))
        #expect(unreachable.status == 7, "\(unreachable.stderr)")
        #expect(unreachable.stderr.contains("discovery document"), "\(unreachable.stderr)")
        _ = try await server.stop(signal: SIGTERM)
    }
}
