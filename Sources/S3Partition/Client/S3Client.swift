import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
import WIFCredentials
import WIFFoundation
import WIFHTTP

/// An S3 client over AsyncHTTPClient, signing every request with SigV4 and credentials from a
/// ``WIFCredentials/CredentialProvider``.
///
/// It calls AWS's regional endpoint (`https://s3.<region>.amazonaws.com`) or a custom one
/// (``Configuration/endpoint``, `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`), addressing buckets in
/// the host name or the path (``AddressingStyle``). Bodies stream in both directions: memory does not
/// grow with object size. Files are uploaded in parallel parts above
/// ``Transfer/multipartThreshold`` and downloaded as parallel ranges into a temporary file that is
/// renamed into place only once complete and verified.
///
/// Failures that may pass (5xx answers, throttling, broken connections) are retried with jittered
/// exponential backoff; a retried part is sent again from its offset in the file, so a retry never
/// corrupts an object. When S3 answers `ExpiredToken`, `InvalidAccessKeyId` or `InvalidToken`, the
/// client tells the provider to forget those credentials and retries once with fresh ones.
///
/// ```swift
/// let s3 = try S3Client(
///     configuration: .init(region: "eu-west-1"),
///     credentialProvider: provider
/// )
/// try await s3.putObject(bucket: "wif-personal", key: "1001/notes.txt", bytes: Array("hello".utf8))
/// let result = try await s3.putObject(bucket: "wif-personal", key: "1001/video.mp4", fromFile: "video.mp4") {
///     print($0)
/// }
/// ```
public struct S3Client: Sendable {
    /// The configuration the client was created with.
    public let configuration: Configuration
    /// The region requests are signed for.
    public let region: String
    /// Where requests go.
    public let endpoint: S3Endpoint

    let credentialProvider: any CredentialProvider
    let transport: any StreamingHTTPTransport
    let timeSource: TimeSource
    let jitter: @Sendable () -> Double
    let clockOffset: ClockOffset

    /// The bytes read from a file per chunk of a request body.
    static let fileChunkSize = 256 * 1024
    /// Files up to this size are read into memory whole and sent in one write.
    static let smallFileSize = 1024 * 1024

    /// Creates a client.
    /// - Parameters:
    ///   - configuration: Region, endpoint, addressing, checksum, retry and transfer settings.
    ///   - credentialProvider: Where credentials come from; asked before every request (providers
    ///     cache), and told to forget credentials S3 refuses.
    ///   - environment: Environment variables consulted for the region and endpoint; pass a
    ///     dictionary to keep the process environment out of it.
    ///   - httpClient: The HTTP client to send requests with; by default ``sharedHTTPClient``, set up
    ///     for S3 (see ``recommendedHTTPClientConfiguration()``).
    ///   - timeSource: The clock that dates signatures and the sleep between retries.
    /// - Throws: ``S3Error`` with code ``S3Error/Code/invalidConfiguration`` for a malformed region,
    ///   endpoint, retry or transfer setting.
    public init(
        configuration: Configuration = Configuration(),
        credentialProvider: some CredentialProvider,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        httpClient: HTTPClient = S3Client.sharedHTTPClient,
        timeSource: TimeSource = .system
    ) throws(S3Error) {
        try self.init(
            configuration: configuration, credentialProvider: credentialProvider, environment: environment,
            httpClient: httpClient, timeSource: timeSource, jitter: { Double.random(in: 0...1) })
    }

    /// Creates a client whose backoff jitter is chosen by `jitter`.
    package init(
        configuration: Configuration,
        credentialProvider: some CredentialProvider,
        environment: [String: String],
        httpClient: HTTPClient = S3Client.sharedHTTPClient,
        timeSource: TimeSource,
        jitter: @escaping @Sendable () -> Double
    ) throws(S3Error) {
        try self.init(
            configuration: configuration, credentialProvider: credentialProvider, environment: environment,
            transport: httpClient, timeSource: timeSource, jitter: jitter)
    }

