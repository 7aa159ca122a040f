import Foundation
import Testing
import WIFCredentials
import WIFFoundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
import WIFTestSupport
#endif

/// `login --issuer` against a stack served by `wif-tool local serve`: the device and browser flows
/// with the test approving as the user, the OAuth account in `accounts`, silent renewal of an expired
/// ID token, and `logout --revoke` making the refresh token useless.
@Suite(.oneToolRunAtATime) struct OIDCLoginCommandTests {
    static let oidcRole = "arn:aws:iam::000000000000:role/personal-store-oidc"

    /// A served stack and the options that point wif-tool at it.
    struct Served {
        let server: ServeProcess
        let endpoint: String

        /// The options for the file commands.
        var target: [String] { ["--endpoint", self.endpoint] }
        /// The options for `login --issuer` on this stack's default public client.
        var login: [String] {
            ["login", "--issuer", self.endpoint, "--client-id", "wif-local", "--endpoint", self.endpoint, "--role-arn", OIDCLoginCommandTests.oidcRole,
             "--bucket", "wif-personal", "--partition-template", "oidc/{id}/"]
        }
    }

    /// Serves a stack whose OAuth settings are `oauth` (a one-second device polling interval by default).
    static func serve(_ fixture: StoreFixture, oauth: [String: Int] = [:]) async throws -> Served {
        var settings = ["deviceInterval": 1]
        settings.merge(oauth) { $1 }
        let config = fixture.root.appendingPathComponent("stack.json")
        try JSONSerialization.data(withJSONObject: ["oauth": settings]).write(to: config)
        let data = fixture.root.appendingPathComponent("served").path
        let server = try ServeProcess(["local", "serve", "--data-dir", data, "--config", config.path], home: fixture.home)
        return Served(server: server, endpoint: try await server.firstLine())
    }

    /// Starts a wif-tool command that keeps running (a sign-in waiting for approval); `environment` adds
    /// to its variables (by default no browser is opened).
    static func launch(_ fixture: StoreFixture, _ arguments: [String], environment: [String: String] = ["BROWSER": "none"]) throws -> ServeProcess {
        try ServeProcess(arguments, home: fixture.home, extra: environment.merging(["WIF_HOME": fixture.wifHome.path]) { $1 })
    }

    /// Waits for a launched command to end.
    static func finish(_ process: ServeProcess) async throws -> ToolRunner.Result {
        // Signal 0 sends nothing: this only waits.
        try await process.stop(signal: 0)
    }

