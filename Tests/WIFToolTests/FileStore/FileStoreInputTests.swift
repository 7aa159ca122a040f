import Foundation
import Testing
import WIFTestSupport

/// Bad input of every kind to the file-store commands: each gets one clear `error:` line and the
/// documented exit status.
@Suite(.oneToolRunAtATime) struct FileStoreInputTests {
    /// A case: the arguments, whether to sign in first, the exit status and a part of the message.
    struct Case: Sendable, CustomStringConvertible {
        var arguments: [String]
        var signedIn = false
        var status: Int32
        var message: String
        var description: String { self.arguments.joined(separator: " ") }
    }

    static let cases: [Case] = [
        // Usage (64).
        Case(arguments: ["login"], status: 64, message: "give --dev USER (embedded stack), --token TOKEN or --token-file FILE"),
        Case(arguments: ["login", "--dev", "alice", "--token", "abc"], status: 64, message: "give only one of --dev, --token and --token-file"),
        Case(arguments: ["login", "--dev", "alice", "--provider", "myspace"], status: 64, message: "unknown provider 'myspace'"),
        Case(arguments: ["login", "--dev", "a/b"], status: 64, message: "must not contain '/'"),
        Case(arguments: ["login", "--dev", "alice", "--duration", "60"], status: 64, message: "--duration must be 900 to 43200 seconds"),
        Case(arguments: ["login", "--dev", "alice", "--partition-template", "users/"], status: 64, message: "must contain the placeholder {id}"),
        Case(arguments: ["login", "--dev", "alice", "--endpoint", "http://127.0.0.1:9"], status: 64, message: "--dev signs in on the embedded local stack"),
        Case(arguments: ["login", "--token", "abc"], status: 64, message: "the token is not a JWT, so give --provider"),
        Case(arguments: ["whoami", "--endpoint", "ftp://example.com"], status: 64, message: "--endpoint 'ftp://example.com' is not an http or https URL"),
        Case(arguments: ["whoami", "--sts-endpoint", "http://127.0.0.1:9"], status: 64, message: "--sts-endpoint is set but the endpoint is the embedded stack"),
        Case(arguments: ["whoami", "--account", "../x"], status: 64, message: "--account '../x' is not an account name"),
        Case(arguments: ["whoami", "--region", "Mars Base"], status: 64, message: "--region 'Mars Base' is not a region name"),
        Case(arguments: ["whoami", "--bucket", "Shared_Bucket"], status: 64, message: "--bucket 'Shared_Bucket' is not a bucket name"),
        Case(arguments: ["put"], status: 64, message: "give at least one FILE to upload"),
        Case(arguments: ["put", "a", "b", "--as", "c"], status: 64, message: "--as names a single file, but 2 files were given"),
        Case(arguments: ["put", "a", "--to", "x/"], status: 64, message: "--to is for --recursive"),
        Case(arguments: ["put", "-r", "a", "b"], status: 64, message: "--recursive uploads one folder"),
        Case(arguments: ["put", "-"], status: 64, message: "standard input has no file name; give the name to store it under: put - --as NAME"),
        Case(arguments: ["put", "-", "--as", "logs/"], status: 64, message: "standard input has no file name"),
        Case(arguments: ["put", "-", "a", "--as", "b"], status: 64, message: "'-' uploads standard input alone: put - --as NAME"),
        Case(arguments: ["put", "-", "--as", "b", "--to", "c/"], status: 64, message: "--to is for --recursive; name standard input with --as NAME"),
        Case(arguments: ["get", "--key", "--recursive", "x"], status: 64, message: "--key reads one object"),
        Case(arguments: ["put", "-r", "a", "--jobs", "0"], status: 64, message: "--jobs is 0; give 1 to 64 files at once"),
        Case(arguments: ["get", "-r", "a/", "--jobs", "65"], status: 64, message: "--jobs is 65; give 1 to 64 files at once"),
        Case(arguments: ["rm"], status: 64, message: "give at least one NAME to delete"),
        Case(arguments: ["list", "--nonsense"], status: 64, message: "Unknown option '--nonsense'"),
        // Not signed in (3).
        Case(arguments: ["whoami"], status: 3, message: "not signed in; run 'wif-tool login --dev USER' first"),
        Case(arguments: ["list"], status: 3, message: "not signed in"),
        Case(arguments: ["put", "/etc/passwd", "--as", "x"], status: 3, message: "not signed in"),
        Case(arguments: ["get", "x"], status: 3, message: "not signed in"),
        Case(arguments: ["whoami", "--account", "bob"], status: 3, message: "not signed in as account 'bob'; run 'wif-tool login --dev USER --account bob' first"),
        Case(arguments: ["login", "--token", "not-a-real-token", "--provider", "google"], status: 3, message: "InvalidIdentityToken"),
        // An access token the provider does not recognise is a refused token (3), like an ID token STS refuses.
        Case(arguments: ["login", "--token", "OPAQUEACCESSTOKEN", "--provider", "facebook"], status: 3, message: "IDPRejectedClaim"),
        // A duration the role does not allow is a bad option (64), not a service failure.
        Case(arguments: ["login", "--dev", "alice", "--duration", "3601"], status: 64, message: "exceeds the MaxSessionDuration"),
        // Signed in, then: another endpoint (3), local files (6), missing objects (5).
        Case(arguments: ["list", "--endpoint", "http://127.0.0.1:9"], signedIn: true, status: 3,
             message: "the stored sign-in is for the embedded local stack, but this command uses the endpoint http://127.0.0.1:9"),
        // Another bucket or region than the sign-in's is refused, not silently replaced by the sign-in's.
        Case(arguments: ["put", "/etc/hostname", "--bucket", "other-bucket"], signedIn: true, status: 3,
             message: "the stored sign-in is for bucket 'wif-personal', but this command uses 'other-bucket' (set by --bucket)"),
        Case(arguments: ["list", "--region", "eu-west-1"], signedIn: true, status: 3,
             message: "the stored sign-in is for region 'us-east-1', but this command uses 'eu-west-1' (set by --region)"),
        Case(arguments: ["put", "/no/such/file.txt"], signedIn: true, status: 6, message: "cannot read /no/such/file.txt"),
        // A folder given as the key file is the wrong key (3); the store is not damaged.
        Case(arguments: ["whoami", "--key-file", "/tmp"], signedIn: true, status: 3, message: "/tmp is not a regular file, so not a key file"),
        Case(arguments: ["put", "/"], signedIn: true, status: 64, message: "/ is a folder; upload folders with put --recursive"),
        Case(arguments: ["put", "-r", "/no/such/folder"], signedIn: true, status: 6, message: "cannot read folder /no/such/folder"),
        Case(arguments: ["get", "missing.txt", "-o", "/no/such/folder/file"], signedIn: true, status: 6, message: "folder /no/such/folder does not exist"),
        Case(arguments: ["get", "missing.txt", "-o", "/tmp/"], signedIn: true, status: 5, message: "no file named 'missing.txt' in your folder"),
        Case(arguments: ["rm", "missing.txt"], signedIn: true, status: 5, message: "no file named 'missing.txt' in your folder"),
        Case(arguments: ["login", "--token-file", "/no/such/token"], status: 6, message: "cannot read the token file /no/such/token"),
    ]