    /// Creates a client that sends its requests through `transport`, such as an S3 answering in
    /// process in a test.
    package init(
        configuration: Configuration,
        credentialProvider: some CredentialProvider,
        environment: [String: String],
        transport: any StreamingHTTPTransport,
        timeSource: TimeSource,
        jitter: @escaping @Sendable () -> Double
    ) throws(S3Error) {
        if let problem = configuration.retry.problem(subject: "S3 retry") { throw .invalidConfiguration(problem) }
        try configuration.transfer.validate()
        if configuration.timeout <= .zero {
            throw .invalidConfiguration("S3 timeout is \(configuration.timeout); it must be positive")
        }
        let (region, endpoint) = try S3Endpoint.resolve(configuration, environment: environment)
        self.configuration = configuration
        self.region = region
        self.endpoint = endpoint
        self.credentialProvider = credentialProvider
        self.transport = transport
        self.timeSource = timeSource
        self.jitter = jitter
        self.clockOffset = ClockOffset()
    }

    // MARK: Sending

    /// Sends a request, retrying as ``Configuration/retry`` says, and hands a successful (2xx) answer
    /// to `handle`. An error `handle` throws is retried the same way when it may pass (a broken
    /// connection while reading the body), so `handle` must be safe to run again. With a `sink`, the
    /// body of a successful answer goes to the sink as it arrives and `handle` gets the answer without
    /// it; an error the sink throws is retried likewise.
    func perform<Result>(
        _ request: S3Request,
        logger: Logger,
        progress: ProgressTracker? = nil,
        sink: (any ResponseBodySink)? = nil,
        handle: (S3Response) async throws -> Result
    ) async throws -> Result {
        var state = S3RetryState(policy: self.configuration.retry)
        while true {
            try Task.checkCancellation()
            let credentials = try await self.credentials(for: request, logger: logger)
            let attemptProgress = AttemptProgress(progress)
            var serverDate: Date?
            do {
                let httpRequest = try self.prepare(request, credentials: credentials, progress: attemptProgress)
                let response: HTTPClientResponse
                let deadline = NIODeadline.now() + .nanoseconds(Self.nanoseconds(self.configuration.timeout))
                do {
                    if let sink {
                        // The body of a successful answer has gone to the sink; an error document comes back whole.
                        let sunk = try await self.transport.execute(
                            httpRequest, deadline: deadline, logger: logger, sink: sink, collectLimit: S3ErrorDocument.maximumBytes)
                        response = HTTPClientResponse(status: sunk.status, headers: sunk.headers, body: .bytes(sunk.collected))
                    } else {
                        response = try await self.transport.execute(httpRequest, deadline: deadline, logger: logger)
                    }
                } catch {
                    throw self.transportError(error, request)
                }
                let status = Int(response.status.code)
                let answer = S3Response(status: status, headers: response.headers, body: response.body)
                if (200..<300).contains(status) {
                    do {
                        return try await handle(answer)
                    } catch let error as S3Error {
                        throw error
                    } catch let error as CancellationError {
                        throw error
                    } catch {
                        throw self.transportError(error, request)
                    }
                }
                serverDate = response.headers.first(name: "date").flatMap { AWSDate.parseHTTPDate($0).map { AWSDate.date(milliseconds: $0 * 1000) } }
                let body = (try? await answer.collect(upTo: S3ErrorDocument.maximumBytes, operation: request.operation)) ?? []
                throw S3ErrorDocument.error(
                    status: status, headers: response.headers, body: body, bucket: request.bucket, key: request.key)
            } catch let error as S3Error {
                attemptProgress.rollBack()
                if Task.isCancelled { throw CancellationError() }
                let action = state.next(after: error, jitter: self.jitter(), canCorrectClock: serverDate != nil)
                var metadata: Logger.Metadata = [
                    "wif.s3.operation": "\(request.operation)",
                    "wif.s3.code": "\(error.code)",
                    "wif.s3.attempt": "\(state.attempt)",
                ]
                if let requestId = error.requestId { metadata["wif.s3.request_id"] = "\(requestId)" }
                switch action {
                case .retry(let delay):
                    metadata["wif.s3.retry_delay"] = "\(delay)"
                    logger.debug("S3 request failed transiently; retrying", metadata: metadata)
                    try await self.timeSource.sleep(delay)
                case .refreshCredentialsAndRetry:
                    logger.debug("S3 refused the credentials; retrying with fresh ones", metadata: metadata)
                    await self.credentialProvider.invalidate(accessKeyId: credentials.accessKeyId)
                case .correctClockAndRetry:
                    if let serverDate {
                        self.clockOffset.set(serverDate.timeIntervalSince(self.timeSource.now()))
                    }
                    logger.debug("S3's clock differs from ours; retrying with its time", metadata: metadata)
                case .fail:
                    logger.debug("S3 request failed", metadata: metadata)
                    throw error
                }
            }
        }
    }

