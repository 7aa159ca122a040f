import Foundation
import Testing

/// `wif-tool` against a real Ceph RADOS Gateway: federation set up with `engine ceph-rgw setup`, sign-in
/// with tokens of a `wif-tool local serve` issuer, the file commands, and each strategy's isolation of
/// two users, checked by the gateway itself with raw signed requests.
@Suite(.enabled(if: CephRGWGateway.isAvailable, CephRGWGateway.skipReason), .serialized)
struct CephRGWEngineTests {
    @Test(.timeLimit(.minutes(5)))
    func rolePerUserKeepsEachUserInTheirFolder() async throws {
        let world = try await CephRGWWorld.start()
        defer { world.tearDown(strategy: "role-per-user", users: ["alice", "bob"]) }
        let setUp = try world.setUp(strategy: "role-per-user", users: ["alice", "bob"])
        let port = String(world.issuer.url.split(separator: ":").last ?? "")
        #expect(setUp["provider"] as? String == "arn:aws:iam:::oidc-provider/127.0.0.1:\(port)")
        #expect(setUp["providerChange"] as? String == "created")
        let thumbprints = try #require(setUp["thumbprints"] as? [String])
        #expect(thumbprints.count == 1 && thumbprints[0].count == 40)
        let roles = try #require(setUp["roles"] as? [String: String])
        let aliceRole = try #require(roles["alice"])
        let bobRole = try #require(roles["bob"])
        #expect(aliceRole == "arn:aws:iam:::role/\(world.namePrefix)-alice")
        // Setting up again changes nothing and succeeds.
        #expect(try world.setUp(strategy: "role-per-user", users: ["alice", "bob"])["providerChange"] as? String == "unchanged")

        let aliceToken = try world.issuer.tokenFile(user: "alice")
        let bobToken = try world.issuer.tokenFile(user: "bob")
        let alice = try world.store()
        defer { alice.remove() }
        let login = try world.signIn(alice, tokenFile: aliceToken, role: aliceRole)
        try #require(login.status == 0, "\(login.stderr)")
        let session = try StoreFixture.object(login)
        #expect(session["subject"] as? String == "alice")
        #expect(session["prefix"] as? String == "alice/")
        #expect((session["assumedRole"] as? String)?.contains("assumed-role/\(world.namePrefix)-alice/") == true, "\(session)")

        let notes = try alice.makeFile("notes.txt", size: 5000, seed: 1)
        #expect(try alice.run(["put", notes]).status == 0)
        #expect(try alice.run(["list"]).stdout == "notes.txt\n")
        let copy = alice.path("copy.txt")
        #expect(try alice.run(["get", "notes.txt", "-o", copy]).status == 0)
        #expect(try StoreFixture.sha256(copy) == StoreFixture.sha256(notes))

        let bob = try world.store()
        defer { bob.remove() }
        try #require(try world.signIn(bob, tokenFile: bobToken, role: bobRole).status == 0)
        #expect(try bob.run(["list"]).stdout.isEmpty)
        #expect(try bob.run(["put", try bob.makeFile("bob.txt", size: 10, seed: 2)]).status == 0)
        #expect(try alice.run(["list"]).stdout == "notes.txt\n")

        // Bob's token does not open Alice's role: the gateway answers AccessDenied without a message.
        let intruder = try world.store()
        defer { intruder.remove() }
        let refused = try world.signIn(intruder, tokenFile: bobToken, role: aliceRole)
        #expect(refused.status == 4, "\(refused.stderr)")
        #expect(refused.stderr.contains("STS refused the sign-in to \(aliceRole) with AccessDenied"), "\(refused.stderr)")

        // The gateway itself keeps Alice out of Bob's folder and from listing the bucket.
        let own = try world.request(asRole: aliceRole, tokenFile: aliceToken, [world.url("alice/notes.txt")])
        #expect(own.status == 0, "\(own.stderr)")
        for arguments in [[world.url("bob/bob.txt")], ["-X", "PUT", "-d", "x", world.url("bob/planted.txt")], [world.listURL(prefix: nil)],
            [world.listURL(prefix: "bob/")]]
        {
            let denied = try world.request(asRole: aliceRole, tokenFile: aliceToken, arguments)
            #expect(denied.status == 1, "\(arguments): \(denied.stdout)")
            #expect(try CephRGWWorld.answer(denied).status == 403)
            #expect(try CephRGWWorld.answer(denied).body.contains("<Code>AccessDenied</Code>"))
        }
        let listed = try world.request(asRole: aliceRole, tokenFile: aliceToken, [world.listURL(prefix: "alice/")])
        #expect(try CephRGWWorld.answer(listed).body.contains("<Key>alice/notes.txt</Key>"))

        #expect(try alice.run(["rm", "notes.txt"]).status == 0)
        #expect(try alice.run(["list"]).stdout.isEmpty)
    }

