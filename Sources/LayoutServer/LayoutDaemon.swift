import Dispatch
import Foundation
import LayoutEngine
import LayoutJournal
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
            "http": "\(running.httpAddress ?? "off")", "workers": "\(configuration.resolvedWorkers)",
            "journal": "\(configuration.journalURL) (\(configuration.journalDurability.rawValue))",
        ])
        await running.serveUntilStopped(reloadingOn: hangUps, logger: logger)
        logger.info("layoutd stopped")
    }

    /// Binds the sockets (and the HTTP listener, when configured) and starts serving on a thread of its
    /// own; returns once they are bound.
    public func start() throws -> RunningDaemon {
        var httpAddress: OperationsAddress?
        if !configuration.httpAddress.isEmpty {
            guard let parsed = OperationsAddress(parsing: configuration.httpAddress) else {
                throw ServerError("http: not host:port: \(configuration.httpAddress)")
            }
            httpAddress = parsed
        }
        let stats = ServerStats()
        let access = try makeAccessControl(stats: stats)
        let context = try Context()
        if let access {
            // Before any socket binds: without a handler, libzmq would admit every CURVE client.
            try ZAPHandler.start(context: context, access: access, logger: logger)
        }
        let mailbox = try Mailbox<IOMessage>()
        let journal = try openJournal(stats: stats)
        let audience = EventAudience()
        let publish: @Sendable (StoreChange) -> Void = { change in
            // Nobody subscribes (any more): libzmq would drop the event; it is not made.
            guard audience.isListening else { return }
            let (namespace, event) = change.event
            mailbox.post(.event(namespace: namespace, topic: event.topic, body: event.body))
        }
        // With a journal, a change's events wait for the change to be written (`EventGate`).
        let events = journal == nil ? nil : EventGate(publish: publish)
        let store = LayoutStore(
            capacityBytes: configuration.storeCapacityBytes, backing: journal == nil ? .memoryOnly : .journal,
            perKeyBytes: journal == nil ? 0 : Journal.indexBytesPerKey
        ) { change in
            guard audience.isListening else { return }
            if let events { events.accept(change) } else { publish(change) }
        }
        let durable = journal.map { DurableLayouts(journal: $0, store: store, events: events, limits: self.configuration.inputLimits, stats: stats, logger: self.logger) }
        let handler = RequestHandler(store: store, stats: stats, limits: configuration.inputLimits, startedAt: Date(), durable: durable, audience: audience)
        let pool = WorkerPool(workers: configuration.resolvedWorkers, queueCapacity: configuration.queueCapacity, handler: handler, stats: stats) { reply in
            mailbox.post(.reply(reply))
        }
        let snapshot: @Sendable () -> StatsSnapshot = {
            var snapshot = stats.snapshot(pool: pool.usage, store: store.usage)
            snapshot.journal = durable.map { stats.journalReport($0, evictions: store.evictions) }
            return snapshot
        }
        let exposition: @Sendable () -> [UInt8] = {
            stats.metrics.exposition(of: snapshot(), process: ProcessUsage.current())
        }
        let health = DaemonHealth()
        let running = RunningNode(stop: { mailbox.post(.shutdown) }, health: health, access: access)
        let bound = BindResult()
        let configuration = self.configuration
        let logger = self.logger
        let thread = Thread {
            let desk = FrontDesk(handler: handler, pool: pool, stats: stats)
            let loop: IOLoop
            do {
                loop = try IOLoop(
                    context: context, configuration: configuration, mailbox: mailbox, stats: stats, logger: logger,
                    desk: desk,
                    statsAnswer: { kind in
                        switch kind {
                        case .stats: return snapshot().jsonBytes()
                        case .metrics: return exposition()
                        }
                    },
                    isIdle: { pool.isIdle },
                    access: access,
                    health: health,
                    audience: audience
                )
            } catch {
                bound.set(.failure(ServerError("cannot bind: \(error)")))
                context.terminate()
                durable?.close()
                running.markStopped()
                return
            }
            health.advance(to: .serving)
            bound.set(.success((loop.frontEndpoint, loop.eventsEndpoint, loop.statsEndpoint)))
            loop.run()
            context.terminate()
            // Every admitted change is answered by now: what the journal still queues is committed first.
            durable?.close()
            running.markStopped()
        }
        thread.name = "layoutd-io"
        thread.start()
        let endpoints = try bound.wait().get()
        running.setEndpoints(RunningNode.Endpoints(front: endpoints.0, events: endpoints.1, stats: endpoints.2))
        durable?.startInBackground(restoreConcurrency: configuration.resolvedRestoreConcurrency)
        if httpAddress != nil {
            // Not ready while the journal cannot write: changes are refused then (queries still served).
            let readiness: @Sendable () -> String? = {
                durable?.journal.unwritableReason.map { "the journal cannot write: \($0)" }
            }
            let console: ConsoleSetup?
            do {
                console = try ConsoleSetup.forProcess(configuration: configuration, front: endpoints.0, stats: endpoints.2, events: endpoints.1, access: access)
            } catch {
                running.stop()
                throw ServerError("cannot start the console: \(error)")
            }
            let routes = OperationsRoutes(health: health, metrics: exposition, readiness: readiness, console: console)
            try running.serveOperations(at: configuration.httpAddress, routes: routes, logger: logger)
        }
        return running
    }
}

extension LayoutDaemon {
    /// The configured journal, opened (its keys are read once the daemon serves); nil for `none`. A
    /// journal that cannot be used (unreadable, of another format or role) stops the start with a
    /// message that says why.
    fileprivate func openJournal(stats: ServerStats) throws -> Journal? {
        let logger = self.logger
        do {
            let journal = try Journal.open(
                configuration.journalURL, role: .daemon, durability: configuration.journalDurability,
                syncMillis: configuration.journalSyncMillis, compaction: configuration.journalCompaction,
                appendOnlyLog: true, postgresLogPath: configuration.journalLogPath, loadsKeysInBackground: true,
                onCommit: { stats.recordJournalCommit(micros: $0.micros) },
                onSync: { stats.recordJournalSync(micros: $0) },
                onHealthChange: { writable, reason in
                    if writable {
                        logger.notice("the journal writes again; changes are accepted")
                    } else {
                        logger.error("the journal cannot write; changes are refused until it can", metadata: ["reason": "\(reason ?? "unknown")"])
                    }
                }
            )
            // A torn write left out of the log (a crash mid-write), and what was replayed from it.
            for note in journal?.notesAtOpen ?? [] { logger.warning("\(note)") }
            return journal
        } catch {
            throw ServerError("journal \(configuration.journalURL): \(error.message)")
        }
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