    /// Sends a request and reads the whole (small) answer.
    func performCollecting(_ request: S3Request, logger: Logger, limit: Int = 16 * 1024 * 1024) async throws -> (S3Response, [UInt8]) {
        try await self.perform(request, logger: logger) { response in
            let body = try await response.collect(upTo: limit, operation: request.operation)
            return (response, body)
        }
    }

    /// The current credentials, or an ``S3Error`` saying why there are none.
    private func credentials(for request: S3Request, logger: Logger) async throws -> AWSCredentials {
        do {
            return try await self.credentialProvider.getCredentials(logger: logger)
        } catch let error as WIFCredentialsError {
            throw S3Error(
                code: .credentialsUnavailable, message: "cannot get credentials: \(error.reason)", bucket: request.bucket,
                key: request.key, credentialsError: error)
        }
    }

    /// The signed HTTP request for one attempt.
    func prepare(_ request: S3Request, credentials: AWSCredentials, progress: AttemptProgress) throws(S3Error) -> HTTPClientRequest {
        let (signed, chunks) = try self.signedRequestAndChunks(request, credentials: credentials)
        var httpRequest = HTTPClientRequest(url: signed.urlString)
        httpRequest.method = request.method
        httpRequest.headers.reserveCapacity(signed.headers.count + 2)
        httpRequest.headers.add(name: "Host", value: signed.host)
        var encodedLength: Int64?
        for header in signed.headers {
            // AsyncHTTPClient writes Content-Length from the streamed body's length, the same value as signed.
            if chunks != nil, header.name == "Content-Length" {
                encodedLength = Int64(header.value)
                continue
            }
            httpRequest.headers.add(name: header.name, value: header.value)
        }
        httpRequest.headers.add(name: "User-Agent", value: SwiftWIFVersion.userAgent("s3"))
        switch request.body {
        case .empty:
            if request.method == .PUT || request.method == .POST {
                httpRequest.body = .bytes(ByteBuffer())
            }
        case .bytes(let buffer, _):
            httpRequest.body = .bytes(buffer)
            progress.add(buffer.readableBytes)
        case .file(let file, let offset, let length, _):
            httpRequest.body = .stream(
                FileBodySequence(file: file, offset: offset, length: length, progress: progress), length: .known(length))
        case .chunked(let buffer, _):
            guard let chunks, let encodedLength else {
                throw .invalidArgument("the aws-chunked body was signed without its encoded length", bucket: request.bucket, key: request.key)
            }
            httpRequest.body = .stream(ChunkedBodySequence(buffer: buffer, chunks: chunks, progress: progress), length: .known(encodedLength))
        }
        return httpRequest
    }

    /// The request addressed and signed: `Host`, path, query and the signature headers.
    func signedRequest(_ request: S3Request, credentials: AWSCredentials) throws(S3Error) -> SigV4Request {
        try self.signedRequestAndChunks(request, credentials: credentials).0
    }

    /// ``signedRequest(_:credentials:)`` and, for an `aws-chunked` body, the signer of its chunks.
    func signedRequestAndChunks(_ request: S3Request, credentials: AWSCredentials) throws(S3Error) -> (SigV4Request, SigV4ChunkSigner?) {
        let (host, path) = self.endpoint.address(bucket: request.bucket, key: request.key, style: self.configuration.addressingStyle)
        var signed = SigV4Request(
            method: request.method.rawValue, scheme: self.endpoint.scheme, host: host, path: path, query: request.encodedQuery,
            headers: request.headers.map { SigV4Request.Header($0.name, $0.value) })
        let signer = SigV4Signer(credentials: credentials, region: self.region, service: "s3")
        var chunks: SigV4ChunkSigner?
        do {
            if case .chunked(let buffer, let chunkSize) = request.body {
                chunks = try signer.signStreaming(
                    &signed, decodedContentLength: buffer.readableBytes, chunkSize: chunkSize, date: self.now())
            } else {
                try signer.sign(&signed, payload: request.body.payload, date: self.now())
            }
        } catch {
            let credentialsError = (error as? SigV4Error).map(WIFCredentialsError.init) ?? (error as? WIFCredentialsError)
            throw S3Error(
                code: .credentialsUnavailable,
                message: "cannot sign the request: \(credentialsError?.reason ?? String(describing: error))",
                bucket: request.bucket, key: request.key, credentialsError: credentialsError)
        }
        return (signed, chunks)
    }

