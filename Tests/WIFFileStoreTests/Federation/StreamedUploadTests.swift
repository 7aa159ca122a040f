import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import S3Partition
import Synchronization
import Testing
import WIFCredentials
import WIFFileStore
import WIFHTTP
import WIFLocal
import WIFTestSupport

/// Bytes of unknown length (a pipe, as standard input is) uploaded into a user's folder on the local stack,
/// which verifies every chunk signature: one `PutObject` when they fit in a part, else parts signed chunk
/// by chunk, the upload aborted when a part fails.
@Suite struct StreamedUploadTests {
    /// The client's transport to the local stack, keeping the head of every request and failing chosen ones.
    final class RecordingTransport: StreamingHTTPTransport {
        struct Sent: Sendable {
            var method: String
            var url: String
            var headers: [(name: String, value: String)]

            func header(_ name: String) -> String? { self.headers.first { $0.name.lowercased() == name.lowercased() }?.value }
        }

        let base: HTTPClient
        let failing: @Sendable (Sent) -> Bool
        let sent = Mutex<[Sent]>([])

        init(base: HTTPClient, failing: @escaping @Sendable (Sent) -> Bool = { _ in false }) {
            self.base = base
            self.failing = failing
        }

        func execute(_ request: HTTPClientRequest, deadline: NIODeadline, logger: Logger?) async throws -> HTTPClientResponse {
            let head = Sent(method: request.method.rawValue, url: request.url, headers: request.headers.map { ($0.name, $0.value) })
            self.sent.withLock { $0.append(head) }
            if self.failing(head) { throw HTTPClientError.remoteConnectionClosed }
            return try await self.base.execute(request, deadline: deadline, logger: logger)
        }

        var requests: [Sent] { self.sent.withLock { $0 } }
    }

    /// alice's folder through a client with 5 MiB parts whose requests go through `transport`.
    static func folder(
        _ endpoint: LocalEndpoint, _ federation: WebIdentityFederation, transport: RecordingTransport
    ) async throws -> PartitionedBucket {
        let token = try endpoint.developmentToken(provider: "google", user: "alice")
        let result = try await federation.assumeRole(token: token.token)
        var configuration = S3Client.Configuration(region: endpoint.configuration.region, endpoint: endpoint.url)
        configuration.transfer.partSize = S3Client.Transfer.minimumPartSize
        let client = try S3Client(
            configuration: configuration, credentialProvider: StaticCredentialProvider(credentials: result.credentials),
            environment: [:], transport: transport, timeSource: .system, jitter: { 0 })
        let roleArn = try #require(token.roleArn)
        let template = try #require(endpoint.configuration.role(arn: roleArn)?.partitionTemplate)
        return try PartitionedBucket(
            client: client, bucket: federation.bucket, prefix: try PartitionPrefix.make(template: template, userId: "alice"))
    }

    /// A pipe whose write end is fed `data` on a thread of its own and then closed; the caller closes the
    /// read end it returns once done reading.
    static func pipe(_ data: [UInt8]) -> (SequentialInput, FileHandle) {
        let pipe = Pipe()
        let writer = pipe.fileHandleForWriting
        Thread.detachNewThread {
            // A reader that stops early makes the write fail (EPIPE), which only ends this thread.
            try? writer.write(contentsOf: Data(data))
            try? writer.close()
        }
        let reader = pipe.fileHandleForReading
        return (SequentialInput(descriptor: reader.fileDescriptor, name: "a pipe"), reader)
    }

    static func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
    }

    @Test(.timeLimit(.minutes(2)), arguments: [0, 9, 5 * 1024 * 1024 - 1])
    func inputWithinOnePartIsOnePutObject(size: Int) async throws {
        try await WebIdentityFederationTests.withFederation { endpoint, federation in
            try await StoreRuntime.withHTTPClient { httpClient in
                let transport = RecordingTransport(base: httpClient)
                let folder = try await Self.folder(endpoint, federation, transport: transport)
                let data = Self.bytes(size)
                let (input, reader) = Self.pipe(data)
                let result = try await folder.put("piped.bin", from: input)
                try reader.close()
                #expect(result.size == Int64(size))
                #expect(result.partCount == 1)
                #expect(transport.requests.map(\.method) == ["PUT"])
                #expect(transport.requests.first?.header("x-amz-checksum-sha256") == result.checksum)
                #expect(try await folder.get("piped.bin").bytes == data)
            }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func longerInputGoesUpInPartsSignedChunkByChunk() async throws {
        try await WebIdentityFederationTests.withFederation { endpoint, federation in
            try await StoreRuntime.withHTTPClient { httpClient in
                let transport = RecordingTransport(base: httpClient)
                let folder = try await Self.folder(endpoint, federation, transport: transport)
                let data = Self.bytes(2 * 5 * 1024 * 1024 + 1_234)
                let (input, reader) = Self.pipe(data)
                let sent = Mutex<Int64>(0)
                let result = try await folder.put(
                    "piped/large.bin", from: input, progress: { progress in sent.withLock { $0 = max($0, progress.bytesTransferred) } })
                try reader.close()
                #expect(result.partCount == 3)
                #expect(result.size == Int64(data.count))
                #expect(sent.withLock { $0 } == Int64(data.count))

                let parts = transport.requests.filter { $0.url.contains("partNumber=") }
                #expect(parts.count == 3)
                for part in parts {
                    #expect(part.header("x-amz-content-sha256") == "STREAMING-AWS4-HMAC-SHA256-PAYLOAD")
                    #expect(part.header("Content-Encoding") == "aws-chunked")
                    #expect(part.header("x-amz-checksum-sha256") != nil)
                }
                #expect(parts.map { $0.header("X-Amz-Decoded-Content-Length") } == ["5242880", "5242880", "1234"])
                let stored = try await folder.get("piped/large.bin", maximumBytes: data.count)
                #expect(stored.bytes == data)
                #expect(stored.metadata.eTag?.hasSuffix("-3") == true)
            }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aFailedPartAbortsTheUploadAndStoresNothing() async throws {
        try await WebIdentityFederationTests.withFederation { endpoint, federation in
            try await StoreRuntime.withHTTPClient { httpClient in
                let transport = RecordingTransport(base: httpClient) { $0.url.contains("partNumber=2&") }
                let folder = try await Self.folder(endpoint, federation, transport: transport)
                let (input, reader) = Self.pipe(Self.bytes(2 * 5 * 1024 * 1024 + 10))
                let error = await #expect(throws: S3Error.self) { try await folder.put("piped/failed.bin", from: input) }
                try reader.close()
                #expect(error?.code == .network)
                let abort = try #require(transport.requests.last)
                #expect(abort.method == "DELETE" && abort.url.contains("uploadId="))
                var names: [String] = []
                for try await object in try folder.list().objects { names.append(object.name) }
                #expect(names.isEmpty)
            }
        }
    }
}
