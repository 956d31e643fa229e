import NIOCore
import NIOHTTP1

/// Answers a request that is not HTTP/1.1 (NIO's decoder failed on it) with the protocol's error body, as
/// every other refusal of the listener has: 431 `too_large` for headers over the decoder's 80 KiB, else
/// 400 `invalid_request`, `Connection: close` either way. NIO's own `HTTPServerProtocolErrorHandler` does
/// the same with an empty body; like it, this answers only when no response has begun, and passes the
/// error on (the decoder closes the connection next).
final class ProtocolErrorAnswer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private var responseOpen = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        if !responseOpen {
            let response = Self.response(to: parserError)
            var headers = HTTPHeaders([("Connection", "close"), ("Content-Length", String(response.body.count))])
            headers.add(name: "Content-Type", value: response.contentType)
            headers.add(name: "Cache-Control", value: "no-store")
            let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: response.status, reasonPhrase: response.reason), headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code >= 200: responseOpen = true
        case .end: responseOpen = false
        default: break
        }
        context.write(data, promise: promise)
    }

    static func response(to error: HTTPParserError) -> OperationsRoutes.Response {
        if case .headerOverflow = error {
            return ConsoleAPI.error(431, "Request Header Fields Too Large", "too_large", "the request line and headers are over 80 KiB")
        }
        return ConsoleAPI.error(400, "Bad Request", "invalid_request", "not an HTTP/1.1 request (\(error))")
    }
}
