import Dispatch
import LayoutServer
import Logging
import Synchronization
import ZeroMQ

/// A broker or worker that is serving: its bound endpoints and how to stop it.
public final class RunningNode: Sendable, ClientKeyHolder {
    private let stopRequest: @Sendable () -> Void
    private let stopped = DispatchGroup()
    private let endpoints = Mutex((front: "", events: "", stats: "", back: "", eventsIn: ""))
    /// The HTTP listener; closed once the sockets are, so `/readyz` answers 503 for the whole drain.
    private let http = OperationsListenerSlot()
    /// What `/healthz` and `/readyz` answer from.
    public let health: DaemonHealth
    /// A broker's keys and allow-list with CURVE; nil without CURVE, and for a worker.
    public let access: AccessControl?

    init(stop: @escaping @Sendable () -> Void, health: DaemonHealth, access: AccessControl? = nil) {
        stopRequest = stop
        self.health = health
        self.access = access
        stopped.enter()
    }

    /// The broker's CURVE public key, which clients and workers need; nil without CURVE.
    public var serverPublicKey: CurveKey? { access?.serverKeys.publicKey }

    public var frontEndpoint: String { endpoints.withLock { $0.front } }
    public var eventsEndpoint: String { endpoints.withLock { $0.events } }
    public var statsEndpoint: String { endpoints.withLock { $0.stats } }
    /// The back ROUTER workers join (`cluster.back`), its port resolved.
    public var backEndpoint: String { endpoints.withLock { $0.back } }
    /// The XSUB workers publish their events to (`cluster.eventsIn`), its port resolved.
    public var eventsInEndpoint: String { endpoints.withLock { $0.eventsIn } }

    func setEndpoints(front: String, events: String, stats: String, back: String, eventsIn: String) {
        endpoints.withLock { $0 = (front, events, stats, back, eventsIn) }
    }

    /// The HTTP listener's bound `host:port` (its port resolved); nil without one.
    public var httpAddress: String? { http.boundAddress }

    /// Starts the operations HTTP listener at `address` (`host:port`; nil or empty: none) and keeps it
    /// until the node stops; when it cannot bind, stops the node and throws.
    func serveOperations(at address: String?, routes: OperationsRoutes) throws {
        guard let address, !address.isEmpty else { return }
        guard let parsed = OperationsAddress(parsing: address) else {
            stop()
            throw ServerError("http must be host:port, not \(address)")
        }
        let server: OperationsServer
        do {
            server = try OperationsServer(address: parsed, routes: routes)
        } catch {
            stop()
            throw ServerError("cannot bind http \(address): \(error)")
        }
        http.attach(server)
    }

    /// On the I/O thread, once its sockets are closed.
    func markStopped() {
        health.advance(to: .stopped)
        http.close()
        stopped.leave()
    }

    /// Stops accepting, answers admitted requests, then stops (asynchronously).
    public func requestStop() {
        health.advance(to: .draining)
        stopRequest()
    }

    public func waitUntilStopped() async {
        await withCheckedContinuation { continuation in
            stopped.notify(queue: .global()) { continuation.resume() }
        }
    }

    /// Requests a stop and blocks until it is done.
    public func stop() {
        requestStop()
        stopped.wait()
    }
}