    /// GET or POST over HTTP, following redirects.
    static func fetch(_ url: URL, form: String? = nil) async throws -> (status: Int, body: String) {
        var request = URLRequest(url: url)
        if let form {
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(form.utf8)
        }
        return try await withCheckedThrowingContinuation { continuation in
            URLSession.shared.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                    continuation.resume(returning: (status, String(decoding: data ?? Data(), as: UTF8.self)))
                }
            }.resume()
        }
    }

    /// Signs in with the device flow, approving as `user` with the user code the command prints.
    static func deviceLogin(_ fixture: StoreFixture, _ served: Served, user: String, extra: [String] = []) async throws -> ToolRunner.Result {
        let login = try Self.launch(fixture, served.login + ["--device"] + extra)
        let prompt = try await login.firstLine()
        let code = try #require(prompt.split(separator: " ").last.map(String.init), "no user code in '\(prompt)'")
        #expect(prompt.hasPrefix("To sign in, open \(served.endpoint)/oauth2/device and enter the code "), "\(prompt)")
        let approve = try #require(URL(string: "\(served.endpoint)/oauth2/device?user_code=\(code)&login_hint=\(user)"))
        let approval = try await Self.fetch(approve)
        #expect(approval.status == 200)
        return try await Self.finish(login)
    }

    /// The stored OAuth accounts, read with the store's key as a test can.
    static func oauthAccounts(_ fixture: StoreFixture) throws -> OAuthAccountSet {
        try fixture.secretStore().load().value(OAuthAccountSet.self, forKey: EncryptedStore.oauthAccountsKey) ?? OAuthAccountSet()
    }

    @Test func deviceSignInThenTheFileCommandsWork() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let served = try await Self.serve(fixture)

        let login = try await Self.deviceLogin(fixture, served, user: "alice")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("Signed in as alice (oidc)."), "\(login.stdout)")

        let whoami = try fixture.run(["whoami", "--json"] + served.target)
        #expect(whoami.status == 0, "\(whoami.stderr)")
        let summary = try StoreFixture.object(whoami)
        #expect(summary["subject"] as? String == "alice")
        #expect(summary["prefix"] as? String == "oidc/alice/")
        let file = try fixture.makeFile("notes.txt", size: 500)
        let put = try fixture.run(["put", file] + served.target)
        #expect(put.status == 0, "\(put.stderr)")
        #expect(try fixture.run(["list"] + served.target).stdout == "notes.txt\n")

        // No token is printed, and none is in WIF_HOME in the clear.
        let account = try #require(try Self.oauthAccounts(fixture).accounts["default"])
        let secrets = [account.tokens.idToken, account.tokens.accessToken] + [account.tokens.refreshToken].compactMap { $0 }
        for secret in secrets {
            #expect(!login.stdout.contains(secret) && !login.stderr.contains(secret) && !whoami.stdout.contains(secret))
            for (path, bytes) in try StoreFixture.files(under: fixture.wifHome) {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(path) holds a token in the clear")
            }
        }
    }

    @Test func browserSignInWithTheTestAsTheBrowser() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let served = try await Self.serve(fixture)

        let login = try Self.launch(fixture, served.login + ["--browser", "--account", "work"])
        let prompt = try await login.firstLine()
        let prefix = "To sign in, open "
        #expect(prompt.hasPrefix(prefix + served.endpoint + "/oauth2/authorize?"), "\(prompt)")
        let address = try #require(URL(string: String(prompt.dropFirst(prefix.count)) + "&login_hint=bob"))
        // The issuer approves at once and redirects to the command's loopback listener.
        let page = try await Self.fetch(address)
        #expect(page.status == 200, "\(page.body)")
        let result = try await Self.finish(login)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Signed in as bob (oidc)."), "\(result.stdout)")

        let list = try fixture.run(["accounts", "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        #expect(rows.count == 1)
        #expect(rows.first?["name"] as? String == "work")
        #expect(rows.first?["subject"] as? String == "bob")
        #expect(rows.first?["issuer"] as? String == "https://wif.localhost")
        #expect(rows.first?["isDefault"] as? Bool == true)
        #expect(rows.first?["canRefresh"] as? Bool == true)
        let text = try fixture.run(["accounts"])
        #expect(text.stdout.hasPrefix("* work  https://wif.localhost  bob  ID token expires "), "\(text.stdout)")

        let whoami = try fixture.run(["whoami", "--account", "work"] + served.target)
        #expect(whoami.status == 0, "\(whoami.stderr)")
        #expect(try fixture.run(["whoami"] + served.target).status == 3, "the default wif-tool account is not signed in")
    }

    @Test func anExpiredIDTokenIsRenewedSilently() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let served = try await Self.serve(fixture, oauth: ["idTokenLifetime": 4])
        let login = try await Self.deviceLogin(fixture, served, user: "carol")
        #expect(login.status == 0, "\(login.stderr)")
        let before = try #require(try Self.oauthAccounts(fixture).accounts["default"]?.tokens)

        // Let the ID token expire, and make the credentials need renewing, which needs a valid ID token.
        while Date() <= before.idTokenExpiresAt.addingTimeInterval(1) {
            try await Task.sleep(for: .milliseconds(250))
        }
        try fixture.expireStoredCredentials()
        let file = try fixture.makeFile("later.txt", size: 100)
        let put = try fixture.run(["put", file] + served.target)
        #expect(put.status == 0, "\(put.stderr)")

        let after = try #require(try Self.oauthAccounts(fixture).accounts["default"]?.tokens)
        #expect(after.idTokenExpiresAt > before.idTokenExpiresAt)
        #expect(after.refreshToken != before.refreshToken, "the refresh token was rotated and the new one kept")
        let stored = try #require(try fixture.storedSession())
        let credentials = try #require(stored["credentials"] as? [String: Any])
        #expect((credentials["expiration"] as? Double ?? 0) > StoreFixture.storedDate(2025))
    }

    @Test func logoutRevokeMakesTheRefreshTokenUseless() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let served = try await Self.serve(fixture)
        let login = try await Self.deviceLogin(fixture, served, user: "dave")
        #expect(login.status == 0, "\(login.stderr)")
        let refreshToken = try #require(try Self.oauthAccounts(fixture).accounts["default"]?.tokens.refreshToken)

        let logout = try fixture.run(["logout", "--revoke", "--json"] + served.target)
        #expect(logout.status == 0, "\(logout.stderr)")
        let output = try StoreFixture.object(logout)
        #expect(output["revoked"] as? Bool == true)
        #expect(output["signedOut"] as? Bool == true)
        #expect(try Self.oauthAccounts(fixture).accounts.isEmpty)
        #expect(try fixture.run(["accounts"]).stdout.hasPrefix("No accounts"))
        #expect(try fixture.run(["whoami"] + served.target).status == 3)

        let token = try #require(URL(string: "\(served.endpoint)/oauth2/token"))
        let form = "grant_type=refresh_token&client_id=wif-local&refresh_token=\(refreshToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
        let refresh = try await Self.fetch(token, form: form)
        #expect(refresh.status == 400)
        #expect(refresh.body.contains("invalid_grant"), "\(refresh.body)")
    }

    @Test func loginOptionsAreChecked() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let noClient = try fixture.run(["login", "--issuer", "http://127.0.0.1:9"])
        #expect(noClient.status == 64)
        #expect(noClient.stderr.contains("--issuer needs --client-id ID"), "\(noClient.stderr)")
        let both = try fixture.run(["login", "--issuer", "http://127.0.0.1:9", "--client-id", "x", "--device", "--browser"])
        #expect(both.status == 64)
        #expect(both.stderr.contains("give only one of --device and --browser"), "\(both.stderr)")
        let stray = try fixture.run(["login", "--dev", "alice", "--client-id", "x"])
        #expect(stray.status == 64)
        #expect(stray.stderr.contains("go with --issuer URL"), "\(stray.stderr)")
    }
}