    @Test(.timeLimit(.minutes(5)))
    func sessionTagsKeepEachTaggedUserInTheirFolder() async throws {
        let world = try await CephRGWWorld.start()
        defer { world.tearDown(strategy: "session-tags", users: ["alice", "bob"]) }
        let setUp = try world.setUp(strategy: "session-tags", users: ["alice", "bob"])
        let role = try #require(setUp["sharedRole"] as? String)
        #expect(role == "arn:aws:iam:::role/\(world.namePrefix)-tagged")
        #expect((setUp["roles"] as? [String: String])?["bob"] == role)

        let alice = try world.store()
        defer { alice.remove() }
        let aliceToken = try world.issuer.tokenFile(user: "alice", tags: ["sub": "alice"])
        try #require(try world.signIn(alice, tokenFile: aliceToken, role: role).status == 0)
        #expect(try alice.run(["put", try alice.makeFile("a.txt", size: 100, seed: 3)]).status == 0)
        #expect(try alice.run(["list"]).stdout == "a.txt\n")

        let bob = try world.store()
        defer { bob.remove() }
        let bobToken = try world.issuer.tokenFile(user: "bob", tags: ["sub": "bob"])
        try #require(try world.signIn(bob, tokenFile: bobToken, role: role).status == 0)
        #expect(try bob.run(["list"]).stdout.isEmpty)
        #expect(try bob.run(["put", try bob.makeFile("b.txt", size: 100, seed: 4)]).status == 0)
        #expect(try bob.run(["list"]).stdout == "b.txt\n")
        let denied = try world.request(asRole: role, tokenFile: bobToken, [world.url("alice/a.txt")])
        #expect(try CephRGWWorld.answer(denied).status == 403)

        // Without the tag the session reaches nothing, not even its own folder.
        let untagged = try world.store()
        defer { untagged.remove() }
        try #require(try world.signIn(untagged, tokenFile: try world.issuer.tokenFile(user: "bob"), role: role).status == 0)
        let nothing = try untagged.run(["list"])
        #expect(nothing.status == 4, "\(nothing.stderr)")
        #expect(nothing.stderr.contains("access denied"), "\(nothing.stderr)")

        // The tag, not the sub, decides: why the identity provider alone must set the tags.
        let mallory = try world.issuer.tokenFile(user: "mallory", tags: ["sub": "alice"])
        let borrowed = try world.request(asRole: role, tokenFile: mallory, [world.url("alice/a.txt")])
        #expect(try CephRGWWorld.answer(borrowed).status == 200)
    }

