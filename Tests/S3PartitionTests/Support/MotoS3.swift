import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import WIFTestSupport
import WIFCredentials

@testable import S3Partition

/// The shared moto launcher with what the S3 tests need of it: an S3 client for the server and a
/// bucket made through the client's own signed request path.
struct MotoS3: Sendable {
    let server: MotoServer

    /// `http://127.0.0.1:<port>`.
    var endpoint: String { self.server.endpoint.absoluteString }
    var port: Int { self.server.port }

    /// Whether moto tests run (and fail when moto is missing but required).
    static var isEnabled: Bool { MotoServer.isAvailable }
    static var skipReason: Comment { Comment(rawValue: MotoServer.skipReasonText) }

    /// Runs `body` with a fresh server, stopping it afterwards.
    static func withServer<T>(_ body: (MotoS3) async throws -> T) async throws -> T {
        try await MotoServer.withServer { try await body(MotoS3(server: $0)) }
    }

    /// A client for this server: path-style, static test credentials, no real sleeping.
    func client(
        transfer: S3Client.Transfer = S3Client.Transfer(
            partSize: S3Client.Transfer.minimumPartSize, concurrency: 4, downloadPartSize: S3Client.Transfer.minimumPartSize,
            downloadConcurrency: 4),
        checksum: S3Client.ChecksumAlgorithm = .sha256
    ) throws -> S3Client {
        try S3Client(
            configuration: .init(region: "us-east-1", endpoint: self.endpoint, checksumAlgorithm: checksum, transfer: transfer),
            credentialProvider: .static(accessKeyId: "AKIDMOTOTEST", secretAccessKey: "moto-secret"),
            environment: [:], timeSource: TestClock().timeSource)
    }

    /// Creates a bucket through the client's own signed request path.
    func createBucket(_ name: String, with client: S3Client) async throws {
        let request = S3Request(operation: "CreateBucket", method: .PUT, bucket: name)
        _ = try await client.performCollecting(request, logger: .init(label: "test"))
    }
}

/// A failure in test set-up, with a message.
struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A TCP port on 127.0.0.1 that was free a moment ago.
func freeLoopbackPort() throws -> Int {
    try Loopback.freePort()
}

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
func acceptsConnections(port: Int) -> Bool {
    Loopback.acceptsConnections(port: port)
}
