import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// The operations HTTP listener (`http` in the configuration): `/metrics`, `/healthz`, `/readyz` and,
/// when given one, the web console (`/`, `/console/`, `/api/`), on SwiftNIO with one event-loop thread of
/// its own, apart from the daemon's I/O and worker threads; the console's gateway has a thread too.
public final class OperationsServer: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let console: ConsoleService?
    /// Connections open at once; more are closed as they arrive.
    static let maxConnections = 256
    /// The address actually bound (port 0 resolved).
    public let boundAddress: OperationsAddress

    /// Binds `address` and starts answering; throws when it cannot bind.
    public init(address: OperationsAddress, routes: OperationsRoutes, logger: Logger = Logger(label: "layoutd.console")) throws {
        let console = try routes.console.map { try ConsoleService(setup: $0, logger: logger) }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let open = Atomic<Int>(0)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                guard open.add(1, ordering: .relaxed).newValue <= Self.maxConnections else {
                    open.subtract(1, ordering: .relaxed)
                    return channel.close()
                }
                channel.closeFuture.whenComplete { _ in open.subtract(1, ordering: .relaxed) }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: false)
                    try channel.pipeline.syncOperations.addHandler(ProtocolErrorAnswer())
                    try channel.pipeline.syncOperations.addHandler(OperationsHandler(routes: routes, console: console))
                }
            }
        do {
            channel = try bootstrap.bind(host: address.host, port: address.port).wait()
        } catch {
            try? group.syncShutdownGracefully()
            console?.stop()
            throw error
        }
        self.console = console
        self.group = group
        boundAddress = OperationsAddress(host: address.host, port: channel.localAddress?.port ?? address.port)
    }

    /// Stops listening, closes open connections and joins the event-loop thread. Not to be called from
    /// that thread.
    public func close() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
        console?.stop()
    }
}
