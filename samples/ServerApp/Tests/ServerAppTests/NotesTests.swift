import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServerApp
import Testing
import WIFAPIServer
import WIFLocal

/// The notes API: the API middleware on the app's own routes, with the access rules applied to its
/// records.
@Suite(.takesTurnsWithToolRuns, .timeLimit(.minutes(10)))
struct NotesTests {
    static let key = "da2-notes-test-key"

    @Test func ownersWriteAndReadTheirNotesAndAnAPIKeyReads() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("notes-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var local = LocalConfiguration.default(dataDirectory: directory + "/stack")
        local.port = 0
        try await LocalStack.run(local) { endpoint in
            var configuration = FileServer.Configuration(roleArn: "arn:aws:iam::000000000000:role/personal-store-google", bucket: "wif-personal")
            configuration.stsEndpoint = endpoint.url
            configuration.s3Endpoint = endpoint.url
            configuration.spoolDirectory = directory + "/spool"
            configuration.notes = FileServer.NotesAPI(
                issuer: "https://accounts.google.com", clientIds: ["wif-local.apps.googleusercontent.com"],
                jwksURL: "\(endpoint.url)/.well-known/jwks.json", apiKeys: [APIKey(name: "test", value: Self.key)])
            let app = try buildApplication(configuration: configuration, logger: ServerAppTestSupport.silentLogger)
            try await app.test(.live) { client in
                let alice = try endpoint.developmentToken(provider: "google", user: "alice").token
                let bob = try endpoint.developmentToken(provider: "google", user: "bob").token
                func send(_ method: HTTPRequest.Method, _ uri: String, _ headers: HTTPFields, _ body: String? = nil) async throws -> TestResponse {
                    try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
                }
                let created = try await send(.post, "/notes", [.authorization: alice], #"{"text":"hello"}"#)
                #expect(created.status == .created)
                let note = try #require(try JSONSerialization.jsonObject(with: Data(buffer: created.body)) as? [String: Any])
                #expect(note["owner"] as? String == "alice")
                let id = try #require(note["id"] as? String)

                #expect(try await send(.get, "/notes/\(id)", [.authorization: alice]).status == .ok)
                let refused = try await send(.get, "/notes/\(id)", [.authorization: bob])
                #expect(refused.status == .forbidden)
                #expect(String(buffer: refused.body).contains("ForbiddenException"))
                #expect(String(buffer: try await send(.get, "/notes", [.authorization: bob]).body) == #"{"items":[]}"#)
                let keyed = try await send(.get, "/notes/\(id)", [APIAuthenticator.apiKeyHeader: Self.key])
                #expect(keyed.status == .ok)
                // An API key may read but not write.
                #expect(try await send(.post, "/notes", [APIAuthenticator.apiKeyHeader: Self.key], #"{"text":"x"}"#).status == .forbidden)
                // No credentials, or a bad key: 401 with the mode's error.
                let none = try await send(.get, "/notes", [:])
                #expect(none.status == .unauthorized)
                #expect(String(buffer: none.body).contains("UnauthorizedException"))
                #expect(try await send(.get, "/notes", [APIAuthenticator.apiKeyHeader: "da2-wrong"]).status == .unauthorized)
                // Bob cannot create a note in Alice's name.
                #expect(try await send(.post, "/notes", [.authorization: bob], #"{"text":"x","owner":"alice"}"#).status == .forbidden)
            }
        }
    }
}