    @Test(.timeLimit(.minutes(5)))
    func aSessionPolicyFromTheTrustedServerNarrowsTheSharedRole() async throws {
        let world = try await CephRGWWorld.start()
        defer { world.tearDown(strategy: "session-policy", users: []) }
        let setUp = try world.setUp(strategy: "session-policy", users: [])
        let role = try #require(setUp["sharedRole"] as? String)
        #expect(role == "arn:aws:iam:::role/\(world.namePrefix)-broker")

        let serverToken = try world.issuer.tokenFile(user: "alice", audience: "wif-broker")
        let issued = try world.admin(["engine", "ceph-rgw", "credentials", "--role-arn", role, "--bucket", world.bucket, "--token-file", serverToken])
        try #require(issued.status == 0, "\(issued.stderr)")
        let credentials = try StoreFixture.object(issued)
        #expect(credentials["Version"] as? Int == 1)
        #expect(credentials["Prefix"] as? String == "alice/")
        #expect(!(credentials["SessionToken"] as? String ?? "").isEmpty)

        let put = try world.request(credentials: credentials, ["-X", "PUT", "-d", "hello", world.url("alice/hello.txt")])
        #expect(put.status == 0, "\(put.stdout)")
        let get = try world.request(credentials: credentials, [world.url("alice/hello.txt")])
        #expect(try CephRGWWorld.answer(get).body == "hello")
        #expect(try CephRGWWorld.answer(try world.request(credentials: credentials, [world.listURL(prefix: "alice/")])).status == 200)
        for arguments in [["-X", "PUT", "-d", "x", world.url("bob/x.txt")], [world.listURL(prefix: nil)], [world.listURL(prefix: "bob/")]] {
            #expect(try CephRGWWorld.answer(try world.request(credentials: credentials, arguments)).status == 403, "\(arguments)")
        }

        // A user's own token (the app's client id) does not open the shared role.
        let userToken = try world.issuer.tokenFile(user: "alice")
        let refused = try world.admin(["engine", "ceph-rgw", "credentials", "--role-arn", role, "--bucket", world.bucket, "--token-file", userToken])
        #expect(refused.status == 4, "\(refused.stderr)")
        // Why the server must never hand out its tokens: without the session policy they reach every folder.
        let unrestricted = try world.request(asRole: role, tokenFile: serverToken, ["-X", "PUT", "-d", "x", world.url("bob/x.txt")])
        #expect(try CephRGWWorld.answer(unrestricted).status == 200)
    }

    @Test(.timeLimit(.minutes(8)))
    func aLargeFileGoesUpInPartsAndComesBackIdentical() async throws {
        let world = try await CephRGWWorld.start()
        defer { world.tearDown(strategy: "role-per-user", users: ["alice"]) }
        let roles = try #require(try world.setUp(strategy: "role-per-user", users: ["alice"])["roles"] as? [String: String])
        let alice = try world.store()
        defer { alice.remove() }
        try #require(try world.signIn(alice, tokenFile: try world.issuer.tokenFile(user: "alice"), role: try #require(roles["alice"])).status == 0)

        let size = 80 * 1024 * 1024 + 777
        let big = try alice.makeFile("big.bin", size: size, seed: 9)
        let put = try alice.run(["put", big, "--json"])
        try #require(put.status == 0, "\(put.stderr)")
        let uploaded = try #require(try StoreFixture.object(put)["uploaded"] as? [[String: Any]])
        #expect(((uploaded.first?["parts"] as? NSNumber)?.intValue ?? 0) > 1, "\(uploaded)")
        #expect(try alice.run(["list", "--long"]).stdout.contains("\(size)  "))
        let copy = alice.path("big-copy.bin")
        let get = try alice.run(["get", "big.bin", "-o", copy])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(try StoreFixture.sha256(copy) == StoreFixture.sha256(big))
        #expect(try alice.run(["rm", "big.bin"]).status == 0)
    }

