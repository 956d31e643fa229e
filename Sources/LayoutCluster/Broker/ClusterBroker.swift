import Dispatch
import Foundation
import LayoutJournal
import LayoutServer
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals
import ZeroMQ

/// `layoutd --role broker`: the cluster's front. Binds the client sockets exactly as the single daemon
/// does (front ROUTER, events XPUB, stats ROUTER; PROTOCOL.md unchanged, CURVE and namespaces
/// included) plus the back ROUTER for workers and the events-in XSUB they publish to; routes every
/// request to a worker.
public struct ClusterBroker: Service {
    public let configuration: ServerConfiguration
    public let cluster: ClusterConfiguration
    public let logger: Logger

    public init(configuration: ServerConfiguration, cluster: ClusterConfiguration, logger: Logger) {
        self.configuration = configuration
        self.cluster = cluster
        self.logger = logger
    }

    public func run() async throws {
        // With CURVE, SIGHUP rereads the client keys (clients' and workers'), as the single daemon does;
        // trapped before the sockets are bound, so a SIGHUP never meets the default action (exit).
        let hangUps = configuration.isCurveEnabled ? await UnixSignalsSequence(trapping: .sighup) : nil
        let running = try start()
        logger.info("layoutd broker serving", metadata: [
            "front": "\(running.frontEndpoint)", "events": "\(running.eventsEndpoint)", "stats": "\(running.statsEndpoint)",
            "back": "\(running.backEndpoint)", "eventsIn": "\(running.eventsInEndpoint)",
        ])
        await running.serveUntilStopped(reloadingOn: hangUps, logger: logger)
        logger.info("layoutd broker stopped")
    }

    /// The settings a broker serves with. One that took the lease from another waits, before it
    /// rebuilds, moves or changes any key, for the longest read lease the other could have granted to
    /// run out: it granted none after its serving window ended, which was before the lease lapsed, and
    /// a read lease ends within heartbeat × (liveness − 1) of its grant on the worker's clock; a
    /// heartbeat of margin covers the clocks' rates, as the broker's wait for a silent worker does.
    /// `cluster.rejoinMillis` is that wait, so it is raised to this when set lower.
    static func takingOver(_ cluster: ClusterConfiguration, leased: Bool) -> ClusterConfiguration {
        guard leased else { return cluster }
        var raised = cluster
        raised.rejoinMilliseconds = max(cluster.resolvedRejoinMilliseconds, cluster.heartbeatMilliseconds * cluster.liveness)
        return raised
    }

