import Foundation
import Testing
import WIFTestSupport

/// `wif-tool` against SeaweedFS, a distributed object store whose STS verifies the development issuer's
/// tokens through its JWKS and whose policies keep each user under `${jwt:sub}/`: reached with
/// `--endpoint` (here `WIF_ENDPOINT`) and nothing else changed.
@Suite("wif-tool on SeaweedFS", .enabled(if: SeaweedFSPeer.isEnabled, SeaweedFSPeer.skipReason), .serialized, .oneToolRunAtATime)
struct SeaweedFSTests {
    // MARK: Federation

    @Test(.timeLimit(.minutes(10)))
    func aDevelopmentTokenSignsInAndTheFileCommandsWork() throws {
        let peer = try SeaweedFSPeer.configured()
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let user = SeaweedFSPeer.uniqueUser("alice")
        let login = try peer.signIn(&fixture, user: user)
        try #require(login.status == 0, "\(login.stderr)")
        let session = try StoreFixture.object(login)
        #expect(session["subject"] as? String == user, "SubjectFromWebIdentityToken names the user")
        #expect(session["provider"] as? String == "oidc")
        #expect(session["prefix"] as? String == "\(user)/")
        #expect(session["role"] as? String == peer.roleArn)
        #expect(session["endpoint"] as? String == peer.endpoint)

        let whoami = try StoreFixture.object(try fixture.run(["whoami", "--json"]))
        #expect(whoami["bucket"] as? String == peer.bucket)
        #expect(whoami["credentialsExpired"] as? Bool == false)

        let notes = try fixture.makeFile("notes.txt", size: 4321, seed: 11)
        let photo = try fixture.makeFile("photos/cat.jpg", size: 2048, seed: 12)
        #expect(try fixture.run(["put", notes]).status == 0)
        let folder = try fixture.run(["put", "-r", fixture.path("photos")])
        #expect(folder.status == 0, "\(folder.stderr)")
        let listing = try fixture.run(["list"])
        #expect(listing.status == 0, "\(listing.stderr)")
        #expect(listing.stdout == "notes.txt\nphotos/cat.jpg\n")
        let long = try fixture.run(["list", "--long"])
        #expect(long.stdout.contains("4321  "), "\(long.stdout)")

        let copy = fixture.path("restored.jpg")
        let get = try fixture.run(["get", "photos/cat.jpg", "-o", copy])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(try StoreFixture.sha256(copy) == StoreFixture.sha256(photo))

        let rm = try fixture.run(["rm", "notes.txt", "photos/cat.jpg"])
        #expect(rm.status == 0, "\(rm.stderr)")
        #expect(try fixture.run(["list"]).stdout.isEmpty)
        let gone = try fixture.run(["get", "notes.txt", "-o", fixture.path("gone")])
        #expect(gone.status == 5, "\(gone.stderr)")
        #expect(gone.stderr.contains("no file named 'notes.txt'"), "\(gone.stderr)")
    }

    @Test func stsAnswersWithCredentialsAndTheSubjectButNoAssumedRoleUser() async throws {
        let peer = try SeaweedFSPeer.configured()
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let user = SeaweedFSPeer.uniqueUser("carol")
        let reply = try await peer.sts(peer.assumeRoleForm(token: try peer.token(user: user, home: home)))
        #expect(reply.status == 200, "\(reply.body)")
        #expect(reply.element("SubjectFromWebIdentityToken") == user)
        #expect(reply.element("AccessKeyId")?.hasPrefix("ASIA") == true)
        #expect(reply.element("SessionToken")?.isEmpty == false)
        #expect(reply.element("Expiration") != nil)
        // SeaweedFS leaves AssumedRoleUser out; the client then takes the account from the role ARN, and
        // sign-in works without it (the test above).
        #expect(reply.element("AssumedRoleUser") == nil, "SeaweedFS now sends AssumedRoleUser: \(reply.body)")
    }

    // MARK: Isolation

