import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `wif-tool credentials` for the user of `wif-tool login`: the default sign-in when the AWS chain
/// has nothing, `--account NAME` always; renewed from the stored token like the file commands' session.
extension CredentialsCommandTests {
    static let awsAvailable = ProcessInfo.processInfo.environment["WIF_REQUIRE_PEERS"] == "1" || MotoPeer.onPath("aws") != nil

    @Test func helpSaysWhenTheSignInAnswersAndWhereItsCredentialsWork() throws {
        let home = try ToolRunner.temporaryDirectory()
        let help = try ToolRunner.run(["credentials", "--help"], environment: ToolRunner.cleanEnvironment(home: home))
        let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for text in [
            "--account <account>", "When none of these is set, the session of 'wif-tool login' answers",
            "renewed from its token when they have 15 minutes or less left",
            "they work against 'wif-tool local serve --data-dir $WIF_HOME/local' while it runs", "3 no credentials, not signed in",
        ] {
            #expect(words.contains(text), "credentials --help misses \(text)")
        }
    }

    @Test func theSignedInUserGetsTheSessionsCredentials() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        let stored = try #require(try fixture.storedSession()?["credentials"] as? [String: Any])
        let result = try fixture.run(["credentials"])
        #expect(result.status == 0, "\(result.stderr)")
        let printed = try StoreFixture.object(result)
        #expect(printed["Version"] as? Int == 1)
        #expect(printed["AccessKeyId"] as? String == stored["accessKeyId"] as? String)
        #expect(printed["SecretAccessKey"] as? String == stored["secretAccessKey"] as? String)
        #expect(printed["SessionToken"] as? String == stored["sessionToken"] as? String)
        #expect(printed["Expiration"] is String)
        // Nothing was renewed: the sign-in is as login left it.
        #expect((try fixture.storedSession()?["credentials"] as? [String: Any])?["accessKeyId"] as? String == stored["accessKeyId"] as? String)

