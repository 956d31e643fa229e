import Dispatch
import Logging
import Synchronization
import ZeroMQ

/// A daemon, broker or worker that is serving: its bound endpoints, its operations listener and how to
/// stop it. Each role's `start()` returns one; the role's I/O thread calls `markStopped()` once its
/// sockets are closed.
public final class RunningNode: Sendable {
    /// The endpoints a node bound, their ports resolved ("" for one it has not).
    public struct Endpoints: Sendable {
        public var front = ""
        public var events = ""
        public var stats = ""
        /// A role's further endpoints by name (a broker's `back` and `eventsIn`).
        public var others: [String: String] = [:]

        public init(front: String = "", events: String = "", stats: String = "", others: [String: String] = [:]) {
            self.front = front
            self.events = events
            self.stats = stats
            self.others = others
        }
    }

    private let stopRequest: @Sendable () -> Void
    private let stopped = DispatchGroup()
    private let bound = Mutex(Endpoints())
    /// The HTTP listener; closed once the sockets are, so `/readyz` answers 503 for the whole drain.
    private let http = OperationsListenerSlot()
    /// What `/healthz` and `/readyz` answer from.
    public let health: DaemonHealth
    /// With CURVE, the keys and the allow-list of the node's front; nil without CURVE.
    public let access: AccessControl?

    /// `stop` asks the node's I/O thread to drain and stop (it returns at once).
    public init(stop: @escaping @Sendable () -> Void, health: DaemonHealth, access: AccessControl? = nil) {
        stopRequest = stop
        self.health = health
        self.access = access
        stopped.enter()
    }

    /// The front's CURVE public key, which clients need; nil without CURVE.
    public var serverPublicKey: CurveKey? { access?.serverKeys.publicKey }

    public var frontEndpoint: String { bound.withLock { $0.front } }
    public var eventsEndpoint: String { bound.withLock { $0.events } }
    public var statsEndpoint: String { bound.withLock { $0.stats } }
    /// The endpoint a role bound under `name` beside its front, events and stats ("" when none).
    public func endpoint(named name: String) -> String { bound.withLock { $0.others[name] ?? "" } }
    /// The HTTP listener's bound `host:port` (its port resolved); nil without one.
    public var httpAddress: String? { http.boundAddress }

    public func setEndpoints(_ endpoints: Endpoints) {
        bound.withLock { $0 = endpoints }
    }

    /// Starts the operations HTTP listener at `address` (`host:port`; nil or empty: none) and keeps it
    /// until the node stops; when it cannot bind, stops the node and throws.
    public func serveOperations(at address: String?, routes: OperationsRoutes, logger: Logger = Logger(label: "layoutd.console")) throws(ServerError) {
        guard let address, !address.isEmpty else { return }
        guard let parsed = OperationsAddress(parsing: address) else {
            stop()
            throw ServerError("http must be host:port, not \(address)")
        }
        do {
            http.attach(try OperationsServer(address: parsed, routes: routes, logger: logger))
        } catch {
            stop()
            throw ServerError("cannot bind http \(address): \(error)")
        }
    }

    /// On the I/O thread, once its sockets are closed.
    public func markStopped() {
        health.advance(to: .stopped)
        http.close()
        stopped.leave()
    }

    /// Stops accepting, answers admitted requests, then stops (asynchronously).
    public func requestStop() {
        health.advance(to: .draining)
        stopRequest()
    }

    /// Returns when the node has stopped and its sockets are closed.
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

/// A single daemon that is serving (`LayoutDaemon.start()`).
public typealias RunningDaemon = RunningNode
