import AsyncHTTPClient
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// Sends a request whose body may stream and returns the answer as soon as its head arrives, its body
/// still streaming: the seam between the S3 client and the network.
///
/// `HTTPClient` is the transport in use; tests substitute one that answers in process, so retries,
/// clock correction and error documents are exercised without a server.
package protocol StreamingHTTPTransport: Sendable {
    /// Sends `request` and returns the answer's head with its body to read.
    /// - Parameters:
    ///   - request: The request, its body a sequence of buffers or bytes.
    ///   - deadline: When the exchange, body included, must be over.
    ///   - logger: Where to log.
    func execute(_ request: HTTPClientRequest, deadline: NIODeadline, logger: Logger?) async throws -> HTTPClientResponse

    /// Sends a request without a body and hands the body of the answer to `sink` as it arrives, when the
    /// sink takes it; an answer it does not take (an error document) is collected instead. Returns once
    /// the whole answer has arrived.
    ///
    /// The default reads the body on the calling task through ``execute(_:deadline:logger:)``;
    /// `HTTPClient` calls the sink on the connection's own thread, so that the bytes need no hand-off
    /// between threads on their way to the sink.
    /// - Parameters:
    ///   - request: The request; `HTTPClient` reads the answer of one with a body on the task.
    ///   - deadline: When the exchange, body included, must be over.
    ///   - logger: Where to log.
    ///   - sink: Takes the body.
    ///   - collectLimit: The most bytes of a body the sink does not take that are kept; the rest is
    ///     dropped.
    /// - Returns: The answer's status and headers, with the body when the sink did not take it.
    /// - Throws: What the sink throws, or the exchange's failure.
    func execute(
        _ request: HTTPClientRequest, deadline: NIODeadline, logger: Logger?, sink: some ResponseBodySink, collectLimit: Int
    ) async throws -> SunkResponse
}

/// Takes the body of an answer as it arrives. Its calls come one at a time, in order, but not always
/// on the same thread; each answer starts with ``accepts(status:headers:)``, so a sink used for the
/// retries of one request starts again there.
package protocol ResponseBodySink: Sendable {
    /// Whether to take the body of an answer with this head; one it does not take is collected.
    /// - Throws: To end the exchange with that error.
    func accepts(status: Int, headers: HTTPHeaders) throws -> Bool
    /// The next part of a body the sink took.
    /// - Throws: To end the exchange with that error.
    func write(_ buffer: ByteBuffer) throws
}

/// An answer whose body went to a sink.
package struct SunkResponse: Sendable {
    /// The HTTP status code.
    package var status: HTTPResponseStatus
    /// The headers.
    package var headers: HTTPHeaders
    /// The body when the sink did not take it, cut to the collect limit; empty when it did.
    package var collected: ByteBuffer

    package init(status: HTTPResponseStatus, headers: HTTPHeaders, collected: ByteBuffer) {
        self.status = status
        self.headers = headers
        self.collected = collected
    }
}

extension StreamingHTTPTransport {
    package func execute(
        _ request: HTTPClientRequest, deadline: NIODeadline, logger: Logger?, sink: some ResponseBodySink, collectLimit: Int
    ) async throws -> SunkResponse {
        try await self.executeReadingOnTask(request, deadline: deadline, logger: logger, sink: sink, collectLimit: collectLimit)
    }

    /// The sink's calls made from the calling task, reading the answer through ``execute(_:deadline:logger:)``.
    package func executeReadingOnTask(
        _ request: HTTPClientRequest, deadline: NIODeadline, logger: Logger?, sink: some ResponseBodySink, collectLimit: Int
    ) async throws -> SunkResponse {
        let response = try await self.execute(request, deadline: deadline, logger: logger)
        var collected = ByteBuffer()
        if try sink.accepts(status: Int(response.status.code), headers: response.headers) {
            for try await buffer in response.body { try sink.write(buffer) }
        } else {
            for try await buffer in response.body { collected.append(buffer, upTo: collectLimit) }
        }
        return SunkResponse(status: response.status, headers: response.headers, collected: collected)
    }
}

extension HTTPClient: StreamingHTTPTransport {
    package func execute(
        _ request: HTTPClientRequest, deadline: NIODeadline, logger: Logger?, sink: some ResponseBodySink, collectLimit: Int
    ) async throws -> SunkResponse {
        // The delegate API takes a request body in another form; the seam's requests that sink carry none.
        guard request.body == nil else {
            return try await self.executeReadingOnTask(request, deadline: deadline, logger: logger, sink: sink, collectLimit: collectLimit)
        }
        let sent = try HTTPClient.Request(url: request.url, method: request.method, headers: request.headers)
        let task = self.execute(
            request: sent, delegate: SinkingDelegate(sink: sink, collectLimit: collectLimit), eventLoop: .indifferent,
            deadline: deadline, logger: logger)
        return try await withTaskCancellationHandler {
            try await task.futureResult.get()
        } onCancel: {
            task.cancel()
        }
    }
}

/// Passes an answer's body to a sink from the connection's event loop: each part is written before the
/// next is read, with no thread between the socket and the sink.
private final class SinkingDelegate<Sink: ResponseBodySink>: HTTPClientResponseDelegate {
    typealias Response = SunkResponse

    private struct State {
        var head: HTTPResponseHead?
        var sinking = false
        var collected = ByteBuffer()
    }

    private let sink: Sink
    private let collectLimit: Int
    private let state = Mutex(State())

    init(sink: Sink, collectLimit: Int) {
        self.sink = sink
        self.collectLimit = collectLimit
    }

    func didReceiveHead(task: HTTPClient.Task<SunkResponse>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        do {
            let sinking = try self.sink.accepts(status: Int(head.status.code), headers: head.headers)
            self.state.withLock {
                $0.head = head
                $0.sinking = sinking
            }
            return task.eventLoop.makeSucceededVoidFuture()
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
    }

    func didReceiveBodyPart(task: HTTPClient.Task<SunkResponse>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let sinking = self.state.withLock { state -> Bool in
            guard !state.sinking else { return true }
            state.collected.append(buffer, upTo: self.collectLimit)
            return false
        }
        guard sinking else { return task.eventLoop.makeSucceededVoidFuture() }
        do {
            try self.sink.write(buffer)
            return task.eventLoop.makeSucceededVoidFuture()
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
    }

    func didFinishRequest(task: HTTPClient.Task<SunkResponse>) throws -> SunkResponse {
        try self.state.withLock { state in
            guard let head = state.head else { throw HTTPClientError.remoteConnectionClosed }
            return SunkResponse(status: head.status, headers: head.headers, collected: state.collected)
        }
    }
}

extension ByteBuffer {
    /// Appends as much of `buffer` as fits below `limit` readable bytes; the rest is dropped.
    fileprivate mutating func append(_ buffer: ByteBuffer, upTo limit: Int) {
        let room = limit - self.readableBytes
        guard room > 0 else { return }
        self.writeImmutableBuffer(buffer.getSlice(at: buffer.readerIndex, length: min(room, buffer.readableBytes)) ?? ByteBuffer())
    }
}