    @Test(.timeLimit(.minutes(5)))
    func theGatewaysRefusalsAreClearErrors() async throws {
        let world = try await CephRGWWorld.start()
        defer { world.tearDown(strategy: "role-per-user", users: ["alice"]) }
        let roles = try #require(try world.setUp(strategy: "role-per-user", users: ["alice"])["roles"] as? [String: String])
        let role = try #require(roles["alice"])
        let token = try world.issuer.tokenFile(user: "alice")
        let store = try world.store()
        defer { store.remove() }

        // A token whose signature was altered, one for an audience the provider does not list, and an
        // unknown role: RGW answers AccessDenied with no message for all three. The altered token fails
        // its own issuer's keys, so it is the token that was refused (3); the other two verify, so the
        // role refused them (4).
        let text = try String(contentsOfFile: token, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let forged = world.folder.appendingPathComponent("forged.jwt")
        try Data((String(text.dropLast(4)) + (text.hasSuffix("AAAA") ? "BBBB" : "AAAA")).utf8).write(to: forged)
        let refusedToken = try world.signIn(store, tokenFile: forged.path, role: role)
        #expect(refusedToken.status == 3, "\(refusedToken.stderr)")
        #expect(refusedToken.stderr.contains("does not verify against its issuer's keys"), "\(refusedToken.stderr)")
        for (file, roleArn) in [
            (try world.issuer.tokenFile(user: "alice", audience: "stranger"), role),
            (token, "arn:aws:iam:::role/\(world.namePrefix)-nobody"),
        ] {
            let refused = try world.signIn(store, tokenFile: file, role: roleArn)
            #expect(refused.status == 4, "\(refused.stderr)")
            #expect(refused.stderr.contains("with AccessDenied and no reason"), "\(refused.stderr)")
        }
        let expired = try world.issuer.tokenFile(user: "alice", ttl: 1)
        try await Task.sleep(for: .seconds(2))
        let late = try world.signIn(store, tokenFile: expired, role: role)
        #expect(late.status == 3, "\(late.stderr)")
        #expect(late.stderr.contains("expired"))

        try #require(try world.signIn(store, tokenFile: token, role: role).status == 0)
        let missing = try store.run(["get", "nothing.txt", "-o", store.path("nothing.txt")])
        #expect(missing.status == 5, "\(missing.stderr)")
        #expect(missing.stderr.contains("no file named 'nothing.txt'"), "\(missing.stderr)")

        // IAM: a wrong administrator secret, an issuer RGW cannot use, and a user id that would widen a folder.
        let badSecret = try world.admin(
            ["engine", "ceph-rgw", "setup"] + world.planArguments(strategy: "role-per-user", users: ["alice"]),
            extra: ["WIF_CEPH_RGW_SECRET_KEY": "not-the-secret"])
        // RGW answers AccessDenied, not SignatureDoesNotMatch, for a wrong secret.
        #expect(badSecret.status == 4, "\(badSecret.stderr)")
        #expect(badSecret.stderr.contains("check the administrator's access key and secret"), "\(badSecret.stderr)")

        let elsewhere = try await CephRGWIssuer.start(in: try ToolRunner.temporaryDirectory(), ownURL: false)
        defer {
            elsewhere.stop()
            try? FileManager.default.removeItem(at: elsewhere.folder)
        }
        let wrongIssuer = try world.admin(["engine", "ceph-rgw", "setup", "--issuer-url", elsewhere.url, "--bucket", world.bucket])
        #expect(wrongIssuer.status == 7, "\(wrongIssuer.stderr)")
        #expect(wrongIssuer.stderr.contains("names the issuer 'https://wif.localhost'"), "\(wrongIssuer.stderr)")

        let widening = try world.admin(["engine", "ceph-rgw", "setup"] + world.planArguments(strategy: "role-per-user", users: ["a*"]))
        #expect(widening.status == 64, "\(widening.stderr)")
        #expect(widening.stderr.contains("wildcard"))

        // Removing twice: what is gone is skipped, whatever shape RGW's answer has.
        for _ in 0..<2 {
            let removed = try world.admin(["engine", "ceph-rgw", "remove"] + world.planArguments(strategy: "role-per-user", users: ["alice"]))
            #expect(removed.status == 0, "\(removed.stderr)")
        }
        let gone = try world.signIn(store, tokenFile: token, role: role)
        #expect(gone.status == 4, "\(gone.stderr)")
    }
}
