import NIOCore
import NIOHTTP1
import NIOPosix
import WIFFoundation

/// An HTTP/1.1 server on a loopback port whose answers a closure decides, including broken ones: a
/// body cut short after its headers promised more, or a connection closed without an answer.
final class FaultServer: Sendable {
    /// A request as received, body included.
    struct Request: Sendable {
        var method: String
        var uri: String
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            self.headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// The path before `?`, percent-decoded.
        var path: String {
            let raw = self.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            return raw.removingPercentEncoding ?? raw
        }

        /// The query parameters, decoded.
        var query: [String: String] {
            let parts = self.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { return [:] }
            var result: [String: String] = [:]
            for pair in parts[1].split(separator: "&") {
                let fields = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(fields[0]).removingPercentEncoding ?? String(fields[0])
                let value = fields.count > 1 ? (String(fields[1]).removingPercentEncoding ?? String(fields[1])) : ""
                result[name] = value
            }
            return result
        }

        /// The access key id in the `Authorization` header.
        var accessKeyId: String? {
            guard let authorization = self.header("authorization"), let range = authorization.range(of: "Credential=") else { return nil }
            return String(authorization[range.upperBound...].prefix { $0 != "/" })
        }
    }

    /// How to answer.
    enum Reply: Sendable {
        /// A complete answer.
        case response(status: Int, headers: [(String, String)], body: [UInt8])
        /// Headers promising the whole body (its `Content-Length`), then only `sending` bytes, then the
        /// connection closes.
        case truncated(status: Int, headers: [(String, String)], body: [UInt8], sending: Int)
        /// Close the connection without answering.
        case closeConnection
    }

    let port: Int
    private let channel: any Channel

    var endpoint: String { "http://127.0.0.1:\(self.port)" }

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    /// Starts a server that answers every request with `handler`.
    static func start(_ handler: @escaping @Sendable (Request) -> Reply) async throws -> FaultServer {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(FaultHandler(handler: handler))
                }
            }
        let channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else { throw TestFailure("the fault server has no port") }
        return FaultServer(port: port, channel: channel)
    }

    /// Runs `body` with a server and closes it afterwards.
    static func with<T>(_ handler: @escaping @Sendable (Request) -> Reply, _ body: (FaultServer) async throws -> T) async throws -> T {
        let server = try await Self.start(handler)
        do {
            let result = try await body(server)
            try? await server.shutdown()
            return result
        } catch {
            try? await server.shutdown()
            throw error
        }
    }

    func shutdown() async throws {
        try await self.channel.close()
    }
}

private final class FaultHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let handler: @Sendable (FaultServer.Request) -> FaultServer.Reply
    var head: HTTPRequestHead?
    var body: [UInt8] = []

    init(handler: @escaping @Sendable (FaultServer.Request) -> FaultServer.Reply) {
        self.handler = handler
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            self.body = []
        case .body(let buffer):
            self.body.append(contentsOf: buffer.readableBytesView)
        case .end:
            guard let head = self.head else { return }
            let request = FaultServer.Request(
                method: head.method.rawValue, uri: head.uri, headers: head.headers.map { ($0.name, $0.value) }, body: self.body)
            self.respond(to: head, self.handler(request), context: context)
        }
    }

    private func respond(to request: HTTPRequestHead, _ reply: FaultServer.Reply, context: ChannelHandlerContext) {
        switch reply {
        case .closeConnection:
            context.close(promise: nil)
        case .response(let status, let headers, let body):
            self.writeHead(status: status, headers: headers, length: body.count, context: context)
            if request.method != .HEAD && !body.isEmpty {
                context.write(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
            }
            context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
        case .truncated(let status, let headers, let body, let sending):
            self.writeHead(status: status, headers: headers, length: body.count, context: context)
            context.write(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body.prefix(sending))))), promise: nil)
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.flush()
            context.eventLoop.execute { loopBound.value.close(promise: nil) }
        }
    }

    private func writeHead(status: Int, headers: [(String, String)], length: Int, context: ChannelHandlerContext) {
        var fields = HTTPHeaders(headers)
        if !fields.contains(name: "content-length") { fields.add(name: "Content-Length", value: String(length)) }
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: fields)
        context.write(self.wrapOutboundOut(.head(head)), promise: nil)
    }
}
