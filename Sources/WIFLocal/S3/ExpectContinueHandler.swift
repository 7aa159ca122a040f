import HTTPTypes
import NIOCore
import NIOHTTPTypes
import WIFAPIServer

/// Answers `Expect: 100-continue` only once the request has been let in: the interim `100 Continue` goes
/// out when the responder starts reading the body, which every service does only after authenticating and
/// authorizing the request. Clients that wait for it before sending a body (boto3 and the aws CLI on every
/// PutObject and UploadPart, the Java SDK) then never send the body of a request that is refused.
///
/// It goes in the HTTP/1 pipeline after the HTTP types codec (hummingbird's `additionalChannelHandlers`).
/// The responder asks for the interim response with ``ContinueRequest`` (see ``continuingOnRead(_:)``).
/// A final response written while the interim one is still owed means the body was never wanted: it
/// carries `Connection: close` and the connection is closed after it, since the client may or may not
/// send the body it was holding back.
final class ExpectContinueHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The outbound user event by which the responder asks for the interim response.
    struct ContinueRequest: Sendable {}

    /// Whether the current request asked for `100 Continue` and has not had it.
    private var owed = false
    /// Whether the connection closes once the current response has been written.
    private var closeAfterResponse = false

    init() {}

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let request) = self.unwrapInboundIn(data) {
            self.owed = request.headerFields.value(of: .expect).map(Self.expectsContinue) ?? false
        }
        context.fireChannelRead(data)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is ContinueRequest else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        if self.owed {
            self.owed = false
            context.writeAndFlush(self.wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: promise)
        } else {
            promise?.succeed(())
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch self.unwrapOutboundIn(data) {
        case .head(var response) where response.status.kind != .informational && self.owed:
            // Refused (or answered) without reading the body the client is holding back.
            self.owed = false
            self.closeAfterResponse = true
            response.headerFields[.connection] = "close"
            context.write(self.wrapOutboundOut(.head(response)), promise: promise)
        case .end where self.closeAfterResponse:
            self.closeAfterResponse = false
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.cascade(to: promise)
            written.futureResult.whenComplete { _ in context.close(promise: nil) }
            context.writeAndFlush(data, promise: written)
        default:
            context.write(data, promise: promise)
        }
    }

    static func expectsContinue(_ value: String) -> Bool {
        value.lowercased() == "100-continue"
    }
}