    /// The time to sign with: the local clock, corrected by S3's when it said they differ.
    func now() -> Date {
        self.timeSource.now().addingTimeInterval(self.clockOffset.seconds)
    }

    /// An error from sending or reading, as a ``S3Error/Code/network`` error (or cancellation).
    private func transportError(_ error: any Error, _ request: S3Request) -> any Error {
        if error is CancellationError || Task.isCancelled { return CancellationError() }
        if let error = error as? S3Error { return error }
        let reason: String
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded: reason = "no answer within \(self.configuration.timeout)"
            case .remoteConnectionClosed: reason = "the connection was closed before the answer was complete"
            case .readTimeout: reason = "the connection stalled while reading the answer"
            default: reason = TransportFailure.reason(error)
            }
        } else {
            reason = TransportFailure.reason(error)
        }
        return S3Error.network(
            "\(request.operation) to \(self.endpoint.hostHeader) failed: \(reason)", bucket: request.bucket, key: request.key)
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let components = duration.components
        let seconds = components.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return seconds.overflow ? Int64.max : seconds.partialValue + components.attoseconds / 1_000_000_000
    }
}

/// The offset between S3's clock and ours, learned from `RequestTimeTooSkewed` answers.
final class ClockOffset: Sendable {
    private let milliseconds = Atomic<Int64>(0)

    var seconds: TimeInterval { Double(self.milliseconds.load(ordering: .relaxed)) / 1000 }

    func set(_ seconds: TimeInterval) {
        guard seconds.isFinite else { return }
        self.milliseconds.store(Int64((seconds * 1000).rounded()), ordering: .relaxed)
    }
}

/// A request body read from a file in chunks.
///
/// AsyncHTTPClient asks for the next chunk as soon as it has handed the last one to the event loop,
/// before the connection reports that its buffer is full; when the event loop is slow to run (a busy
/// machine), chunks would pile up in memory. So at most ``window`` chunks of one body are held by
/// the HTTP stack at a time: the next chunk is read only once NIO has released an earlier one's
/// storage after writing it.
struct FileBodySequence: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    /// Chunks of one body the HTTP stack may hold at once: one being written and one ready, so that
    /// six parts moving together hold 3 MiB rather than the 6 MiB that four each held, with no change
    /// in how fast a part goes up on loopback.
    static let window = 2

    let file: ReadableFile
    let offset: Int64
    let length: Int64
    let progress: AttemptProgress

    /// A weak reference to a chunk's storage, which becomes `nil` once NIO has dropped the chunk.
    final class HeldChunk {
        weak var storage: AnyObject?

        init(_ buffer: ByteBuffer) {
            self.storage = buffer.withVeryUnsafeBytesWithStorageManagement { _, storage in storage.takeUnretainedValue() }
        }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let file: ReadableFile
        let end: Int64
        let progress: AttemptProgress
        var position: Int64
        var held: [HeldChunk] = []

        mutating func next() async throws -> ByteBuffer? {
            guard self.position < self.end else { return nil }
            var pause = 50
            while true {
                self.held.removeAll { $0.storage == nil }
                if self.held.count < FileBodySequence.window { break }
                try await Task.sleep(for: .microseconds(pause))
                pause = Swift.min(pause * 2, 2000)
            }
            let count = Int(Swift.min(Int64(S3Client.fileChunkSize), self.end - self.position))
            let buffer = try await self.file.read(at: self.position, count: count, allocator: ByteBufferAllocator())
            self.position += Int64(count)
            self.held.append(HeldChunk(buffer))
            self.progress.add(count)
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(file: self.file, end: self.offset + self.length, progress: self.progress, position: self.offset)
    }
}
