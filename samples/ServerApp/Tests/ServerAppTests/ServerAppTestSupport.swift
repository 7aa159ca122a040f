import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ServerApp
import Synchronization
import Testing
import WIFCredentials
import WIFLocal
import WIFTestSupport

/// The file server running against an in-process local stack, and a client for it.
struct ServerFixture: Sendable {
    let client: any TestClientProtocol
    let endpoint: LocalEndpoint

    /// A development Google ID token of `user`, genuine for the stack's issuer.
    func token(_ user: String, ttl: Int = 3600) throws -> String {
        try self.endpoint.developmentToken(provider: "google", user: user, ttl: ttl).token
    }

    /// Sends a request, with `Authorization: Bearer <token>` when a token is given.
    func send(
        _ method: HTTPRequest.Method, _ uri: String, token: String?, body: [UInt8]? = nil, headers: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers = headers
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await self.client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) })
    }

    /// Sends a request with a text body.
    func send(_ method: HTTPRequest.Method, _ uri: String, token: String?, text: String) async throws -> TestResponse {
        try await self.send(method, uri, token: token, body: Array(text.utf8))
    }

    /// The names and sizes `GET /files` lists for a token.
    func listing(_ token: String, prefix: String? = nil) async throws -> [FileEntry] {
        let response = try await self.send(.get, "/files" + (prefix.map { "?prefix=\($0)" } ?? ""), token: token)
        #expect(response.status == .ok)
        return try ServerAppTestSupport.decode(FileListing.self, response).files
    }
}

enum ServerAppTestSupport {
    static let silentLogger = Logger(label: "server-app-tests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs `test` against a file server whose users federate into the local stack's Google role, each
    /// folder being `google/<subject>/` of the stack's bucket. Everything lives in a temporary folder
    /// removed afterwards.
    static func withServer(
        clock: TestClock? = nil,
        configure: (inout FileServer.Configuration) -> Void = { _ in },
        _ test: @Sendable (ServerFixture) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("server-app-tests-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var local = LocalConfiguration.default(dataDirectory: (directory as NSString).appendingPathComponent("stack"))
        local.port = 0
        let timeSource = clock?.timeSource ?? .system
        try await LocalStack.run(local, timeSource: timeSource) { endpoint in
            let role = try #require(endpoint.federation.role(forProvider: "google"))
            var configuration = FileServer.Configuration(
                roleArn: try #require(endpoint.roleArn(forProvider: "google")),
                bucket: try #require(role.bucket),
                partitionTemplate: try #require(role.partitionTemplate),
                region: endpoint.configuration.region,
                stsEndpoint: endpoint.url,
                s3Endpoint: endpoint.url
            )
            configuration.spoolDirectory = (directory as NSString).appendingPathComponent("spool")
            configure(&configuration)
            let app = try buildApplication(configuration: configuration, timeSource: timeSource, logger: Self.silentLogger)
            try await app.test(.live) { client in
                try await test(ServerFixture(client: client, endpoint: endpoint))
            }
        }
    }

    /// Decodes a JSON body.
    static func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: Data(response.body.readableBytesView))
    }

    /// The error body of a refused request.
    static func error(_ response: TestResponse) throws -> FileServerError.Body {
        #expect(response.headers[.contentType] == "application/json; charset=utf-8")
        return try Self.decode(FileServerError.Body.self, response)
    }

    /// The body as text.
    static func text(_ response: TestResponse) -> String {
        String(buffer: response.body)
    }
}
