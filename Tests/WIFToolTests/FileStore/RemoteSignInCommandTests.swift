import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
import WIFTestSupport
#endif

/// After `login --endpoint URL`, the file commands act at that endpoint without being told again; an
/// endpoint of their own that is another is refused, saying where it was set.
@Suite(.oneToolRunAtATime) struct RemoteSignInCommandTests {
    /// A stack served by `wif-tool local serve`, with `user` signed in to it as the default sign-in (or
    /// `account`) with a token file; the test's work runs while it serves.
    static func withServedSignIn<T>(
        _ fixture: StoreFixture, users: [(user: String, account: String?)], _ body: (String) async throws -> T
    ) async throws -> T {
        let served = fixture.root.appendingPathComponent("served").path
        let server = try ServeProcess(["local", "serve", "--data-dir", served], home: fixture.home)
        let endpoint = try await server.firstLine()
        for (user, account) in users {
            let tokenFile = fixture.work.appendingPathComponent("\(user).jwt")
            try Data(try SecretStoreCommandTests.mintToken(fixture, user: user, dataDirectory: served).utf8).write(to: tokenFile)
            let login = try fixture.run(
                ["login", "--endpoint", endpoint, "--token-file", tokenFile.path, "--role-arn", SecretStoreCommandTests.googleRole,
                 "--bucket", "wif-personal", "--partition-template", "google/{id}/"] + (account.map { ["--account", $0] } ?? []))
            try #require(login.status == 0, "\(login.stderr)")
            #expect(!login.stderr.contains("note: the role may not list"), "the folder is the role's: \(login.stderr)")
        }
        let result = try await body(endpoint)
        _ = try await server.stop(signal: SIGTERM)
        return result
    }

