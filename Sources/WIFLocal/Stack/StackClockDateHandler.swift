import HTTPTypes
import NIOCore
import NIOHTTPTypes
import WIFCredentials
import WIFFoundation

/// Puts the stack's own clock in the `Date` header of every response, in place of the wall clock the
/// HTTP server writes there.
///
/// Installed only when the stack runs on an injected clock. Clients judge a server's clock from `Date`
/// (the STS client moves an expiry by the difference), so a stack whose STS issues credentials on a
/// hand-moved clock must answer with that clock's date too, as a real server's answers agree with
/// themselves. It goes in the HTTP/1 pipeline after the HTTP types codec.
final class StackClockDateHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let timeSource: TimeSource

    init(timeSource: TimeSource) {
        self.timeSource = timeSource
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var response) = self.unwrapOutboundIn(data), response.status.kind != .informational else {
            context.write(data, promise: promise)
            return
        }
        response.headerFields[.date] = AWSDate.httpDate(AWSDate.seconds(self.timeSource.now()))
        context.write(self.wrapOutboundOut(.head(response)), promise: promise)
    }
}
