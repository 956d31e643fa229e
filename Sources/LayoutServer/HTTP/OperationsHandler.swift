import NIOCore
import NIOHTTP1

/// One HTTP connection of the operations listener: answers each request from `OperationsRoutes`.
/// Request bodies are read and ignored; keep-alive follows the request.
final class OperationsHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let routes: OperationsRoutes
    private var head: HTTPRequestHead?

    init(routes: OperationsRoutes) {
        self.routes = routes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break
        case .end:
            guard let head else { return }
            self.head = nil
            respond(to: head, context: context)
        }
    }

    /// A request that is not HTTP: NIO's error handler has answered 400 with `Connection: close`;
    /// closing is ours to do, or the connection would stay open until the peer gives up.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func respond(to request: HTTPRequestHead, context: ChannelHandlerContext) {
        let response = routes.respond(method: request.method.rawValue, uri: request.uri)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: response.contentType)
        headers.add(name: "Content-Length", value: String(response.body.count))
        headers.add(name: "Cache-Control", value: "no-store")
        if let allow = response.allow { headers.add(name: "Allow", value: allow) }
        let keepAlive = request.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let head = HTTPResponseHead(version: request.version, status: HTTPResponseStatus(statusCode: response.status, reasonPhrase: response.reason), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if request.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body)))), promise: nil)
        }
        if keepAlive {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        } else {
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