    /// Binds every socket and starts serving on threads of its own; returns once they are bound.
    public func start() throws -> RunningNode {
        let context = try Context()
        let mailbox = try Mailbox<BrokerSignal>()
        let stats = ServerStats()
        let proxy: EventProxy
        let access: AccessControl?
        do {
            // Before any socket binds: without a handler, libzmq would admit every CURVE client.
            access = try ClusterCurve.startBrokerAccess(configuration: configuration, context: context, stats: stats, logger: logger)
            proxy = try EventProxy(
                context: context, eventsEndpoint: configuration.eventsEndpoint, eventsInEndpoint: cluster.eventsInEndpoint,
                sendHighWaterMark: configuration.sendHighWaterMark, access: access, logger: logger
            )
        } catch {
            context.terminate()
            throw error
        }
        // With a PostgreSQL journal the brokers share it, and one holds the lease: the others are standbys.
        let lease: BrokerLease?
        let journaled: JournaledRecipes?
        do {
            if case .postgres(let url) = JournaledRecipes.url(for: configuration) {
                let holder = "\(ProcessInfo.processInfo.hostName) (front \(configuration.frontEndpoint))"
                lease = try BrokerLease(url: url, holder: holder, ttlMillis: cluster.leaseMilliseconds)
                journaled = nil
            } else {
                lease = nil
                journaled = try JournaledRecipes.open(configuration: configuration, logger: logger)
            }
        } catch {
            context.shutdown()
            proxy.waitUntilFinished()
            context.terminate()
            if let error = error as? JournalError { throw ServerError("journal: \(error.message)") }
            throw error
        }
        let health = DaemonHealth()
        let running = RunningNode(stop: { mailbox.post(.shutdown) }, health: health, access: access)
        // The journal in use, once there is one (a standby opens it when it takes over): /readyz is 503
        // while it cannot write, since changes are then not acknowledged.
        let journalInUse = Mutex<Journal?>(journaled?.journal)
        let bound = Mutex<Result<(String, String, String), ServerError>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let configuration = self.configuration
        let cluster = self.cluster
        let logger = self.logger
        let thread = Thread {
            // Said once: start() returns when the front is bound (a standby's, or the active broker's).
            func announce(_ result: Result<(String, String, String), ServerError>) {
                let first = bound.withLock { value -> Bool in
                    defer { if value == nil { value = result } }
                    return value == nil
                }
                if first { ready.signal() }
            }
            var journaledNow = journaled
            var boundFront: FrontSocket?
            var keeper: LeaseKeeper?
            do {
                if let lease {
                    let standby = try StandbyFront(context: context, configuration: configuration, access: access, lease: lease, mailbox: mailbox, health: health, stats: stats, logger: logger)
                    announce(.success((standby.endpoint, configuration.statsEndpoint, cluster.backEndpoint)))
                    guard let (epoch, sentAt) = standby.serveUntilLeased() else {
                        standby.front.close()
                        throw ServerError("stopped while a standby")
                    }
                    logger.notice("took the broker lease: active", metadata: ["epoch": "\(epoch)"])
                    boundFront = standby.front
                    // Renewed from now on, while the recipes load too (they may take longer than the lease).
                    keeper = LeaseKeeper(lease: lease, epoch: epoch, sentAt: sentAt, logger: logger) { mailbox.post(.shutdown) }
                    journaledNow = try JournaledRecipes.open(configuration: configuration, leaseEpoch: epoch, logger: logger)
                    journalInUse.withLock { $0 = journaledNow?.journal }
                }
                let loop = try BrokerLoop(
                    context: context, configuration: configuration, cluster: Self.takingOver(cluster, leased: lease != nil), proxy: proxy, mailbox: mailbox,
                    health: health, stats: stats, access: access, journaled: journaledNow, boundFront: boundFront,
                    servingWindow: keeper?.window ?? .unbounded, logger: logger
                )
                // Serving (for /readyz) once the loop has waited for workers to register again.
                announce(.success((loop.frontEndpoint, loop.statsEndpoint, loop.backEndpoint)))
                loop.run()
            } catch {
                journaledNow?.journal.close()
                announce(.failure(ServerError("cannot start: \(error)")))
                if lease != nil && "\(error)" != "stopped while a standby" {
                    logger.error("the broker cannot serve", metadata: ["error": "\(error)"])
                }
                // No loop to send the proxy TERMINATE: shutting the context down stops it.
                context.shutdown()
            }
            keeper?.stop()
            proxy.waitUntilFinished()
            context.terminate()
            running.markStopped()
        }
        thread.name = "layoutd-broker"
        thread.start()
        ready.wait()
        let endpoints = try bound.withLock { $0 ?? .failure(ServerError("the broker did not start")) }.get()
        running.setEndpoints(front: endpoints.0, events: proxy.eventsEndpoint, stats: endpoints.1, back: endpoints.2, eventsIn: proxy.eventsInEndpoint)
        // `/metrics` is the stats socket's `metrics` answer, which only the I/O thread can make.
        let metrics: @Sendable () -> [UInt8] = {
            let ask = MetricsAsk()
            mailbox.post(.metrics(ask))
            return ask.wait(timeout: .seconds(2)) ?? Array("# the broker's I/O thread did not answer within 2 s\n".utf8)
        }
        let readiness: @Sendable () -> String? = {
            journalInUse.withLock { $0?.unwritableReason }.map { "the broker's journal cannot write: \($0)" }
        }
        // The console's gateway speaks to this broker's front like any client, so it sees the cluster.
        let console: ConsoleSetup?
        do {
            console = try ConsoleSetup.forProcess(configuration: configuration, front: endpoints.0, stats: endpoints.1, events: proxy.eventsEndpoint, access: access)
        } catch {
            running.stop()
            throw error
        }
        try running.serveOperations(at: configuration.httpAddress, routes: OperationsRoutes(health: health, metrics: metrics, readiness: readiness, console: console))
        return running
    }
}