    /// A template that names another folder than the role's policy: the sign-in works, and says at once
    /// that the folder cannot be listed, rather than leaving it to the first put.
    @Test func aFolderTheRoleRefusesIsNotedAtSignIn() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try await Self.withServedSignIn(fixture, users: []) { endpoint in
            let served = fixture.root.appendingPathComponent("served").path
            let tokenFile = fixture.work.appendingPathComponent("bob.jwt")
            try Data(try SecretStoreCommandTests.mintToken(fixture, user: "bob", dataDirectory: served).utf8).write(to: tokenFile)
            let base = ["login", "--endpoint", endpoint, "--token-file", tokenFile.path, "--role-arn", SecretStoreCommandTests.googleRole]
            let login = try fixture.run(base + ["--bucket", "wif-personal"])
            #expect(login.status == 0, "\(login.stderr)")
            #expect(
                login.stderr.contains("note: the role may not list your folder s3://wif-personal/bob/ (AccessDenied)"),
                "\(login.stderr)")
            let missing = try fixture.run(base + ["--bucket", "no-such-bucket-here", "--partition-template", "google/{id}/"])
            #expect(missing.status == 0, "\(missing.stderr)")
            #expect(missing.stderr.contains("note: there is no bucket no-such-bucket-here at the endpoint (NoSuchBucket)"), "\(missing.stderr)")
        }
    }

    @Test func fileCommandsUseTheEndpointTheUserSignedInWith() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try await Self.withServedSignIn(fixture, users: [("alice", nil)]) { endpoint in
            let file = try fixture.makeFile("notes.txt", size: 2_000, seed: 3)
            let put = try fixture.run(["put", file])
            #expect(put.status == 0, "\(put.stderr)")
            #expect(put.stdout.contains("-> s3://wif-personal/google/alice/notes.txt"), "\(put.stdout)")
            #expect(try fixture.run(["list"]).stdout == "notes.txt\n")
            let back = fixture.path("back.txt")
            let get = try fixture.run(["get", "notes.txt", "-o", back])
            #expect(get.status == 0, "\(get.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: back)) == Data(contentsOf: URL(fileURLWithPath: file)))
            let whoami = try fixture.run(["whoami", "--json"])
            #expect(whoami.status == 0, "\(whoami.stderr)")
            #expect(try StoreFixture.object(whoami)["endpoint"] as? String == endpoint)
            let rows = try fixture.run(["whoami"]).stdout.split(separator: "\n")
            #expect(rows.contains { $0.split(separator: " ", omittingEmptySubsequences: true) == ["endpoint", Substring(endpoint)] }, "\(rows)")
            // The same endpoint named again is fine; the embedded stack was never started.
            #expect(try fixture.run(["list", "--endpoint", endpoint]).stdout == "notes.txt\n")
            #expect(try fixture.run(["rm", "notes.txt"]).status == 0)
            #expect(!FileManager.default.fileExists(atPath: fixture.wifHome.appendingPathComponent("local").path))
        }
    }

    @Test(arguments: ["put", "list", "get", "rm", "whoami"])
    func helpSaysTheCommandRunsWhereTheSignInWasMade(_ command: String) throws {
        let home = try ToolRunner.temporaryDirectory()
        let help = try ToolRunner.run([command, "--help"], environment: ToolRunner.cleanEnvironment(home: home))
        let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains(
            "It runs where the sign-in was made (its endpoint, STS endpoint, region and bucket) unless --endpoint, WIF_ENDPOINT or the config file names an endpoint; a different one is refused (exit status 3)."),
            "\(command) --help: \(words)")
        #expect(words.contains("else the sign-in's endpoint, or embedded for login"))
    }

    @Test func anotherEndpointOfTheCommandsOwnIsRefused() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try await Self.withServedSignIn(fixture, users: [("bert", nil)]) { endpoint in
            let embedded = try fixture.run(["list", "--endpoint", "embedded"])
            #expect(embedded.status == 3, "\(embedded.stderr)")
            #expect(embedded.stderr.contains(
                "the stored sign-in is for the endpoint \(endpoint), but this command uses the embedded local stack (set by --endpoint); leave that out to use the sign-in's, or sign in again: wif-tool login --token-file "),
                "\(embedded.stderr)")
            let variable = try fixture.run(["put", try fixture.makeFile("x.txt", size: 10)], ["WIF_ENDPOINT": "http://127.0.0.1:9"])
            #expect(variable.status == 3, "\(variable.stderr)")
            #expect(variable.stderr.contains("but this command uses the endpoint http://127.0.0.1:9 (set by WIF_ENDPOINT)"), "\(variable.stderr)")
            try Data("[default]\nendpoint = http://127.0.0.1:9\n".utf8).write(to: fixture.wifHome.appendingPathComponent("config"))
            let configured = try fixture.run(["whoami"])
            #expect(configured.status == 3, "\(configured.stderr)")
            #expect(configured.stderr.contains("(set by \(fixture.wifHome.path)/config line 2 (endpoint))"), "\(configured.stderr)")
        }
    }

    @Test func aPassphraseStoreWorksAtTheSignInsEndpoint() async throws {
        // Not on a terminal, the passphrase comes from WIF_PASSPHRASE; a wrong one fails with one line
        // before any request. (SignedInCredentialsTests counts the questions asked on a terminal.)
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let passphrase = ["WIF_PASSPHRASE": "carla's long passphrase"]
        let served = fixture.root.appendingPathComponent("served").path
        let server = try ServeProcess(["local", "serve", "--data-dir", served], home: fixture.home)
        let endpoint = try await server.firstLine()
        let token = try SecretStoreCommandTests.mintToken(fixture, user: "carla", dataDirectory: served)
        let login = try fixture.run(
            ["login", "--endpoint", endpoint, "--token", token, "--provider", "google", "--role-arn", SecretStoreCommandTests.googleRole,
             "--bucket", "wif-personal", "--partition-template", "google/{id}/"], passphrase)
        #expect(login.status == 0, "\(login.stderr)")
        let list = try fixture.run(["list", "--json"], passphrase)
        #expect(list.status == 0, "\(list.stderr)")
        let wrong = try fixture.run(["list"], ["WIF_PASSPHRASE": "not it"])
        #expect(wrong.status == 3)
        #expect(wrong.stderr.split(separator: "\n").count == 1, "\(wrong.stderr)")
        _ = try await server.stop(signal: SIGTERM)
    }
}
