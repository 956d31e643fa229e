import NIOCore
import NIOHTTP1
import NIOPosix

/// The operations HTTP listener (`http` in the configuration): `/metrics`, `/healthz`, `/readyz`, on
/// SwiftNIO with one event-loop thread of its own, apart from the daemon's I/O and worker threads.
public final class OperationsServer: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    /// The address actually bound (port 0 resolved).
    public let boundAddress: OperationsAddress

    /// Binds `address` and starts answering; throws when it cannot bind.
    public init(address: OperationsAddress, routes: OperationsRoutes) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(OperationsHandler(routes: routes))
                }
            }
        do {
            channel = try bootstrap.bind(host: address.host, port: address.port).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        self.group = group
        boundAddress = OperationsAddress(host: address.host, port: channel.localAddress?.port ?? address.port)
    }

    /// Stops listening, closes open connections and joins the event-loop thread. Not to be called from
    /// that thread.
    public func close() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}
