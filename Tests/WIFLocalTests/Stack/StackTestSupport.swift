import AsyncHTTPClient
import Foundation
import WIFTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import NIOCore
import Synchronization
@testable import WIFLocal

/// Data directories, HTTP requests and log capture for the stack suites.
enum StackTestSupport {
    /// Runs `body` with a fresh data directory path that is removed afterwards.
    static func withDataDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
        let path = TemporaryFolder.url("wif-stack").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await body(path)
    }

    /// An answer from the stack.
    struct Answer: Sendable {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: String

        /// The first value of a header, by case-insensitive name.
        func header(_ name: String) -> String? {
            self.headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// Sends one request with the shared client and reads the whole answer.
    static func send(
        _ method: String = "GET", _ url: String, headers: [(String, String)] = [], body: ByteBuffer? = nil, chunked: Bool = false
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = .init(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            if chunked {
                let chunks = stride(from: 0, to: body.readableBytes, by: 8192).map { start in
                    body.getSlice(at: body.readerIndex + start, length: min(8192, body.readableBytes - start)) ?? ByteBuffer()
                }
                request.body = .stream(chunks.async, length: .unknown)
            } else {
                request.body = .bytes(body)
            }
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let collected = try await response.body.collect(upTo: 1 << 20)
        let headers = response.headers.map { (name: $0.name, value: $0.value) }
        return Answer(status: Int(response.status.code), headers: headers, body: String(buffer: collected))
    }

    /// Whether something accepts TCP connections on a loopback port. A plain `connect` answers at once,
    /// where an HTTP client would keep retrying a refused connection until its deadline.
    static func isListening(port: Int) -> Bool {
        Loopback.acceptsConnections(port: port)
    }

    /// Decodes unpadded base64url.
    static func decodeBase64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }

    /// The `kid` of the first key of the stack's JWKS.
    static func keyId(of endpoint: LocalEndpoint) async throws -> String? {
        let answer = try await self.send("GET", endpoint.url + "/.well-known/jwks.json")
        guard answer.status == 200,
            let object = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any],
            let keys = object["keys"] as? [[String: Any]]
        else { return nil }
        return keys.first?["kid"] as? String
    }
}
