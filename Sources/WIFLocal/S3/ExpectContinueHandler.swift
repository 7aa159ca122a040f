import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` with an interim `100 Continue`, so that clients which wait for it before
/// sending a body (boto3 and the aws CLI on every PutObject and UploadPart, the Java SDK) do not sit out
/// their timeout, a second per request for botocore.
///
/// It goes in the HTTP/1 pipeline after the HTTP types codec (hummingbird's `additionalChannelHandlers`).
/// The interim response is sent as soon as the head arrives; a request refused before its body is read
/// (`AccessDenied`) still gets its final answer once the body has been drained, as HTTP allows.
final class ExpectContinueHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    init() {}

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(var request) = self.unwrapInboundIn(data), let expect = request.headerFields[.expect],
            expect.lowercased() == "100-continue"
        {
            // The expectation is met here, so the responder never sees it.
            request.headerFields[.expect] = nil
            context.writeAndFlush(self.wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
            context.fireChannelRead(self.wrapInboundOut(.head(request)))
            return
        }
        context.fireChannelRead(data)
    }
}
