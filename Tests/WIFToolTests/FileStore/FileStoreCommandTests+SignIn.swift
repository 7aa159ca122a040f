import Foundation
import Testing
import WIFTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FileStoreCommandTests {
    // MARK: Sign-in, renewal and sign-out

    @Test func expiredCredentialsAreRenewedWithTheStoredToken() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "gina"]).status == 0)
        let stored = try #require(try fixture.storedSession())
        let oldKey = try #require((stored["credentials"] as? [String: Any])?["accessKeyId"] as? String)
        try fixture.expireStoredCredentials()
        #expect(try StoreFixture.object(try fixture.run(["whoami", "--json"]))["credentialsExpired"] as? Bool == true)

        let list = try fixture.run(["list"])
        #expect(list.status == 0, "\(list.stderr)")
        let renewed = try #require(try fixture.storedSession())
        let newCredentials = try #require(renewed["credentials"] as? [String: Any])
        #expect(newCredentials["accessKeyId"] as? String != oldKey)
        #expect((newCredentials["expiration"] as? Double ?? 0) > StoreFixture.storedDate(2025))
        #expect(try StoreFixture.mode(fixture.secretsFile) == 0o600)
    }

    @Test func anExpiredTokenAsksToSignInAgain() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "hank", "--account", "work"]).status == 0)
        try fixture.editStoredSession(account: "work") { stored in
            var credentials = try #require(stored["credentials"] as? [String: Any])
            var token = try #require(stored["token"] as? [String: Any])
            credentials["expiration"] = StoreFixture.storedDate(2020)
            token["expiration"] = StoreFixture.storedDate(2020)
            stored["credentials"] = credentials
            stored["token"] = token
        }

        let list = try fixture.run(["list", "--account", "work"])
        #expect(list.status == 3, "\(list.stderr)")
        #expect(list.stderr.contains("expired"))
        #expect(list.stderr.contains("wif-tool login --dev hank --provider google --account work"), "\(list.stderr)")
    }

    @Test func aTokenFileIsReadAgainAtEachRenewal() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        func token(ttl: Int) throws -> String {
            let result = try fixture.run(["local", "token", "--provider", "google", "--user", "rita", "--ttl", String(ttl)])
            try #require(result.status == 0, "\(result.stderr)")
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let tokenFile = fixture.work.appendingPathComponent("rita.jwt")
        try Data((try token(ttl: 3600) + "\n").utf8).write(to: tokenFile)
        let login = try fixture.run(["login", "--token-file", tokenFile.path, "--json"])
        #expect(login.status == 0, "\(login.stderr)")
        let signedIn = try StoreFixture.object(login)
        #expect(signedIn["prefix"] as? String == "google/rita/")
        #expect(signedIn["provider"] as? String == "google")
        let storedJSON = try #require(try fixture.secretStore().load().json(forKey: StoreFixture.signInKey(nil)))
        #expect(!String(decoding: storedJSON, as: UTF8.self).contains(try String(contentsOf: tokenFile, encoding: .utf8).trimmingCharacters(in: .newlines)),
                "the token file's content is kept in the session")
        let firstExpiry = try #require(try StoreFixture.object(try fixture.run(["whoami", "--json"]))["tokenExpiration"] as? String)

        // A rotated token is picked up at the next renewal.
        try Data(try token(ttl: 7200).utf8).write(to: tokenFile)
        try fixture.expireStoredCredentials()
        let renewed = try fixture.run(["list"])
        #expect(renewed.status == 0, "\(renewed.stderr)")
        let secondExpiry = try #require(try StoreFixture.object(try fixture.run(["whoami", "--json"]))["tokenExpiration"] as? String)
        #expect(secondExpiry > firstExpiry)

        // A token that has expired asks for a fresh one.
        try Data(try token(ttl: 1).utf8).write(to: tokenFile)
        try await Task.sleep(for: .milliseconds(2100))
        try fixture.expireStoredCredentials()
        let expired = try fixture.run(["list"])
        #expect(expired.status == 3, "\(expired.stderr)")
        #expect(expired.stderr.contains("the token in \(tokenFile.path) expired at"), "\(expired.stderr)")
        #expect(expired.stderr.contains("wif-tool login --token-file \(tokenFile.path) --provider google"))

        // A token the provider refuses does too.
        try Data("not-a-token-the-issuer-signed".utf8).write(to: tokenFile)
        let refused = try fixture.run(["list"])
        #expect(refused.status == 3, "\(refused.stderr)")
        #expect(refused.stderr.contains("refused while renewing credentials"), "\(refused.stderr)")
    }

    /// `login --token-file <(command)`: the pipe is read once, so the token is kept as given, and a
    /// renewal does not look for the pipe again.
    @Test func aTokenFileThatIsAPipeIsKeptAsGiven() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let issued = try fixture.run(["local", "token", "--provider", "google", "--user", "pia"])
        try #require(issued.status == 0, "\(issued.stderr)")
        var pipe: NamedPipe? = try NamedPipe(at: fixture.work.appendingPathComponent("token.fifo").path, feeding: Array(issued.stdout.utf8))
        let login = try fixture.run(["login", "--token-file", pipe?.path ?? "", "--json"])
        #expect(login.status == 0, "\(login.stderr)")
        #expect(try StoreFixture.object(login)["prefix"] as? String == "google/pia/")
        pipe = nil
        try fixture.expireStoredCredentials()
        let renewed = try fixture.run(["list"])
        #expect(renewed.status == 0, "\(renewed.stderr)")
    }

    @Test func aTokenGivenOnTheCommandLineOrStandardInputSignsIn() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let issued = try fixture.run(["local", "token", "--provider", "facebook", "--user", "1001"])
        try #require(issued.status == 0, "\(issued.stderr)")
        let token = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let direct = try fixture.run(["login", "--token", token, "--provider", "facebook", "--json"])
        #expect(direct.status == 0, "\(direct.stderr)")
        #expect(try StoreFixture.object(direct)["prefix"] as? String == "facebook/1001/")
        let piped = try fixture.run(["login", "--token", "-", "--provider", "facebook", "--account", "piped", "--json"], stdin: Data((token + "\n").utf8))
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(try StoreFixture.object(piped)["subject"] as? String == "1001")
        let file = try fixture.makeFile("a.txt", size: 10)
        #expect(try fixture.run(["put", file, "--account", "piped"]).status == 0)
        #expect(try fixture.run(["list"]).stdout == "a.txt\n")
        // A token of one provider presented as another's is refused by STS.
        let wrong = try fixture.run(["login", "--token", token, "--provider", "amazon", "--account", "wrong"])
        #expect(wrong.status == 3 || wrong.status == 4, "\(wrong.stderr)")
    }

    /// `--token -` reads standard input under the token file's limit, so an endless input stops.
    @Test func anEndlessTokenOnStandardInputIsRefused() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let result = try ToolRunner.run(
            ["login", "--token", "-", "--provider", "facebook"], environment: fixture.env([:]), stdinPath: "/dev/zero")
        #expect(result.status == 6, "\(result.stderr)")
        #expect(result.stderr == "error: --token -: cannot read standard input: it holds more than \(1 << 20) bytes\n")
    }

    @Test func logoutForgetsTheSignIn() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "ivy"]).status == 0)
        let out = try fixture.run(["logout", "--json"])
        #expect(out.status == 0)
        #expect(try StoreFixture.object(out)["signedOut"] as? Bool == true)
        #expect(try fixture.storedSession() == nil)
        #expect(FileManager.default.fileExists(atPath: fixture.secretsFile.path), "the store stays for other accounts")
        let again = try fixture.run(["logout"])
        #expect(again.status == 0)
        #expect(again.stdout.contains("Nobody was signed in"))
        let whoami = try fixture.run(["whoami"])
        #expect(whoami.status == 3)
        #expect(whoami.stderr.contains("not signed in; run 'wif-tool login --dev USER' first"))
    }

    @Test func otherProvidersSignInWithTheirOwnFolders() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        for (provider, user) in [("facebook", "1001"), ("amazon", "amzn1.account.X"), ("cognito", "us-east-1:abc"), ("oidc", "svc")] {
            let login = try fixture.run(["login", "--dev", user, "--provider", provider, "--account", provider, "--json"])
            #expect(login.status == 0, "\(provider): \(login.stderr)")
            #expect(try StoreFixture.object(login)["prefix"] as? String == "\(provider)/\(user)/")
            let file = try fixture.makeFile("\(provider).txt", size: 50, seed: 9)
            let put = try fixture.run(["put", file, "--account", provider])
            #expect(put.status == 0, "\(provider): \(put.stderr)")
            #expect(try fixture.run(["list", "--account", provider]).stdout == "\(provider).txt\n")
        }
    }
}
