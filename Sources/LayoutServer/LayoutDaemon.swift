import Dispatch
import Foundation
import LayoutEngine
import LayoutWire
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals
import ZeroMQ

/// layoutd as a service: binds the sockets, serves until graceful shutdown (SIGTERM / SIGINT through
/// swift-service-lifecycle), answers every admitted request, then exits.
public struct LayoutDaemon: Service {
    public let configuration: ServerConfiguration
    public let logger: Logger

    public init(configuration: ServerConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        // With CURVE, SIGHUP rereads the client keys. Trapped before the sockets are bound, so a SIGHUP
        // sent once the daemon answers never meets the default action (exit); without CURVE, SIGHUP is
        // left as it always was.
        let hangUps = configuration.isCurveEnabled ? await UnixSignalsSequence(trapping: .sighup) : nil
        let running = try start()
        logger.info("layoutd serving", metadata: [
            "front": "\(running.frontEndpoint)", "events": "\(running.eventsEndpoint)", "stats": "\(running.statsEndpoint)",
            "workers": "\(configuration.resolvedWorkers)",
        ])
        let logger = self.logger
        await withTaskGroup(of: Void.self) { group in
            if let hangUps {
                group.addTask { await running.reloadClientKeys(on: hangUps, logger: logger) }
            }
            await withGracefulShutdownHandler {
                await running.waitUntilStopped()
            } onGracefulShutdown: {
                running.requestStop()
            }
            group.cancelAll()
        }
        logger.info("layoutd stopped")
    }

    /// Binds the sockets and starts serving on a thread of its own; returns once the sockets are bound.
    public func start() throws -> RunningDaemon {
        let stats = ServerStats()
        let access = try makeAccessControl(stats: stats)
        let context = try Context()
        if let access {
            // Before any socket binds: without a handler, libzmq would admit every CURVE client.
            try ZAPHandler.start(context: context, access: access, logger: logger)
        }
        let mailbox = try Mailbox<IOMessage>()
        let store = LayoutStore(capacityBytes: configuration.storeCapacityBytes) { change in
            let event: WireEvent
            let namespace: String
            switch change {
            case let .invalidated(key, version, reason, contentSize):
                event = EventEncoder.invalidated(layout: key.name, version: version, reason: reason, contentSize: contentSize)
                namespace = key.namespace
            case let .batch(key, version, members, contentSize):
                event = EventEncoder.batch(layout: key.name, version: version, members: members, contentSize: contentSize)
                namespace = key.namespace
            }
            mailbox.post(.event(namespace: namespace, topic: event.topic, body: event.body))
        }
        let handler = RequestHandler(store: store, stats: stats, limits: configuration.inputLimits, startedAt: Date())
        let pool = WorkerPool(workers: configuration.resolvedWorkers, queueCapacity: configuration.queueCapacity, handler: handler, stats: stats) { reply in
            mailbox.post(.reply(reply))
        }
        let running = RunningDaemon(mailbox: mailbox, access: access)
        let bound = BindResult()
        let configuration = self.configuration
        let logger = self.logger
        let thread = Thread {
            let loop: IOLoop
            do {
                loop = try IOLoop(
                    context: context, configuration: configuration, mailbox: mailbox, stats: stats, logger: logger,
                    submit: { envelope, body in pool.submit(envelope: envelope, body: body) },
                    statsAnswer: { kind in
                        let snapshot = stats.snapshot(pool: pool.usage, store: store.usage)
                        switch kind {
                        case .stats: return snapshot.jsonBytes()
                        case .metrics: return Array(snapshot.prometheusText().utf8)
                        }
                    },
                    isIdle: { pool.isIdle },
                    access: access
                )
            } catch {
                bound.set(.failure(ServerError("cannot bind: \(error)")))
                context.terminate()
                running.markStopped()
                return
            }
            bound.set(.success((loop.frontEndpoint, loop.eventsEndpoint, loop.statsEndpoint)))
            loop.run()
            context.terminate()
            running.markStopped()
        }
        thread.name = "layoutd-io"
        thread.start()
        let endpoints = try bound.wait().get()
        running.setEndpoints(front: endpoints.0, events: endpoints.1, stats: endpoints.2)
        return running
    }
}

/// A daemon that is serving: its bound endpoints and how to stop it.
public final class RunningDaemon: Sendable {
    private let mailbox: Mailbox<IOMessage>
    private let stopped = DispatchGroup()
    private let endpoints = Mutex((front: "", events: "", stats: ""))
    /// With CURVE, the keys and the allow-list; nil without CURVE.
    let access: AccessControl?

    init(mailbox: Mailbox<IOMessage>, access: AccessControl?) {
        self.mailbox = mailbox
        self.access = access
        stopped.enter()
    }

    /// The server's CURVE public key, which clients need; nil without CURVE.
    public var serverPublicKey: CurveKey? { access?.serverKeys.publicKey }

    public var frontEndpoint: String { endpoints.withLock { $0.front } }
    public var eventsEndpoint: String { endpoints.withLock { $0.events } }
    public var statsEndpoint: String { endpoints.withLock { $0.stats } }

    func setEndpoints(front: String, events: String, stats: String) {
        endpoints.withLock { $0 = (front, events, stats) }
    }

    func markStopped() { stopped.leave() }

    /// Stops accepting, answers admitted requests, then stops (asynchronously).
    public func requestStop() { mailbox.post(.shutdown) }

    /// Returns when the daemon has stopped and its sockets are closed.
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

/// The I/O thread's answer to "are the sockets bound?", awaited by `start()`.
private final class BindResult: Sendable {
    private let result = Mutex<Result<(String, String, String), ServerError>?>(nil)
    private let ready = DispatchSemaphore(value: 0)

    func set(_ value: Result<(String, String, String), ServerError>) {
        result.withLock { $0 = value }
        ready.signal()
    }

    func wait() -> Result<(String, String, String), ServerError> {
        ready.wait()
        return result.withLock { $0 } ?? .failure(ServerError("no bind result"))
    }
}