extension OIDCLoginCommandTests {
    @Test func anIDTokenSTSRefusesIsRenewedOnceAndRetried() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let served = try await Self.serve(fixture, oauth: ["idTokenLifetime": 4])
        let login = try await Self.deviceLogin(fixture, served, user: "erin")
        #expect(login.status == 0, "\(login.stderr)")
        let before = try #require(try Self.oauthAccounts(fixture).accounts["default"]?.tokens)
        while Date() <= before.idTokenExpiresAt.addingTimeInterval(1) {
            try await Task.sleep(for: .milliseconds(250))
        }
        // The stored expiry says the token is good for years, so only STS's refusal can show it is not.
        try fixture.secretStore().update { document in
            var set = try #require(try document.value(OAuthAccountSet.self, forKey: EncryptedStore.oauthAccountsKey))
            set.accounts["default"]?.tokens.idTokenExpiresAt = Date(timeIntervalSinceReferenceDate: StoreFixture.storedDate(2090))
            try document.setValue(set, forKey: EncryptedStore.oauthAccountsKey)
        }
        try fixture.expireStoredCredentials()
        let list = try fixture.run(["list"] + served.target)
        #expect(list.status == 0, "\(list.stderr)")
        let after = try #require(try Self.oauthAccounts(fixture).accounts["default"]?.tokens)
        #expect(after.idToken != before.idToken)
        #expect(after.refreshToken != before.refreshToken)
    }
}

extension OIDCLoginCommandTests {
    @Test(arguments: [
        (["login", "--help"], ["--issuer <issuer>", "--client-id <client-id>", "--device", "--browser", "--expected-issuer"]),
        (["logout", "--help"], ["--revoke", "revoked at the issuer"]),
        (["accounts", "--help"], ["List the OpenID Connect accounts", "--json", "No token is ever printed"]),
    ])
    func helpDescribesTheOpenIDConnectOptions(arguments: [String], expected: [String]) throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let result = try fixture.run(arguments)
        #expect(result.status == 0)
        let text = result.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
        for phrase in expected {
            #expect(text.contains(phrase), "\(arguments) help lacks '\(phrase)'")
        }
    }

    @Test func accountsWithNoStoreListsNothing() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let json = try fixture.run(["accounts", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdout == "[]\n")
        let text = try fixture.run(["accounts"])
        #expect(text.stdout == "No accounts; sign in with 'wif-tool login --issuer URL --client-id ID'.\n")
    }
}

extension OIDCLoginCommandTests {
    @Test func aRevokedRefreshTokenSaysToSignInAgain() async throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let served = try await Self.serve(fixture, oauth: ["idTokenLifetime": 4])
        let login = try await Self.deviceLogin(fixture, served, user: "fay")
        #expect(login.status == 0, "\(login.stderr)")
        let tokens = try #require(try Self.oauthAccounts(fixture).accounts["default"]?.tokens)
        let refreshToken = try #require(tokens.refreshToken)
        // Revoked behind wif-tool's back, as an administrator would.
        let revoke = try #require(URL(string: "\(served.endpoint)/oauth2/revoke"))
        let encoded = refreshToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        #expect(try await Self.fetch(revoke, form: "token=\(encoded)&token_type_hint=refresh_token&client_id=wif-local").status == 200)
        while Date() <= tokens.idTokenExpiresAt.addingTimeInterval(1) {
            try await Task.sleep(for: .milliseconds(250))
        }
        try fixture.expireStoredCredentials()
        let list = try fixture.run(["list"] + served.target)
        #expect(list.status == 3, "\(list.stderr)")
        #expect(list.stderr.contains("sign in again: wif-tool login --issuer URL --client-id ID"), "\(list.stderr)")
        #expect(!list.stderr.contains(refreshToken))
    }
}
