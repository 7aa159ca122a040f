import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ServerApp
import Testing
import WIFLocal
import WIFTestSupport

/// The file server against the in-process local stack: real tokens, real STS and S3 with the role's
/// policies, over loopback HTTP.
@Suite(.takesTurnsWithToolRuns, .timeLimit(.minutes(10)))
struct FileServerTests {
    typealias Support = ServerAppTestSupport

    @Test func aliceStoresListsReadsAndDeletesHerFiles() async throws {
        try await Support.withServer { server in
            let alice = try server.token("alice")
            let photo = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }

            let stored = try await server.send(
                .put, "/files/notes/today.txt", token: alice, body: Array("hello, alice".utf8), headers: [.contentType: "text/plain"])
            #expect(stored.status == .created)
            let receipt = try Support.decode(StoredFile.self, stored)
            #expect(receipt.name == "notes/today.txt")
            #expect(receipt.size == 12)
            #expect(receipt.eTag?.isEmpty == false)
            #expect(try await server.send(.put, "/files/photo.bin", token: alice, body: photo).status == .created)

            let files = try await server.listing(alice)
            #expect(files.map(\.name) == ["notes/today.txt", "photo.bin"])
            #expect(files.map(\.size) == [12, Int64(photo.count)])
            #expect(try await server.listing(alice, prefix: "notes/").map(\.name) == ["notes/today.txt"])

            let note = try await server.send(.get, "/files/notes/today.txt", token: alice)
            #expect(note.status == .ok)
            #expect(Support.text(note) == "hello, alice")
            #expect(note.headers[.contentType] == "text/plain")
            let downloaded = try await server.send(.get, "/files/photo.bin", token: alice)
            #expect(downloaded.status == .ok)
            #expect(Array(downloaded.body.readableBytesView) == photo)
            #expect(downloaded.headers[.contentLength] == String(photo.count))

            #expect(try await server.send(.delete, "/files/notes/today.txt", token: alice).status == .noContent)
            #expect(try await server.listing(alice).map(\.name) == ["photo.bin"])
            let gone = try await server.send(.get, "/files/notes/today.txt", token: alice)
            #expect(gone.status == .notFound)
            #expect(try Support.error(gone).error == "NoSuchFile")
        }
    }

    @Test func bobSeesNoneOfAlicesFilesAndCannotReachThem() async throws {
        try await Support.withServer { server in
            let alice = try server.token("alice")
            let bob = try server.token("bob")
            #expect(try await server.send(.put, "/files/secret.txt", token: alice, text: "alice's secret").status == .created)

            // Bob's folder is his own: alice's file is not in it.
            #expect(try await server.listing(bob).isEmpty)
            let fetched = try await server.send(.get, "/files/secret.txt", token: bob)
            #expect(fetched.status == .notFound)
            #expect(try Support.error(fetched).error == "NoSuchFile")
            #expect(!Support.text(fetched).contains("alice's secret"))

            // Deleting and writing the same name touch only bob's folder.
            #expect(try await server.send(.delete, "/files/secret.txt", token: bob).status == .noContent)
            #expect(try await server.send(.put, "/files/secret.txt", token: bob, text: "bob's note").status == .created)
            #expect(Support.text(try await server.send(.get, "/files/secret.txt", token: alice)) == "alice's secret")
            #expect(Support.text(try await server.send(.get, "/files/secret.txt", token: bob)) == "bob's note")
            #expect(try await server.listing(alice).map(\.size) == [14])

            // A path out of his folder is refused before any request reaches S3.
            let escape = try await server.send(.get, "/files/../alice/secret.txt", token: bob)
            #expect(escape.status == .badRequest)
            #expect(try Support.error(escape).error == "InvalidName")
        }
    }

    @Test func anIdentityTheRoleDoesNotTrustIsForbidden() async throws {
        try await Support.withServer { server in
            // A genuine token of the stack's own OIDC issuer, which the Google role's trust policy does not name.
            let outsider = try server.endpoint.developmentToken(provider: "oidc", user: "carol").token
            let response = try await server.send(.get, "/files", token: outsider)
            #expect(response.status == .forbidden)
            let error = try Support.error(response)
            #expect(error.error == "AccessDenied")
            #expect(error.message.contains("may not assume the role"))
        }
    }

    @Test func requestsWithoutAnAcceptedTokenAreUnauthorized() async throws {
        try await Support.withServer { server in
            let missing = try await server.send(.get, "/files", token: nil)
            #expect(missing.status == .unauthorized)
            #expect(missing.headers[.wwwAuthenticate] == "Bearer")
            #expect(try Support.error(missing).message.contains("Authorization: Bearer"))

            let basic = try await server.send(.get, "/files", token: nil, headers: [.authorization: "Basic YWxpY2U6c2VjcmV0"])
            #expect(basic.status == .unauthorized)
            #expect(try Support.error(basic).message.contains("Bearer scheme"))

            let garbage = "this-is-not-a-token-at-all"
            let refused = try await server.send(.put, "/files/x.txt", token: garbage, text: "never stored")
            #expect(refused.status == .unauthorized)
            let error = try Support.error(refused)
            #expect(error.error == "Unauthorized")
            #expect(error.message.contains("InvalidIdentityToken"))
            #expect(!Support.text(refused).contains(garbage))
        }
    }

    @Test func forgedAndTamperedTokensAreUnauthorized() async throws {
        try await Support.withServer { server in
            let alice = try server.token("alice")
            #expect(try await server.send(.put, "/files/mine.txt", token: alice, text: "alice's").status == .created)

            // Same issuer, audience and subject, signed by another stack's key.
            let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("server-app-forger-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: elsewhere) }
            let forged = try LocalFederation(configuration: .default(dataDirectory: elsewhere))
                .developmentToken(provider: "google", user: "alice").token
            // Alice's genuine token with its subject changed to bob, signature kept.
            let tampered = try Self.replacingSubject(of: alice, with: "bob")

            for token in [forged, tampered] {
                let response = try await server.send(.get, "/files/mine.txt", token: token)
                #expect(response.status == .unauthorized)
                #expect(try Support.error(response).error == "Unauthorized")
                #expect(!Support.text(response).contains(token))
            }
            // The genuine token still works: the refusals were about the tokens.
            #expect(Support.text(try await server.send(.get, "/files/mine.txt", token: alice)) == "alice's")
        }
    }

    @Test func namesThatWouldLeaveTheFolderAreRefusedWithTheRule() async throws {
        try await Support.withServer { server in
            let alice = try server.token("alice")
            let cases: [(path: String, rule: String)] = [
                ("../bob/secret.txt", "must not contain a '.' or '..' segment"),
                ("notes/../../bob/x", "must not contain a '.' or '..' segment"),
                ("./x", "must not contain a '.' or '..' segment"),
                ("a//b", "must not contain an empty segment ('//')"),
                ("folder/", "must not end with '/'"),
                ("back%5Cslash", "must not contain a backslash ('\\')"),
            ]
            for (path, rule) in cases {
                for method in [HTTPRequest.Method.put, .get, .delete] {
                    let response = try await server.send(method, "/files/" + path, token: alice, text: "x")
                    #expect(response.status == .badRequest, "\(method) \(path)")
                    let error = try Support.error(response)
                    #expect(error.error == "InvalidName")
                    #expect(error.rule == rule, "\(method) \(path)")
                }
            }
            #expect(try await server.listing(alice).isEmpty)
        }
    }

    @Test func uploadsOverTheLimitAreRefused() async throws {
        try await Support.withServer(configure: { $0.maximumUploadBytes = 1024 }) { server in
            let alice = try server.token("alice")
            #expect(try await server.send(.put, "/files/small.bin", token: alice, body: Array(repeating: 1, count: 1024)).status == .created)
            let large = try await server.send(.put, "/files/large.bin", token: alice, body: Array(repeating: 2, count: 1025))
            #expect(large.status == .contentTooLarge)
            #expect(try Support.error(large).error == "TooLarge")
            #expect(try await server.listing(alice).map(\.name) == ["small.bin"])
        }
    }

    @Test func aSessionEndsWhenItsTokenExpires() async throws {
        // At the real time, so that the dates the servers write in their answers agree with it.
        let clock = TestClock(now: Date())
        try await Support.withServer(clock: clock) { server in
            let alice = try server.token("alice", ttl: 600)
            #expect(try await server.send(.put, "/files/a.txt", token: alice, text: "a").status == .created)
            clock.advance(by: 300)
            #expect(try await server.listing(alice).map(\.name) == ["a.txt"])

            // The cached credentials would still be valid for another half hour; the token is not.
            clock.advance(by: 301)
            let expired = try await server.send(.get, "/files", token: alice)
            #expect(expired.status == .unauthorized)
            #expect(try Support.error(expired).message.contains("expired"))
            // A fresh token of the same user reaches the same folder.
            #expect(try await server.listing(try server.token("alice")).map(\.name) == ["a.txt"])
        }
    }

    /// A JWT with its payload's `sub` replaced and its header and signature kept.
    static func replacingSubject(of token: String, with subject: String) throws -> String {
        var segments = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(segments.count == 3)
        var base64 = segments[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let payload = try #require(Data(base64Encoded: base64))
        var claims = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
        #expect(claims["sub"] as? String == "alice")
        claims["sub"] = subject
        segments[1] = try JSONSerialization.data(withJSONObject: claims).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return segments.joined(separator: ".")
    }
}