    @Test(.timeLimit(.minutes(10)))
    func twoUsersSeeOnlyTheirOwnFolders() throws {
        let peer = try SeaweedFSPeer.configured()
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let alice = SeaweedFSPeer.uniqueUser("alice")
        let bob = SeaweedFSPeer.uniqueUser("bob")
        try #require(try peer.signIn(&fixture, user: alice).status == 0)
        let bobAccount = ["--account", "bob"]
        let bobLogin = try peer.signIn(&fixture, user: bob, account: "bob")
        try #require(bobLogin.status == 0, "\(bobLogin.stderr)")
        #expect(try StoreFixture.object(bobLogin)["prefix"] as? String == "\(bob)/")

        let secret = try fixture.makeFile("secret.txt", size: 1000, seed: 21)
        try #require(try fixture.run(["put", secret]).status == 0)
        let own = try fixture.makeFile("own.txt", size: 10, seed: 22)
        try #require(try fixture.run(["put", own] + bobAccount).status == 0)
        #expect(try fixture.run(["list"]).stdout == "secret.txt\n")
        #expect(try fixture.run(["list"] + bobAccount).stdout == "own.txt\n")

        // Bob asks SeaweedFS for Alice's key directly: refused by the policy, nothing written.
        let stolen = fixture.path("stolen.txt")
        let read = try fixture.run(["get", "--key", "\(alice)/secret.txt", "-o", stolen] + bobAccount)
        #expect(read.status == 4, "\(read.stderr)")
        #expect(read.stderr.contains("AccessDenied"), "\(read.stderr)")
        #expect(read.stderr.contains("\(alice)/secret.txt"))
        #expect(!FileManager.default.fileExists(atPath: stolen))

        // Bob signs in claiming a folder inside Alice's: every command is refused by SeaweedFS.
        let intruder = try peer.signIn(&fixture, user: bob, account: "intruder", extra: ["--partition-template", "\(alice)/{id}/"])
        try #require(intruder.status == 0, "\(intruder.stderr)")
        let intruderAccount = ["--account", "intruder"]
        let list = try fixture.run(["list"] + intruderAccount)
        #expect(list.status == 4, "\(list.stderr)")
        let put = try fixture.run(["put", own] + intruderAccount)
        #expect(put.status == 4, "\(put.stderr)")
        #expect(put.stderr.contains("AccessDenied"))
        let remove = try fixture.run(["rm", "own.txt"] + intruderAccount)
        #expect(remove.status == 4, "\(remove.stderr)")

        // Alice's file is intact, and hers to read; Bob's is his.
        let mine = fixture.path("mine.txt")
        let get = try fixture.run(["get", "secret.txt", "-o", mine])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(try StoreFixture.sha256(mine) == StoreFixture.sha256(secret))
        let aliceReadsBob = try fixture.run(["get", "--key", "\(bob)/own.txt", "-o", fixture.path("x")])
        #expect(aliceReadsBob.status == 4, "\(aliceReadsBob.stderr)")

        #expect(try fixture.run(["rm", "secret.txt"]).status == 0)
        #expect(try fixture.run(["rm", "own.txt"] + bobAccount).status == 0)
    }

    // MARK: Large transfers

    @Test(.timeLimit(.minutes(10)))
    func aLargeFileGoesUpInPartsAndComesBackByteForByte() throws {
        let peer = try SeaweedFSPeer.configured()
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let user = SeaweedFSPeer.uniqueUser("dave")
        try #require(try peer.signIn(&fixture, user: user).status == 0)
        let size = 64 * 1024 * 1024 + 777
        let big = try fixture.makeFile("big.bin", size: size, seed: 31)
        let put = try fixture.run(["put", big, "--json"])
        try #require(put.status == 0, "\(put.stderr)")
        let uploaded = try #require(try StoreFixture.object(put)["uploaded"] as? [[String: Any]])
        #expect(((uploaded.first?["parts"] as? NSNumber)?.intValue ?? 0) > 1, "a multipart upload: \(uploaded)")
        #expect((uploaded.first?["size"] as? NSNumber)?.intValue == size)

        let long = try fixture.run(["list", "--long"])
        #expect(long.stdout.contains("\(size)  "), "\(long.stdout)")
        let copy = fixture.path("big.copy")
        let get = try fixture.run(["get", "big.bin", "-o", copy])
        #expect(get.status == 0, "\(get.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: copy)
        #expect((attributes[.size] as? NSNumber)?.intValue == size)
        #expect(try StoreFixture.sha256(copy) == StoreFixture.sha256(big))
        #expect(try fixture.run(["rm", "big.bin"]).status == 0)
    }

