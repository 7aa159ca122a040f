import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import WIFFoundation

/// A one-shot HTTP listener on a loopback address that receives the authorization redirect of a
/// browser sign-in (RFC 8252 §7.3).
///
/// It takes exactly one request on the redirect path: that request's query parameters are the result,
/// the browser gets a small HTML page, and later requests on the path are turned away. Requests on
/// other paths (a browser's `/favicon.ico`) get 404 and change nothing. ``close()`` stops listening.
package final class OAuth2LoopbackListener: Sendable {
    /// A page for the browser.
    package struct Page: Sendable {
        package var status: Int
        package var title: String
        package var message: String

        package init(status: Int, title: String, message: String) {
            self.status = status
            self.title = title
            self.message = message
        }
    }

    /// The bound port.
    package let port: Int
    /// The redirect URI with the bound port, such as `http://127.0.0.1:53122/callback`.
    package let redirectURI: String
    private let channel: any Channel
    private let mailbox: Mailbox

    private init(port: Int, redirectURI: String, channel: any Channel, mailbox: Mailbox) {
        self.port = port
        self.redirectURI = redirectURI
        self.channel = channel
        self.mailbox = mailbox
    }

    /// Binds a loopback address and starts listening.
    /// - Parameters:
    ///   - host: `127.0.0.1` or `::1`.
    ///   - port: The port; `0` picks a free one.
    ///   - path: The redirect path, such as `/callback`.
    ///   - page: Chooses the page shown for the redirect from its parameters (`nil` when they are
    ///     malformed).
    /// - Returns: The listener.
    /// - Throws: ``WIFCredentialsError`` `authorizationFailed` when the address cannot be bound.
    package static func start(
        host: String,
        port: Int,
        path: String,
        page: @escaping @Sendable ([String: String]?) -> Page
    ) async throws -> OAuth2LoopbackListener {
        let mailbox = Mailbox()
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(RedirectHandler(path: path, mailbox: mailbox, page: page))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: host, port: port).get()
        } catch {
            throw WIFCredentialsError.authorizationFailed(
                "cannot listen for the sign-in redirect on \(host) port \(port): \(String(describing: error).prefix(200))")
        }
        guard let boundPort = channel.localAddress?.port else {
            try? await channel.close()
            throw WIFCredentialsError.authorizationFailed("the sign-in redirect listener on \(host) has no port")
        }
        let authority = host.contains(":") ? "[\(host)]" : host
        return OAuth2LoopbackListener(
            port: boundPort, redirectURI: "http://\(authority):\(boundPort)\(path)", channel: channel, mailbox: mailbox)
    }

    /// Waits for the redirect.
    /// - Parameters:
    ///   - timeout: How long to wait.
    ///   - timeSource: The sleep that measures the timeout.
    /// - Returns: The redirect's query parameters, or `nil` when they were malformed.
    /// - Throws: `authorizationFailed` when no redirect came in time; `CancellationError`.
    package func redirect(timeout: Duration, timeSource: TimeSource) async throws -> [String: String]? {
        try await withThrowingTaskGroup(of: [String: String]??.self) { group in
            group.addTask { .some(try await self.mailbox.wait()) }
            group.addTask {
                try await timeSource.sleep(timeout)
                return .none
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let received = first else {
                throw WIFCredentialsError.authorizationFailed(
                    "no sign-in redirect arrived within \(timeout); start the sign-in again and finish it in the browser")
            }
            return received
        }
    }

    /// Stops listening. Safe to call more than once.
    package func close() async {
        self.mailbox.cancelWaiter()
        try? await self.channel.close()
    }

    /// Hands the first redirect to the waiting task.
    final class Mailbox: Sendable {
        private enum State {
            case empty
            case waiting(CheckedContinuation<[String: String]?, any Error>)
            case received([String: String]?)
            case consumed
        }

        private let state = Mutex(State.empty)

        /// Offers a redirect; `true` when it is the first.
        func offer(_ parameters: [String: String]?) -> Bool {
            let outcome = self.state.withLock { state -> (Bool, CheckedContinuation<[String: String]?, any Error>?) in
                switch state {
                case .empty:
                    state = .received(parameters)
                    return (true, nil)
                case .waiting(let continuation):
                    state = .consumed
                    return (true, continuation)
                case .received, .consumed:
                    return (false, nil)
                }
            }
            outcome.1?.resume(returning: parameters)
            return outcome.0
        }

        /// Waits for the first redirect.
        func wait() async throws -> [String: String]? {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[String: String]?, any Error>) in
                    let ready = self.state.withLock { state -> Result<[String: String]?, any Error>? in
                        switch state {
                        case .empty:
                            if Task.isCancelled { return .failure(CancellationError()) }
                            state = .waiting(continuation)
                            return nil
                        case .received(let parameters):
                            state = .consumed
                            return .success(parameters)
                        case .waiting, .consumed:
                            return .failure(WIFCredentialsError.authorizationFailed("the sign-in redirect was already taken"))
                        }
                    }
                    if let ready { continuation.resume(with: ready) }
                }
            } onCancel: {
                self.cancelWaiter()
            }
        }

        /// Fails a waiting task with `CancellationError`.
        func cancelWaiter() {
            let continuation = self.state.withLock { state -> CheckedContinuation<[String: String]?, any Error>? in
                guard case .waiting(let continuation) = state else { return nil }
                state = .empty
                return continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
    }
}

/// Answers the redirect request, and 404 on other paths.
private final class RedirectHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let path: String
    private let mailbox: OAuth2LoopbackListener.Mailbox
    private let page: @Sendable ([String: String]?) -> OAuth2LoopbackListener.Page
    private var head: HTTPRequestHead?

    init(path: String, mailbox: OAuth2LoopbackListener.Mailbox, page: @escaping @Sendable ([String: String]?) -> OAuth2LoopbackListener.Page) {
        self.path = path
        self.mailbox = mailbox
        self.page = page
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break
        case .end:
            guard let head = self.head else { return }
            self.head = nil
            self.respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let parts = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let requestPath = parts.first.map(String.init) ?? ""
        let page: OAuth2LoopbackListener.Page
        if requestPath != self.path {
            page = .init(status: 404, title: "Not found", message: "This address only receives a sign-in redirect.")
        } else if head.method != .GET {
            page = .init(status: 405, title: "Method not allowed", message: "The sign-in redirect is a GET request.")
        } else {
            let parameters = parts.count > 1 ? OAuth2FormDecoding.parameters(parts[1]) : [:]
            if self.mailbox.offer(parameters) {
                page = self.page(parameters)
            } else {
                page = .init(status: 409, title: "Already signed in", message: "This sign-in already received its answer. You can close this window.")
            }
        }
        let body = ByteBuffer(string: Self.html(page))
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        headers.add(name: "Connection", value: "close")
        let responseHead = HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: page.status), headers: headers)
        context.write(self.wrapOutboundOut(.head(responseHead)), promise: nil)
        if head.method != .HEAD { context.write(self.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        let channel = context.channel
        context.writeAndFlush(self.wrapOutboundOut(.end(nil))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    /// A minimal page; the texts are fixed strings chosen by the client, escaped all the same.
    private static func html(_ page: OAuth2LoopbackListener.Page) -> String {
        """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>\(XMLWriter.escape(page.title))</title></head>
        <body style="font-family: sans-serif; margin: 3em;"><h1>\(XMLWriter.escape(page.title))</h1><p>\(XMLWriter.escape(page.message))</p></body></html>

        """
    }
}
