import NIOCore
import NIOHTTP1

/// One HTTP connection of the operations listener: answers each request from `OperationsRoutes`, or,
/// for the console's paths, from `ConsoleService`. Keep-alive follows the request.
///
/// Bounds, so that a hostile client costs only what they allow: headers are NIO's decoder's (80 KiB);
/// a console body is read up to `console.maxBodyBytes` (over it: 413 and the connection closed); other
/// bodies are dropped as they arrive; a request must arrive whole within `console.timeoutMillis` of the
/// connection opening or of the previous answer, or the connection is closed. A request is answered only
/// while the connection takes output: a client that pipelines requests and reads no answer gets one answer
/// queued, no more, and is closed at the same deadline.
final class OperationsHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let routes: OperationsRoutes
    private let console: ConsoleService?
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var keepsBody = false
    private var refused = false
    private var deadline: Scheduled<Void>?
    /// An event stream is open on this connection: no more requests, no deadline.
    private var streaming = false
    /// A whole request held until the connection takes output again (`channelWritabilityChanged`).
    private var parked: HTTPRequestHead?
    /// A whole request has arrived and its answer is not yet written.
    private var answering = false
    /// The connection closes once the answer in progress is written (a later request was not HTTP).
    private var closesAfterAnswer = false

    /// How long a request may take to arrive without a console (the probes' own bound).
    static let defaultTimeout: Duration = .seconds(10)

    init(routes: OperationsRoutes, console: ConsoleService?) {
        self.routes = routes
        self.console = console
    }

    func channelActive(context: ChannelHandlerContext) {
        armDeadline(context: context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused, !streaming else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.removeAll(keepingCapacity: false)
            keepsBody = console != nil && ConsoleAPI.owns(Self.path(of: head.uri))
            if keepsBody, let console, let length = head.headers.first(name: "Content-Length").flatMap(Int.init), length > console.maxBodyBytes {
                refuseBody(context: context, head: head, limit: console.maxBodyBytes)
            }
        case .body(let buffer):
            guard keepsBody, let console, let head else { return }
            guard body.count + buffer.readableBytes <= console.maxBodyBytes else {
                refuseBody(context: context, head: head, limit: console.maxBodyBytes)
                return
            }
            body += buffer.readableBytesView
        case .end:
            guard let head else { return }
            self.head = nil
            deadline?.cancel()
            deadline = nil
            answering = true
            if context.channel.isWritable {
                dispatchLater(head, context: context)
            } else {
                // The client has not read earlier answers: this one waits for it, the deadline runs.
                parked = head
                armDeadline(context: context)
            }
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let parked {
            self.parked = nil
            deadline?.cancel()
            deadline = nil
            dispatchLater(parked, context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    /// Answers on a later turn of the event loop, not inside this read: NIO's pipelining handler hands over
    /// the next buffered request from inside the write of this answer's end, so answering at once would
    /// recurse once per request a client pipelines, and serve one connection's backlog before any other's.
    private func dispatchLater(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        context.eventLoop.assumeIsolated().execute {
            guard context.channel.isActive else { return }
            self.dispatch(head, context: context)
        }
    }

    /// A request that is not HTTP: `ProtocolErrorAnswer` has answered it with `Connection: close`;
    /// closing is ours to do, or the connection would stay open until the peer gives up. A request taken
    /// before it is answered first (the decoder reports such bytes again on every read, before that answer
    /// is back from the front).
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if answering {
            refused = true
            closesAfterAnswer = true
        } else {
            context.close(promise: nil)
        }
    }

    private func dispatch(_ request: HTTPRequestHead, context: ChannelHandlerContext) {
        let (path, query) = Self.split(request.uri)
        guard let console, ConsoleAPI.owns(path) else {
            respond(routes.respond(method: request.method.rawValue, uri: request.uri), to: request, context: context)
            return
        }
        let outcome = console.api.outcome(
            method: request.method.rawValue, path: path, query: query,
            authorization: request.headers.first(name: "Authorization"), body: body
        )
        body = []
        switch outcome {
        case .respond(let response):
            respond(response, to: request, context: context)
        case .forward(let requestBody):
            let promise = context.eventLoop.makePromise(of: [UInt8].self)
            console.gateway.post(.front(requestBody, promise))
            answer(promise.futureResult, to: request, context: context, making: ConsoleAPI.response(toReply:))
        case .stats:
            let promise = context.eventLoop.makePromise(of: [UInt8].self)
            console.gateway.post(.stats(promise))
            answer(promise.futureResult, to: request, context: context) { ConsoleAPI.reply(200, "OK", $0) }
        case .stream(let filter):
            openStream(filter: filter, console: console, request: request, context: context)
        }
    }

    private func answer(
        _ future: EventLoopFuture<[UInt8]>, to request: HTTPRequestHead, context: ChannelHandlerContext,
        making response: @escaping ([UInt8]) -> OperationsRoutes.Response
    ) {
        future.assumeIsolated().whenComplete { result in
            switch result {
            case .success(let reply):
                self.respond(response(reply), to: request, context: context)
            case .failure(let error):
                let message = (error as? ConsoleGateway.Failure)?.message ?? "\(error)"
                let timedOut = message.hasPrefix("no reply")
                self.respond(
                    ConsoleAPI.error(timedOut ? 504 : 503, timedOut ? "Gateway Timeout" : "Service Unavailable", "unavailable", message),
                    to: request, context: context
                )
            }
        }
    }

    private func openStream(filter: String, console: ConsoleService, request: HTTPRequestHead, context: ChannelHandlerContext) {
        guard console.reserveStream() else {
            respond(ConsoleAPI.error(503, "Service Unavailable", "busy", "too many event streams are open (console.maxStreams)"), to: request, context: context)
            return
        }
        streaming = true
        answering = false
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/event-stream; charset=utf-8")
        headers.add(name: "Cache-Control", value: "no-store")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: .ok, headers: headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: ": open\n\n")))), promise: nil)
        let stream = ConsoleStream(channel: context.channel, topicFilter: filter)
        console.gateway.post(.open(stream))
        context.channel.closeFuture.whenComplete { _ in
            console.gateway.post(.close(stream))
            console.releaseStream()
        }
    }

    private func refuseBody(context: ChannelHandlerContext, head: HTTPRequestHead, limit: Int) {
        refused = true
        var response = ConsoleAPI.error(413, "Content Too Large", "too_large", "the request body is over \(limit) bytes (console.maxBodyBytes)")
        response.headers.append(("Connection", "close"))
        respond(response, to: head, context: context, close: true)
    }

    private func respond(_ response: OperationsRoutes.Response, to request: HTTPRequestHead, context: ChannelHandlerContext, close: Bool = false) {
        answering = false
        let close = close || closesAfterAnswer
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: response.contentType)
        headers.add(name: "Content-Length", value: String(response.body.count))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        if let allow = response.allow { headers.add(name: "Allow", value: allow) }
        for (name, value) in response.headers where name != "Connection" { headers.add(name: name, value: value) }
        let keepAlive = request.isKeepAlive && !close
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let head = HTTPResponseHead(version: request.version, status: HTTPResponseStatus(statusCode: response.status, reasonPhrase: response.reason), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if request.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body)))), promise: nil)
        }
        if keepAlive {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            armDeadline(context: context)
        } else {
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    /// Closes the connection unless a whole request arrives in time.
    private func armDeadline(context: ChannelHandlerContext) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: .init(console?.timeout ?? Self.defaultTimeout)) {
            channel.close(promise: nil)
        }
    }

    private static func path(of uri: String) -> String { split(uri).path }

    private static func split(_ uri: String) -> (path: String, query: String) {
        let parts = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return (String(parts.first ?? ""), parts.count > 1 ? String(parts[1]) : "")
    }
}