    // MARK: Error replies

    @Test func tokensSeaweedFSRefusesAreReportedAsRefusedTokens() throws {
        let peer = try SeaweedFSPeer.configured()
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        fixture.environment = ["WIF_ENDPOINT": peer.endpoint, "WIF_BUCKET": peer.bucket]
        let user = SeaweedFSPeer.uniqueUser("eve")
        func login(_ token: String, _ extra: [String] = []) throws -> ToolRunner.Result {
            try fixture.run(["login", "--token", token, "--provider", "oidc", "--role-arn", peer.roleArn, "--account", "refused"] + extra)
        }

        // Another client id: SeaweedFS answers 400 InvalidParameterValue, AWS would say InvalidIdentityToken.
        let audience = try login(try peer.token(user: user, audience: "another-client", home: fixture.home))
        #expect(audience.status == 3, "\(audience.stderr)")
        #expect(audience.stderr.contains("InvalidParameterValue"), "\(audience.stderr)")
        #expect(audience.stderr.contains("audience"), "\(audience.stderr)")

        // Signed by a key the issuer's JWKS does not have: SeaweedFS answers 403 AccessDenied, as it does
        // for a role that refuses a good token; the token fails its issuer's keys, so it was refused.
        let otherIssuer = fixture.root.appendingPathComponent("other-issuer").path
        let forged = try login(try peer.token(user: user, dataDirectory: otherIssuer, home: fixture.home))
        #expect(forged.status == 3, "\(forged.stderr)")
        #expect(forged.stderr.contains("does not verify against its issuer's keys"), "\(forged.stderr)")

        // A token of another issuer (the development Google): no provider trusts it, the role is refused.
        let google = try login(try peer.token(user: user, provider: "google", home: fixture.home))
        #expect(google.status == 4, "\(google.stderr)")
        #expect(google.stderr.contains("AccessDenied"), "\(google.stderr)")

        // A role that does not exist.
        let role = try login(try peer.token(user: user, home: fixture.home), ["--role-arn", "arn:aws:iam::000000000000:role/no-such-role"])
        #expect(role.status == 4, "\(role.stderr)")
        #expect(role.stderr.contains("no-such-role"), "\(role.stderr)")

        for result in [audience, forged, google, role] {
            #expect(!result.stderr.contains("Fatal error"), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.wifHome.appendingPathComponent("session.refused.json").path))
    }

    @Test func stsErrorDocumentsHaveTheAWSShape() async throws {
        let peer = try SeaweedFSPeer.configured()
        let home = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let user = SeaweedFSPeer.uniqueUser("frank")
        let expiring = try peer.token(user: user, ttl: 1, home: home)
        let valid = try peer.token(user: user, home: home)
        try await Task.sleep(for: .seconds(2))

        let cases: [(String, [(String, String)], Int, String)] = [
            ("expired token", peer.assumeRoleForm(token: expiring), 400, "ExpiredTokenException"),
            ("no session name", peer.assumeRoleForm(token: valid, sessionName: nil), 400, "MissingParameter"),
            ("too short", peer.assumeRoleForm(token: valid) + [("DurationSeconds", "10")], 400, "InvalidParameterValue"),
            ("garbage token", peer.assumeRoleForm(token: "not.a.jwt"), 403, "AccessDenied"),
            ("unknown action", [("Action", "NoSuchAction"), ("Version", "2011-06-15")], 400, "InvalidAction"),
        ]
        for (name, form, status, code) in cases {
            let reply = try await peer.sts(form)
            #expect(reply.status == status, "\(name): \(reply.body)")
            #expect(reply.body.contains("<ErrorResponse"), "\(name): \(reply.body)")
            #expect(reply.element("Code") == code, "\(name): \(reply.body)")
            #expect(reply.element("Message")?.isEmpty == false, "\(name)")
            #expect(reply.element("RequestId")?.isEmpty == false, "\(name)")
            #expect(!reply.body.contains(valid), "\(name): the token is not echoed")
        }

        // The wif-tool refuses an expired token itself, before asking STS.
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        fixture.environment = ["WIF_ENDPOINT": peer.endpoint, "WIF_BUCKET": peer.bucket]
        let late = try fixture.run(["login", "--token", expiring, "--role-arn", peer.roleArn])
        #expect(late.status == 3, "\(late.stderr)")
        #expect(late.stderr.contains("expired"), "\(late.stderr)")
    }

    @Test func s3ErrorRepliesAreAWSShapedAndReportedWithTheirCodes() throws {
        let peer = try SeaweedFSPeer.configured()
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        let admin = try peer.adminEnvironment()
        let cases: [(String, String, [String: String], String)] = [
            ("wrong secret", "\(peer.endpoint)/\(peer.bucket)?list-type=2", try peer.adminEnvironment(secret: "not-the-secret"), "SignatureDoesNotMatch"),
            ("unknown key", "\(peer.endpoint)/\(peer.bucket)?list-type=2",
             ["AWS_ACCESS_KEY_ID": "AKIANOSUCHKEY0000000", "AWS_SECRET_ACCESS_KEY": "x", "AWS_REGION": "us-east-1"], "InvalidAccessKeyId"),
            ("missing bucket", "\(peer.endpoint)/no-such-bucket-\(UUID().uuidString.prefix(8).lowercased())?list-type=2", admin, "NoSuchBucket"),
            ("missing key", "\(peer.endpoint)/\(peer.bucket)/no/such/key", admin, "NoSuchKey"),
        ]
        for (name, url, environment, code) in cases {
            let result = try fixture.run(["request", "--service", "s3", url], environment)
            #expect(result.status == 1, "\(name): \(result.stderr)")
            #expect(result.stdout.contains("<Code>\(code)</Code>"), "\(name): \(result.stdout)")
            #expect(result.stdout.contains("<RequestId>"), "\(name)")
        }

        // A user whose bucket does not exist: SeaweedFS says AccessDenied, not NoSuchBucket, to non-admins.
        let user = SeaweedFSPeer.uniqueUser("grace")
        let missing = "no-such-bucket-\(UUID().uuidString.prefix(8).lowercased())"
        try #require(try peer.signIn(&fixture, user: user, bucket: missing).status == 0)
        let file = try fixture.makeFile("a.txt", size: 10)
        let put = try fixture.run(["put", file])
        #expect(put.status == 4, "\(put.stderr)")
        #expect(put.stderr.contains("AccessDenied") && put.stderr.contains(missing), "\(put.stderr)")
        #expect(put.stderr.contains("request id"), "\(put.stderr)")
    }

    // MARK: Set-up

    @Test func setUpAgainChangesNothing() throws {
        let peer = try SeaweedFSPeer.configured()
        let iamConfig = try #require(peer.iamConfig, "WIF_SEAWEEDFS_IAM_CONFIG is not set")
        let issuerURL = try #require(peer.issuerURL, "WIF_SEAWEEDFS_ISSUER_URL is not set")
        var fixture = try StoreFixture()
        defer { fixture.remove() }
        // A copy, so the running server's file is never touched.
        let copy = fixture.path("iam.json")
        try FileManager.default.copyItem(atPath: iamConfig, toPath: copy)
        let arguments = [
            "engine", "seaweedfs", "setup", "--endpoint", peer.endpoint, "--iam-config", copy, "--issuer-url", issuerURL,
            "--bucket", peer.bucket, "--role-arn", peer.roleArn, "--json",
        ]
        let again = try fixture.run(arguments, try peer.adminEnvironment())
        try #require(again.status == 0, "\(again.stderr)")
        let output = try StoreFixture.object(again)
        #expect(output["iamConfigChanged"] as? Bool == false, "the same settings give the same file: \(again.stdout)")
        #expect(output["bucketCreated"] as? Bool == false, "the bucket is already there")
        #expect(try StoreFixture.sha256(copy) == StoreFixture.sha256(iamConfig))

        let refused = try fixture.run(arguments, try peer.adminEnvironment(secret: "not-the-secret"))
        #expect(refused.status == 3, "\(refused.stderr)")
        #expect(refused.stderr.contains("SignatureDoesNotMatch"), "\(refused.stderr)")
        #expect(refused.stderr.contains("admin"), "\(refused.stderr)")
    }
}
