import Foundation
import Testing
import WIFTestSupport

/// `login --identity-pool` on the embedded stack's default pool, and Amplify's folders through
/// `--level`: guests read `public/` and write nothing, a guest who signs in keeps the identity id,
/// signed-in users write their own `private/` and `protected/` folders and read each other's
/// `protected/` folder but not the `private/` one, and a group claim makes an admin. Every answer comes
/// from the local S3 enforcing the roles' policies.
///
/// Serialized: each test waits on many command runs, and one waiting test at a time leaves threads free.
@Suite(.serialized, .oneToolRunAtATime) struct IdentityPoolCommandTests {
    static let pool = "us-east-1:00000000-0000-4000-8000-000000000001"
    static let authenticatedRole = "arn:aws:iam::000000000000:role/identity-pool-authenticated"

    /// Signs in and returns `whoami --json`.
    static func signIn(_ fixture: StoreFixture, _ arguments: [String], account: String? = nil) throws -> [String: Any] {
        let accountFlag = account.map { ["--account", $0] } ?? []
        let login = try fixture.run(["login", "--identity-pool", Self.pool] + arguments + accountFlag)
        #expect(login.status == 0, "\(login.stderr)")
        let whoami = try fixture.run(["whoami", "--json"] + accountFlag)
        #expect(whoami.status == 0, "\(whoami.stderr)")
        return try StoreFixture.object(whoami)
    }

    @Test func aGuestReadsPublicWritesNothingAndKeepsTheIdentityWhenSigningIn() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let note = try fixture.makeFile("note.txt", size: 300)

        let guest = try Self.signIn(fixture, ["--guest"])
        let guestId = try #require(guest["identityId"] as? String)
        #expect(guest["roleReason"] as? String == "guest")
        #expect(guest["role"] as? String == "arn:aws:iam::000000000000:role/identity-pool-unauthenticated")
        #expect(guest["identityPool"] as? String == Self.pool)
        #expect(guest["prefix"] as? String == "private/\(guestId)/")
        for level in ["public", "private", "protected"] {
            let put = try fixture.run(["put", note, "--level", level])
            #expect(put.status == 4, "a guest wrote to \(level): \(put.stdout) \(put.stderr)")
        }

        // A signed-in user writes public/, which a guest of another account reads.
        let writer = try Self.signIn(fixture, ["--dev", "walter"], account: "walter")
        #expect(writer["roleReason"] as? String == "authenticated")
        #expect(try fixture.run(["put", note, "--level", "public", "--account", "walter"]).status == 0)
        let listed = try fixture.run(["list", "--level", "public"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.split(separator: "\n").contains("note.txt"), "\(listed.stdout)")
        let got = try fixture.run(["get", "note.txt", "--level", "public", "-o", fixture.path("back.txt")])
        #expect(got.status == 0, "\(got.stderr)")
        #expect(try StoreFixture.sha256(fixture.path("back.txt")) == StoreFixture.sha256(note))
        #expect(try fixture.run(["rm", "note.txt", "--level", "public"]).status == 4)

        // The guest signs in: same identity, now the authenticated role, and its own folders open.
        let signedIn = try Self.signIn(fixture, ["--dev", "alice"])
        #expect(signedIn["identityId"] as? String == guestId)
        #expect(signedIn["subject"] as? String == guestId)
        #expect(signedIn["role"] as? String == Self.authenticatedRole)
        #expect(signedIn["roleReason"] as? String == "authenticated")
        #expect(signedIn["provider"] as? String == "google")
        for level in ["private", "protected", "public"] {
            let put = try fixture.run(["put", note, "--level", level])
            #expect(put.status == 0, "\(level): \(put.stderr)")
            #expect(put.stdout.contains(level == "public" ? "s3://wif-personal/public/note.txt" : "s3://wif-personal/\(level)/\(guestId)/note.txt"), "\(put.stdout)")
        }
        // Signing in again later (the stack restarted in between) finds the same identity.
        #expect(try Self.signIn(fixture, ["--dev", "alice"], account: "again")["identityId"] as? String == guestId)
    }

    @Test func usersReadEachOthersProtectedFoldersButNotTheirPrivateOnes() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let secret = try fixture.makeFile("secret.txt", size: 100, seed: 1)
        let shared = try fixture.makeFile("shared.txt", size: 200, seed: 2)
        let alice = try #require(try Self.signIn(fixture, ["--dev", "alice"], account: "alice")["identityId"] as? String)
        let bob = try #require(try Self.signIn(fixture, ["--dev", "bob"], account: "bob")["identityId"] as? String)
        #expect(alice != bob)
        #expect(try fixture.run(["put", secret, "--account", "alice"]).status == 0)
        #expect(try fixture.run(["put", shared, "--level", "protected", "--account", "alice"]).status == 0)

        // The default level is private: alice lists her own file, bob lists nothing of hers.
        #expect(try fixture.run(["list", "--account", "alice"]).stdout == "secret.txt\n")
        #expect(try fixture.run(["list", "--account", "bob"]).stdout == "")

        let protected = try fixture.run(["list", "--level", "protected", "--identity", alice, "--account", "bob"])
        #expect(protected.status == 0, "\(protected.stderr)")
        #expect(protected.stdout == "shared.txt\n")
        let got = try fixture.run(["get", "shared.txt", "--level", "protected", "--identity", alice, "-o", fixture.path("copy.txt"), "--account", "bob"])
        #expect(got.status == 0, "\(got.stderr)")
        #expect(try StoreFixture.sha256(fixture.path("copy.txt")) == StoreFixture.sha256(shared))

