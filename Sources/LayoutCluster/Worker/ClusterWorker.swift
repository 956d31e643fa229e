import Dispatch
import Foundation
import LayoutServer
import LayoutWire
import Logging
import ServiceLifecycle
import UnixSignals
import Synchronization
import ZeroMQ

/// `layoutd --role worker --join tcp://HOST:5560`: the single daemon's engine, store and worker pool,
/// taking requests from a broker instead of a front socket of its own.
public struct ClusterWorker: Service {
    public let configuration: ServerConfiguration
    public let cluster: ClusterConfiguration
    public let logger: Logger

    public init(configuration: ServerConfiguration, cluster: ClusterConfiguration, logger: Logger) {
        self.configuration = configuration
        self.cluster = cluster
        self.logger = logger
    }

    public func run() async throws {
        // A direct endpoint with CURVE admits the broker's clients: SIGHUP rereads their keys, as the
        // broker does (trapped before the sockets are bound, so a SIGHUP never meets the default action).
        let hangUps = configuration.isCurveEnabled && cluster.directEndpoint != nil ? await UnixSignalsSequence(trapping: .sighup) : nil
        let running = try start()
        logger.info("layoutd worker serving", metadata: [
            "broker": "\(cluster.joinEndpoint ?? "")", "events": "\(cluster.joinEventsEndpoints.joined(separator: ","))",
            "worker": "\(cluster.resolvedWorkerID)", "workers": "\(configuration.resolvedWorkers)",
        ])
        await running.serveUntilStopped(reloadingOn: hangUps, logger: logger)
        logger.info("layoutd worker stopped")
    }

    /// Builds the store, handler and pool, connects to the broker and serves on a thread of its own.
    public func start() throws -> RunningNode {
        let curve: (keys: CurveKeyPair, broker: CurveKey)?
        if let secretFile = cluster.workerSecretKeyFile, let publicFile = cluster.brokerPublicKeyFile {
            curve = (try ClusterCurve.workerKeys(secretKeyFile: secretFile), try ClusterCurve.brokerPublicKey(file: publicFile))
        } else {
            curve = nil
        }
        let context = try Context()
        let mailbox = try Mailbox<WorkerMessage>()
        let stats = ServerStats()
        let membership = WorkerMembership(livenessNanos: UInt64(cluster.heartbeatMilliseconds) * 1_000_000 * UInt64(cluster.liveness))
        let store = LayoutStore(capacityBytes: configuration.storeCapacityBytes, onChange: JobOrigin.fenced(by: membership) { change in
            // The namespace goes with the event to the broker, which publishes it to that namespace's
            // subscribers alone (with CURVE; without it, every key is in "").
            let (namespace, event) = change.event
            mailbox.post(.event(namespace: namespace, topic: event.topic, body: event.body))
            // An eviction goes to the broker too, on the DEALER in order with the replies (EVICTED): the
            // event stream does not say which worker evicted which copy, and the broker must believe
            // only the key's owner, for its copy (issue 14, defect 3).
            if case .invalidated(let key, let version, .evicted, _, let epoch) = change {
                let report = EvictionReport(evicted: [ReadyInfo.KeyVersion(key: key, version: version, epoch: epoch)])
                mailbox.post(.toBroker([WorkerCommand.evicted.frame, report.frame]))
            }
        })
        let handler = RequestHandler(store: store, stats: stats, limits: configuration.inputLimits, startedAt: Date())
        let brokerJobs = BrokerJobDesk()
        var jobs = ClusterJobHandler(handler: handler, store: store, stats: stats, limits: configuration.inputLimits, brokerJobs: brokerJobs)
        jobs.membership = membership
        // Reads straight from clients (`cluster.direct`), answered only under the broker's read lease.
        // With CURVE, the direct endpoint admits the broker's clients under the broker's key (its ZAP
        // handler starts before any socket of the context binds).
        let directAccess = cluster.directEndpoint == nil ? nil : try ClusterCurve.startDirectAccess(configuration: configuration, context: context, stats: stats, logger: logger)
        let direct = cluster.directEndpoint.map { _ in (reads: JobDesk<DirectRead>(), lease: ReadLease(), fences: DirectReadFences(), counters: DirectReadCounters(), access: directAccess) }
        jobs.directReads = direct?.reads
        jobs.lease = direct?.lease
        jobs.fences = direct?.fences
        jobs.directCounters = direct?.counters
        let poolJobs = jobs
        let pool = WorkerPool(workers: configuration.resolvedWorkers, queueCapacity: configuration.queueCapacity, handler: jobs, stats: stats) { reply in
            mailbox.post(.reply(reply))
        }
        let health = DaemonHealth()
        let running = RunningNode(stop: { mailbox.post(.shutdown) }, health: health, access: directAccess)
        let bound = Mutex<Result<(stats: String?, direct: String?), ServerError>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let configuration = self.configuration
        let cluster = self.cluster
        let logger = self.logger
        let thread = Thread {
            do {
                let link = try WorkerLink(
                    context: context, configuration: configuration, cluster: cluster, mailbox: mailbox,
                    pool: pool, store: store, stats: stats, brokerJobs: brokerJobs,
                    curve: curve, membership: membership, health: health, direct: direct, jobs: poolJobs, logger: logger
                )
                health.advance(to: .serving)
                bound.withLock { $0 = .success((link.statsEndpoint, link.directEndpoint)) }
                ready.signal()
                link.run()
            } catch {
                bound.withLock { $0 = .failure(ServerError("cannot start the worker: \(error)")) }
                ready.signal()
            }
            context.terminate()
            running.markStopped()
        }
        thread.name = "layoutd-worker-io"
        thread.start()
        ready.wait()
        let endpoints = try bound.withLock { $0 ?? .failure(ServerError("the worker did not start")) }.get()
        // A worker's front is its direct endpoint, as clients reach it ("" without one).
        running.setEndpoints(front: endpoints.direct ?? "", events: "", stats: endpoints.stats ?? "", back: cluster.joinEndpoint ?? "", eventsIn: cluster.joinEventsEndpoints.joined(separator: ","))
        // The same exposition as the worker's stats socket's `metrics`.
        var metrics = WorkerMetrics(stats: stats, pool: pool, store: store, membership: membership)
        metrics.direct = direct.map { (lease: $0.lease, counters: $0.counters) }
        try running.serveOperations(
            at: cluster.workerHTTPAddress,
            routes: OperationsRoutes(health: health, metrics: metrics.exposition, readiness: { membership.notJoinedReason })
        )
        return running
    }
}