        // The AWS chain comes first when it has something.
        let environment = try fixture.run(["credentials"], ["AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "env-secret"])
        #expect(try StoreFixture.object(environment)["AccessKeyId"] as? String == "AKIAENV")
        // A chain source that is set but broken is reported, not replaced by the sign-in.
        let broken = try fixture.run(["credentials"], ["AWS_SECRET_ACCESS_KEY": "half-a-pair"])
        #expect(broken.status == 3, "\(broken.stderr)")
        #expect(broken.stdout.isEmpty)
    }

    @Test func anAccountIsSelectedWithAccountAndRenewedWithFifteenMinutesLeft() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "bob", "--account", "work"]).status == 0)
        let missing = try fixture.run(["credentials"])
        #expect(missing.status == 3, "\(missing.stderr)")
        #expect(missing.stderr.contains("no provider in the chain supplied credentials"), "\(missing.stderr)")
        #expect(missing.stderr.contains("and not signed in; run 'wif-tool login --dev USER' first"), "\(missing.stderr)")
        let other = try fixture.run(["credentials", "--account", "home"])
        #expect(other.status == 3)
        #expect(other.stderr == "error: not signed in as account 'home'; run 'wif-tool login --dev USER --account home' first\n")

        // Selected outright, even with keys in the environment.
        let work = try fixture.run(["credentials", "--account", "work"], ["AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "env-secret"])
        #expect(work.status == 0, "\(work.stderr)")
        let first = try StoreFixture.object(work)
        #expect(first["AccessKeyId"] as? String != "AKIAENV")
        #expect(try StoreFixture.object(try fixture.run(["credentials"], ["WIF_ACCOUNT": "work"]))["AccessKeyId"] as? String == first["AccessKeyId"] as? String)

        // Ten minutes left: enough for the file commands, too little for the AWS SDKs; renewed and saved.
        try fixture.editStoredSession(account: "work") { stored in
            var credentials = try #require(stored["credentials"] as? [String: Any])
            credentials["expiration"] = Date().addingTimeInterval(600).timeIntervalSinceReferenceDate
            stored["credentials"] = credentials
        }
        let renewed = try fixture.run(["credentials", "--account", "work"])
        #expect(renewed.status == 0, "\(renewed.stderr)")
        let second = try StoreFixture.object(renewed)
        #expect(second["AccessKeyId"] as? String != first["AccessKeyId"] as? String)
        let expiration = try Date(try #require(second["Expiration"] as? String), strategy: .iso8601)
        #expect(expiration > Date().addingTimeInterval(15 * 60))
        #expect((try fixture.storedSession(account: "work")?["credentials"] as? [String: Any])?["accessKeyId"] as? String == second["AccessKeyId"] as? String)
        #expect(!renewed.stderr.contains(try #require(second["SecretAccessKey"] as? String)))

        let both = try fixture.run(["credentials", "--account", "work", "--profile", "other"])
        #expect(both.status == 64)
        #expect(both.stderr.contains("give --account (a sign-in of 'wif-tool login') or --profile (an AWS profile), not both"))
    }

    /// The environment of the aws CLI: the caller's (its Python setup) without its AWS and WIF settings,
    /// the test's config file naming `credential_process`, and the fixture's WIF_HOME.
    static func awsEnvironment(_ fixture: StoreFixture, profile: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("AWS_") && !$0.key.hasPrefix("WIF_") }
        environment["AWS_CONFIG_FILE"] = fixture.home.appendingPathComponent("aws-config").path
        environment["AWS_SHARED_CREDENTIALS_FILE"] = fixture.home.appendingPathComponent("aws-credentials").path
        environment["AWS_PROFILE"] = profile
        environment["AWS_DEFAULT_REGION"] = "us-east-1"
        environment["AWS_EC2_METADATA_DISABLED"] = "true"
        environment["WIF_HOME"] = fixture.wifHome.path
        return environment
    }

    /// Writes the AWS config file: profile `wif` runs `wif-tool credentials`, `wif-<account>` adds `--account`.
    static func writeAWSConfig(_ fixture: StoreFixture, accounts: [String]) throws {
        let tool = try #require(ToolRunner.executable?.path)
        var text = "[profile wif]\ncredential_process = \(tool) credentials\n"
        for account in accounts {
            text += "\n[profile wif-\(account)]\ncredential_process = \(tool) credentials --account \(account)\n"
        }
        try Data(text.utf8).write(to: fixture.home.appendingPathComponent("aws-config"))
    }

    @Test(
        "aws CLI: credential_process gives the signed-in user's session: their folder, not another's",
        .enabled(if: Self.awsAvailable, "the aws CLI is not installed (pip install awscli); WIF_REQUIRE_PEERS=1 fails instead")
    )
    func awsCLIUsesTheSignedInSession() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let aws = try #require(MotoPeer.onPath("aws"))
        try Self.writeAWSConfig(fixture, accounts: ["bob"])
        try await RemoteSignInCommandTests.withServedSignIn(fixture, users: [("alice", nil), ("bob", "bob")]) { endpoint in
            let bobFile = try fixture.makeFile("bob.txt", size: 100, seed: 7)
            try #require(try fixture.run(["put", bobFile, "--account", "bob"]).status == 0)
            let aliceFile = try fixture.makeFile("alice.txt", size: 300, seed: 8)
            func run(_ arguments: [String], profile: String = "wif") throws -> ToolRunner.Result {
                try ToolRunner.run(executable: aws, ["--endpoint-url", endpoint] + arguments, environment: Self.awsEnvironment(fixture, profile: profile))
            }

            // alice's own folder: in, listed (by wif-tool too, the same session), out.
            let put = try run(["s3", "cp", aliceFile, "s3://wif-personal/google/alice/from-cli.txt", "--only-show-errors"])
            #expect(put.status == 0, "\(put.stderr)")
            let list = try run(["s3", "ls", "s3://wif-personal/google/alice/"])
            #expect(list.status == 0, "\(list.stderr)")
            #expect(list.stdout.contains("from-cli.txt"), "\(list.stdout)")
            #expect(try fixture.run(["list"]).stdout == "from-cli.txt\n")
            let back = fixture.path("back.txt")
            #expect(try run(["s3", "cp", "s3://wif-personal/google/alice/from-cli.txt", back, "--only-show-errors"]).status == 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: back)) == Data(contentsOf: URL(fileURLWithPath: aliceFile)))
            let caller = try run(["sts", "get-caller-identity", "--query", "Arn", "--output", "text"])
            #expect(caller.stdout.hasPrefix("arn:aws:sts::000000000000:assumed-role/personal-store-google/"), "\(caller.stdout) \(caller.stderr)")

            // bob's folder is refused to alice, and open to bob's sign-in.
            let refused = try run(["s3api", "get-object", "--bucket", "wif-personal", "--key", "google/bob/bob.txt", fixture.path("stolen.txt")])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("AccessDenied"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: fixture.path("stolen.txt")))
            let planted = try run(["s3api", "put-object", "--bucket", "wif-personal", "--key", "google/bob/planted.txt", "--body", aliceFile])
            #expect(planted.stderr.contains("AccessDenied"), "\(planted.stderr)")
            let bobs = try run(["s3", "cp", "s3://wif-personal/google/bob/bob.txt", fixture.path("bob-back.txt"), "--only-show-errors"], profile: "wif-bob")
            #expect(bobs.status == 0, "\(bobs.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.path("bob-back.txt"))) == Data(contentsOf: URL(fileURLWithPath: bobFile)))
        }
    }

    @Test(
        "aws CLI: a sign-in on the embedded stack works against that stack served from the same data folder",
        .enabled(if: Self.awsAvailable, "the aws CLI is not installed (pip install awscli); WIF_REQUIRE_PEERS=1 fails instead")
    )
    func awsCLIWithAnEmbeddedSignIn() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let aws = try #require(MotoPeer.onPath("aws"))
        try Self.writeAWSConfig(fixture, accounts: [])
        try #require(try fixture.run(["login", "--dev", "dora"]).status == 0)
        try #require(try fixture.run(["put", try fixture.makeFile("dora.txt", size: 50)]).status == 0)
        let server = try ServeProcess(
            ["local", "serve", "--data-dir", fixture.wifHome.appendingPathComponent("local").path], home: fixture.home)
        let endpoint = try await server.firstLine()
        let list = try ToolRunner.run(
            executable: aws, ["--endpoint-url", endpoint, "s3", "ls", "s3://wif-personal/google/dora/"],
            environment: Self.awsEnvironment(fixture, profile: "wif"))
        _ = try await server.stop(signal: SIGTERM)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("dora.txt"), "\(list.stdout)")
    }
}