        let privateList = try fixture.run(["list", "--level", "private", "--identity", alice, "--account", "bob"])
        #expect(privateList.status == 4, "\(privateList.stdout)")
        let privateGet = try fixture.run(["get", "secret.txt", "--level", "private", "--identity", alice, "-o", fixture.path("stolen.txt"), "--account", "bob"])
        #expect(privateGet.status == 4 || privateGet.status == 5, "\(privateGet.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.path("stolen.txt")))
        // Bob's name in alice's protected folder is his own folder's: put has no --identity.
        let put = try fixture.run(["put", shared, "--level", "protected", "--identity", alice, "--account", "bob"])
        #expect(put.status == 64, "\(put.stderr)")
    }

    @Test func aGroupClaimMakesAnAdminWhoReadsEveryFolder() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let file = try fixture.makeFile("a.txt", size: 10)
        let alice = try #require(try Self.signIn(fixture, ["--dev", "alice"], account: "alice")["identityId"] as? String)
        #expect(try fixture.run(["put", file, "--account", "alice"]).status == 0)

        let token = try fixture.run(["local", "token", "--provider", "cognito-idp", "--user", "carol", "--group", "admin"])
        #expect(token.status == 0, "\(token.stderr)")
        let admin = try Self.signIn(fixture, ["--token", token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)], account: "carol")
        #expect(admin["role"] as? String == "arn:aws:iam::000000000000:role/identity-pool-admin")
        #expect(admin["roleReason"] as? String == "rule")
        #expect(admin["provider"] as? String == "cognito-idp")
        let listed = try fixture.run(["list", "--level", "private", "--identity", alice, "--account", "carol"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout == "a.txt\n")

        // Without the group, the same provider's user gets the authenticated role.
        let plain = try fixture.run(["local", "token", "--provider", "cognito-idp", "--user", "dave"])
        let user = try Self.signIn(fixture, ["--token", plain.stdout.trimmingCharacters(in: .whitespacesAndNewlines)], account: "dave")
        #expect(user["role"] as? String == Self.authenticatedRole)
        #expect(try fixture.run(["list", "--level", "private", "--identity", alice, "--account", "dave"]).status == 4)
    }

    @Test func expiredCredentialsAreRenewedForTheSameIdentity() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let file = try fixture.makeFile("a.txt", size: 10)
        for (account, arguments) in [("guest", ["--guest"]), ("alice", ["--dev", "alice"])] {
            let before = try Self.signIn(fixture, arguments, account: account)
            try fixture.expireStoredCredentials(account: account)
            let level = account == "guest" ? "public" : "private"
            let listed = try fixture.run(["list", "--level", level, "--account", account])
            #expect(listed.status == 0, "\(account): \(listed.stderr)")
            let after = try StoreFixture.object(try fixture.run(["whoami", "--json", "--account", account]))
            #expect(after["identityId"] as? String == before["identityId"] as? String)
            #expect(after["credentialsExpired"] as? Bool == false, "\(account) was not renewed")
            #expect(after["credentialsExpiration"] as? String != nil)
        }
        #expect(try fixture.run(["put", file, "--account", "alice"]).status == 0)
    }

    @Test func badInputIsRefusedBeforeAnythingIsSent() throws {
        let fixture = try StoreFixture()
        defer { fixture.remove() }
        let cases: [(arguments: [String], message: String)] = [
            (["login", "--guest"], "--guest and --cognito-endpoint go with --identity-pool ID"),
            (["login", "--identity-pool", "not-a-pool", "--guest"], "--identity-pool"),
            (["login", "--identity-pool", Self.pool, "--guest", "--dev", "alice"], "--guest signs in without a token"),
            (["login", "--identity-pool", Self.pool, "--dev", "alice", "--partition-template", "{id}/"], "--partition-template does not go with --identity-pool"),
        ]
        for (arguments, message) in cases {
            let result = try fixture.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let unknown = try fixture.run(["login", "--identity-pool", "us-east-1:00000000-0000-4000-8000-0000000000ff", "--guest"])
        #expect(unknown.status == 64, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("no identity pool us-east-1:00000000-0000-4000-8000-0000000000ff"), "\(unknown.stderr)")

        // --level needs an identity-pool sign-in, and --identity an id and a level other than public.
        #expect(try fixture.run(["login", "--dev", "alice"]).status == 0)
        let level = try fixture.run(["list", "--level", "public"])
        #expect(level.status == 64 && level.stderr.contains("--level needs an identity-pool sign-in"), "\(level.stderr)")
        _ = try Self.signIn(fixture, ["--dev", "alice"])
        for identity in ["../other", "us-east-1:../x", ""] {
            let result = try fixture.run(["list", "--level", "protected", "--identity", identity])
            #expect(result.status == 64, "'\(identity)': \(result.stderr)")
        }
        let publicIdentity = try fixture.run(["list", "--level", "public", "--identity", "us-east-1:00000000-0000-4000-8000-000000000002"])
        #expect(publicIdentity.status == 64 && publicIdentity.stderr.contains("public/ is everyone's"), "\(publicIdentity.stderr)")
        let noLevel = try fixture.run(["list", "--identity", "us-east-1:00000000-0000-4000-8000-000000000002"])
        #expect(noLevel.status == 64 && noLevel.stderr.contains("--identity goes with --level"), "\(noLevel.stderr)")
    }
}