    @Test(arguments: Self.cases)
    func badInputGivesAClearErrorAndItsExitStatus(_ entry: Case) throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        if entry.signedIn {
            try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        }
        let result = try fixture.run(entry.arguments)
        #expect(result.status == entry.status, "\(entry): \(result.stderr)")
        #expect(result.stderr.contains(entry.message), "\(entry): \(result.stderr)")
        #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Stack dump"))
    }

    @Test func theSignInsOwnBucketAndAnAWSRegionElsewhereAreAccepted() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        // Naming the sign-in's bucket is fine, and AWS_REGION (a setting of every AWS tool, not this
        // one's) does not stand against the sign-in's region.
        let same = try fixture.run(["list", "--bucket", "wif-personal"])
        #expect(same.status == 0, "\(same.stderr)")
        let elsewhere = try fixture.run(["list"], ["AWS_REGION": "eu-west-1"])
        #expect(elsewhere.status == 0, "\(elsewhere.stderr)")
        // WIF_BUCKET is a default, like the config file's bucket: the sign-in's overrides it.
        let variable = try fixture.run(["list", "--json"], ["WIF_BUCKET": "other-bucket"])
        #expect(variable.status == 0, "\(variable.stderr)")
        #expect(variable.stdout.contains(#""bucket":"wif-personal""#), "\(variable.stdout)")
    }

    @Test func rmWithForceIgnoresMissingNames() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try #require(try fixture.run(["login", "--dev", "alice"]).status == 0)
        let file = try fixture.makeFile("here.txt", size: 5)
        try #require(try fixture.run(["put", file]).status == 0)
        let partly = try fixture.run(["rm", "here.txt", "gone.txt", "--json"])
        #expect(partly.status == 5)
        let output = try StoreFixture.object(partly)
        #expect(output["deleted"] as? [String] == ["here.txt"])
        #expect(output["missing"] as? [String] == ["gone.txt"])
        #expect(try fixture.run(["rm", "gone.txt", "--force"]).status == 0)
    }

    @Test func configFileMistakesNameTheLine() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try FileManager.default.createDirectory(at: fixture.wifHome, withIntermediateDirectories: true)
        let config = fixture.wifHome.appendingPathComponent("config")
        for (text, message) in [
            ("[default]\nbucekt = x\n", "config line 2: unknown setting 'bucekt'; known settings: endpoint, sts_endpoint, region, bucket"),
            ("[profile x]\n", "config line 1: unknown section '[profile x]'; use [default] or [account NAME]"),
            ("[default\n", "config line 1: a section header must end with ']'"),
            ("region\n", "config line 1: expected 'key = value'"),
            ("endpoint = not a url\n", "config line 1 (endpoint) 'not a url' is not an http or https URL"),
            ("[account bob]\nregion = \n", "config line 2: 'region' has no value"),
        ] {
            try Data(text.utf8).write(to: config)
            let result = try fixture.run(["whoami"])
            #expect(result.status == 64, "\(text): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(text): \(result.stderr)")
        }
    }

    @Test func configFileAndEnvironmentChooseTheSettings() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        try FileManager.default.createDirectory(at: fixture.wifHome, withIntermediateDirectories: true)
        try Data(
            """
            # Everyone signs in on the embedded stack; bob's folder is flat.
            [default]
            endpoint = embedded
            provider = facebook

            [account bob]
            partition_template = people/{id}/
            """.utf8
        ).write(to: fixture.wifHome.appendingPathComponent("config"))
        let alice = try fixture.run(["login", "--dev", "1001", "--json"])
        #expect(alice.status == 0, "\(alice.stderr)")
        #expect(try StoreFixture.object(alice)["prefix"] as? String == "facebook/1001/")
        let bob = try fixture.run(["login", "--dev", "2002", "--json"], ["WIF_ACCOUNT": "bob"])
        #expect(bob.status == 0, "\(bob.stderr)")
        #expect(try StoreFixture.object(bob)["prefix"] as? String == "people/2002/")
        #expect(try StoreFixture.object(bob)["provider"] as? String == "facebook")
        // The flag beats the environment, which beats the file.
        let google = try fixture.run(["login", "--dev", "carol", "--provider", "google", "--json"], ["WIF_PROVIDER": "amazon"])
        #expect(try StoreFixture.object(google)["provider"] as? String == "google")
        let amazon = try fixture.run(["login", "--dev", "carol", "--json"], ["WIF_PROVIDER": "amazon"])
        #expect(try StoreFixture.object(amazon)["provider"] as? String == "amazon")
    }

    @Test func unreachableEndpointIsANetworkError() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let port = try MotoPeer.freePort()
        let result = try fixture.run([
            "login", "--token", "header.payload.signature-that-is-long-enough", "--provider", "oidc",
            "--role-arn", "arn:aws:iam::123456789012:role/web", "--bucket", "shared-files",
            "--endpoint", "http://127.0.0.1:\(port)",
        ])
        #expect(result.status == 7, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("error: "))
    }

    @Test func helpDocumentsTheFileCommandsAndTheirExitStatus() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let root = try fixture.run(["--help"])
        for command in ["demo", "login", "whoami", "put", "list", "get", "rm", "logout"] {
            #expect(root.stdout.contains("  \(command)"), "missing \(command)")
        }
        // Help text is wrapped to the terminal; compare with the line breaks taken out.
        func words(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let put = words(try fixture.run(["put", "--help"]).stdout)
        for text in ["--recursive", "--as", "--to", "--quiet", "--json", "Exit status:", "64 a refused name or bad options"] {
            #expect(put.contains(text), "put --help misses \(text)")
        }
        let login = words(try fixture.run(["login", "--help"]).stdout)
        for text in ["--dev", "--token-file", "--role-arn", "--partition-template", "secrets.enc", "--passphrase", "--key-file", "--account"] {
            #expect(login.contains(text), "login --help misses \(text)")
        }
        let get = words(try fixture.run(["get", "--help"]).stdout)
        for text in ["--recursive", "--key", "-o", "5 no such file", "AccessDenied"] {
            #expect(get.contains(text), "get --help misses \(text)")
        }
    }
}
