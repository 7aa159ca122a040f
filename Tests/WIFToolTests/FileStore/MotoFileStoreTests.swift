import Foundation
import Testing
import WIFTestSupport

/// The same transfers against a third-party STS and S3 (`moto_server`), reached with `--endpoint`.
/// Moto accepts any token and enforces no policy, so cross-user denial is not tested here.
@Suite(.enabled(if: MotoPeer.isAvailable, MotoPeer.skipReason), .oneToolRunAtATime)
struct MotoFileStoreTests {
    static let bucket = "wif-tool-tests"
    static let roleArn = "arn:aws:iam::123456789012:role/personal-store"

    /// A token shaped like an OIDC ID token (moto checks no signature), valid for an hour.
    static func token(subject: String) -> String {
        func base64URL(_ text: String) -> String {
            Data(text.utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let expiry = Int(Date().timeIntervalSince1970) + 3600
        return base64URL(#"{"alg":"RS256","kid":"k","typ":"JWT"}"#) + "."
            + base64URL(#"{"iss":"https://accounts.example.com","sub":"\#(subject)","aud":"wif-tests","exp":\#(expiry)}"#)
            + ".c2lnbmF0dXJlLW5vdC1jaGVja2Vk"
    }

    /// Signs `subject` in against moto with a token file, endpoint and bucket from the environment.
    static func signIn(_ fixture: inout StoreFixture, server: MotoPeer, subject: String) throws -> [String: Any] {
        fixture.environment = ["WIF_ENDPOINT": server.endpoint, "WIF_BUCKET": Self.bucket]
        let tokenFile = fixture.path("\(subject).jwt")
        try Data((Self.token(subject: subject) + "\n").utf8).write(to: URL(fileURLWithPath: tokenFile))
        let login = try fixture.run(["login", "--token-file", tokenFile, "--role-arn", Self.roleArn, "--json"])
        try #require(login.status == 0, "\(login.stderr)")
        return try StoreFixture.object(login)
    }

    @Test(.timeLimit(.minutes(10)))
    func smallAndLargeFilesRoundTripThroughMoto() async throws {
        try await MotoPeer.withServer(bucket: Self.bucket) { server in
            var fixture = try StoreFixture()
            defer { fixture.remove() }
            let signedIn = try Self.signIn(&fixture, server: server, subject: "alice")
            #expect(signedIn["subject"] as? String == "alice")
            #expect(signedIn["provider"] as? String == "oidc")
            #expect(signedIn["prefix"] as? String == "alice/")
            #expect(signedIn["endpoint"] as? String == server.endpoint)
            let whoami = try StoreFixture.object(try fixture.run(["whoami", "--json"]))
            #expect(whoami["bucket"] as? String == Self.bucket)
            #expect(whoami["role"] as? String == Self.roleArn)
            #expect((whoami["tokenSource"] as? String)?.hasPrefix("file ") == true)

            let small = try fixture.makeFile("notes.txt", size: 4321, seed: 5)
            let big = try fixture.makeFile("big.bin", size: 64 * 1024 * 1024 + 777, seed: 6)
            let put = try fixture.run(["put", small, big, "--json"])
            try #require(put.status == 0, "\(put.stderr)")
            let uploaded = try #require(try StoreFixture.object(put)["uploaded"] as? [[String: Any]])
            #expect(((uploaded.last?["parts"] as? NSNumber)?.intValue ?? 0) > 1, "\(uploaded)")

            let list = try fixture.run(["list", "--long"])
            #expect(list.status == 0, "\(list.stderr)")
            #expect(list.stdout.contains("4321  "))
            #expect(list.stdout.contains("\(64 * 1024 * 1024 + 777)  "))
            #expect(try fixture.run(["list"]).stdout == "big.bin\nnotes.txt\n")

            for (name, original) in [("notes.txt", small), ("big.bin", big)] {
                let copy = fixture.path("copy-\(name)")
                let get = try fixture.run(["get", name, "-o", copy])
                #expect(get.status == 0, "\(get.stderr)")
                #expect(try StoreFixture.sha256(copy) == StoreFixture.sha256(original), "\(name)")
            }

            let refused = try fixture.run(["put", small, "--as", "../bob/notes.txt"])
            #expect(refused.status == 64)
            #expect(refused.stderr.contains("must not contain a '.' or '..' segment"))

            let rm = try fixture.run(["rm", "big.bin", "notes.txt"])
            #expect(rm.status == 0, "\(rm.stderr)")
            #expect(try fixture.run(["list"]).stdout.isEmpty)
            let missing = try fixture.run(["get", "notes.txt", "-o", fixture.path("gone")])
            #expect(missing.status == 5, "\(missing.stderr)")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func usersKeepSeparateFoldersOnMoto() async throws {
        try await MotoPeer.withServer(bucket: Self.bucket) { server in
            var fixture = try StoreFixture()
            defer { fixture.remove() }
            _ = try Self.signIn(&fixture, server: server, subject: "alice")
            let file = try fixture.makeFile("photos/cat.jpg", size: 2048, seed: 8)
            #expect(try fixture.run(["put", "-r", fixture.path("photos")]).status == 0)

            var other = try StoreFixture()
            defer { other.remove() }
            let bob = try Self.signIn(&other, server: server, subject: "bob")
            #expect(bob["prefix"] as? String == "bob/")
            #expect(try other.run(["list"]).stdout.isEmpty)
            #expect(try fixture.run(["list"]).stdout == "photos/cat.jpg\n")

            let out = fixture.work.appendingPathComponent("restored")
            let get = try fixture.run(["get", "-r", "photos/", "-o", out.path])
            #expect(get.status == 0, "\(get.stderr)")
            #expect(try StoreFixture.sha256(out.appendingPathComponent("cat.jpg").path) == StoreFixture.sha256(file))
        }
    }
}
