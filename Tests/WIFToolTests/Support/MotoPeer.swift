import Foundation
import WIFFoundation
import Testing
import WIFTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The shared moto launcher as the wif-tool tests use it: a third-party STS and S3 for running
/// `wif-tool --endpoint` against, with a bucket made in it. Moto accepts any token and does not
/// enforce policies.
struct MotoPeer: Sendable {
    let server: MotoServer

    /// `http://127.0.0.1:<port>`.
    var endpoint: String { self.server.endpoint.absoluteString }

    static var isAvailable: Bool { MotoServer.isAvailable }
    static var skipReason: Comment { Comment(rawValue: MotoServer.skipReasonText) }

    /// Where an executable is on `PATH`, if it is.
    static func onPath(_ name: String) -> URL? { MotoServer.onPath(name) }
    /// A loopback port that was free a moment ago.
    static func freePort() throws -> Int { try Loopback.freePort() }
    /// Whether something listens on a loopback port.
    static func accepts(port: Int) -> Bool { Loopback.acceptsConnections(port: port) }

    /// Runs `body` with a fresh server in which `bucket` exists, and stops the server afterwards.
    static func withServer<T>(bucket: String, _ body: (MotoPeer) async throws -> T) async throws -> T {
        try await MotoServer.withServer { server in
            let peer = MotoPeer(server: server)
            try await peer.createBucket(bucket)
            return try await body(peer)
        }
    }

    /// Stores an object with an unsigned request, whatever its key holds (control characters included),
    /// as another S3 client could.
    func putObject(bucket: String, key: String, body: Data, headers: [String: String] = [:]) async throws {
        let encoded = PercentEncoding.encode(key, keepingSlashes: true)
        guard let url = URL(string: "\(self.endpoint)/\(bucket)/\(encoded)") else { throw ToolError("bad object URL for \(encoded)") }
        var request = URLRequest(url: url)
        request.httpMethod = "PUT"
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let status = try await Self.status(of: request)
        guard status == 200 else { throw ToolError("storing \(encoded) on moto answered HTTP \(status)") }
    }

    /// Creates a bucket with an unsigned request (moto does not check signatures by default).
    func createBucket(_ name: String) async throws {
        guard let url = URL(string: "\(self.endpoint)/\(name)") else { throw ToolError("bad bucket URL") }
        var request = URLRequest(url: url)
        request.httpMethod = "PUT"
        let status = try await Self.status(of: request)
        guard status == 200 else { throw ToolError("creating bucket \(name) on moto answered HTTP \(status)") }
    }

    /// Sends `request` and returns the answer's status.
    private static func status(of request: URLRequest) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            URLSession.shared.dataTask(with: request) { _, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: (response as? HTTPURLResponse)?.statusCode ?? 0)
                }
            }.resume()
        }
    }
}
