import Foundation
import LayoutServer
import LayoutWire
import Logging
@testable import LayoutCluster

/// A broker core without sockets, with workers that run the real handler, store and RESTORE code
/// synchronously: orders queue per worker until a test delivers them, so a test decides exactly what is
/// in flight when a worker dies.
final class SimulatedCluster: BrokerOutput {
    struct Sent {
        var routingID: [UInt8]
        var order: WorkerOrder
    }

    private(set) var core: BrokerCore!
    private(set) var replies: [(envelope: [[UInt8]], body: [UInt8])] = [] {
        didSet {
            if let last = replies.last, replies.count > oldValue.count {
                lastReply[last.envelope] = replies.count - 1
                onReply?(last.envelope)
            }
        }
    }
    /// The place in `replies` of the last reply to each envelope (a long simulation looks them up often).
    var lastReply: [[[UInt8]]: Int] = [:]
    var published: [WireEvent] = []
    /// The namespace of each event in `published`.
    var publishedNamespaces: [String] = []
    var workers: [String: SimulatedWorker] = [:]
    /// Orders sent and not yet delivered, per routing id, in order, with the broker's epoch when each
    /// was sent and the read lease it grants (a HEARTBEAT carries both, computed as it leaves).
    var queued: [[UInt8]: [(order: WorkerOrder, epoch: UInt64, grant: LeaseGrant?)]] = [:]
    private(set) var sent: [Sent] = []
    /// How many orders at the front of each queue the worker's I/O thread has read already (`readAhead`):
    /// they sit in its pool, run in order, and are not lost with its connection.
    var inPool: [[UInt8]: Int] = [:]
    /// The broker's clock, shared with the clocks of workers with a direct endpoint (which run at rates
    /// of their own from it).
    let time: SimulatedTime
    var clock: Nanos {
        get { time.now }
        set { time.set(newValue) }
    }
    /// Whether links and clocks are modelled (`SimulatedDirectReads`): a worker acts on DISCONNECT.
    var modelsLinks = false
    /// When the broker ticks next, with `advanceClocks` (`advance` ticks at every call).
    var nextTick: Nanos = 2_000_000_000
    /// Each worker's clock rate, in thousandths of the broker's, when it has a direct endpoint (a new
    /// process under the same name runs on the same machine, at the same rate).
    var clockRates: [String: UInt64] = [:]
    /// Each worker's configured direct endpoint (`cluster.direct`), which every process under its name
    /// joins with.
    var directEndpoints: [String: String] = [:]
    private var nextClient = 0
    /// The first frame of each client envelope this broker sees (two brokers' envelopes never meet).
    var envelopePrefix = "client"
    /// The PostgreSQL journal shared with another broker (`SimulatedStandby`), whose commits are fenced
    /// by the lease epoch this broker holds; nil: `journaled` (or none).
    let database: SimulatedDatabase?
    /// The lease epoch this broker's journal writes are fenced by.
    let fencingEpoch: UInt64
    /// Whether a journal write since the last change's reply was refused (the lease was taken).
    var journalRefused = false
    /// Keys a journal write of which was refused, until a write that replaces their record (a start, a
    /// removal, an unprotect) is committed: as `Journal.writeFailed(of:)` tells the real broker.
    var journalMissed: Set<LayoutKey> = []
    /// Keys whose recipe this broker removed (an eviction from its book, an unprotect, a loss) with a
    /// write that was refused: the journal still holds a recipe this broker no longer has.
    var removalsMissed: Set<LayoutKey> = []
    /// Whether this broker's link to the database is cut: its journal writes fail.
    var journalCut = false
    /// Told of every reply as it leaves (the two-broker walk stamps it with the lease's epoch then).
    var onReply: (([[UInt8]]) -> Void)?
    /// Whether the broker may answer and grant read leases now (its lease's serving window).
    var mayAct: () -> Bool = { true }
    private var nextDescriptor: Int32 = 100

    private let makeCore: (SimulatedCluster) -> BrokerCore
    /// Each broker process's epoch: a restarted one's is greater, as a real one's clock makes it.
    private(set) var brokerEpochs: UInt64 = 1_000

    /// The broker's journal of recipes, committed at once as a real one commits before it answers; nil
    /// for a broker without one (its recipes die with it).
    private(set) var journaled: [LayoutKey: (base: Int, bodies: [[UInt8]], epoch: UInt64)]?
    /// Keys the journal holds as dropped (not kept), with their version and epoch.
    private(set) var journaledDrops: [LayoutKey: (version: Int, epoch: UInt64)] = [:]

    /// Each worker's store bound (`store.maxBytes`): small, its stores evict.
    let workerStoreBytes: Int
    /// Evictions reported by workers (EVICTED) that the broker believed: the key is gone, at that version.
    var believedEvictions: [(key: LayoutKey, version: Int, worker: String)] = []

    init(
        recipeBytes: Int = 1 << 30, restoresPerWorker: Int = 2, secured: Bool = false, compaction: CompactionPolicy = CompactionPolicy(),
        journaled: Bool = false, dropGraceNanos: Nanos = 0, workerStoreBytes: Int = 1 << 30,
        time: SimulatedTime = SimulatedTime(1_000_000_000), database: SimulatedDatabase? = nil, leaseEpoch: UInt64? = nil
    ) {
        self.workerStoreBytes = workerStoreBytes
        self.journaled = journaled ? [:] : nil
        self.time = time
        self.database = database
        fencingEpoch = leaseEpoch ?? 0
        // A leased broker's epoch is its lease's (and the core's advances by one per death from there).
        if let leaseEpoch { brokerEpochs = leaseEpoch - 1 }
        makeCore = { output in
            var logger = Logger(label: "simulated-broker")
            logger.logLevel = .critical
            output.brokerEpochs += 1
            return BrokerCore(
                settings: .init(
                    heartbeatNanos: 1_000_000_000, liveness: 3, recipeBytes: recipeBytes, restoresPerWorker: restoresPerWorker, secured: secured,
                    compaction: compaction, epochFollowsClock: false, dropGraceNanos: dropGraceNanos
                ),
                output: output, epoch: output.brokerEpochs, logger: logger
            )
        }
        core = makeCore(self)
    }

    /// The broker process is killed and started again: a fresh core that knows nothing, orders on their
    /// way to workers lost; every connected worker joins again with what it keeps.
    func restartBroker() {
        // What workers' pools hold still runs; the answers die with the broker.
        if modelsLinks { for name in workers.keys.sorted() { runPoolUnanswered(name) } }
        for key in queued.keys { clearQueue(key) }
        // A real broker's epoch is its start in ms: above every epoch the one before it advanced to.
        brokerEpochs = max(brokerEpochs, core.epoch)
        core = makeCore(self)
        if let journaled {
            core.loadJournaled(
                journaled.sorted { $0.key < $1.key }.map { (key: $0.key, base: $0.value.base, bodies: $0.value.bodies, epoch: $0.value.epoch) },
                dropped: journaledDrops.sorted { $0.key < $1.key }.map { (key: $0.key, version: $0.value.version, epoch: $0.value.epoch) }
            )
        }
        // A worker cut off from the broker does not see it go: it joins again once the link heals.
        // As `BrokerLoop` starts, with the default `cluster.rejoinMillis` (heartbeat × liveness + reconnect).
        if modelsLinks { core.holdKeyedRequests(until: clock + 4_000_000_000) }
        for name in workers.keys.sorted() where workers[name]?.connected == true {
            if workers[name]?.cutOff != nil { workers[name]?.connected = false } else { join(name) }
        }
    }

    // MARK: BrokerOutput

    // Past its lease's window a broker's loop sends no reply (`SimulatedBrokerPair`).
    func reply(to envelope: Envelope, body: HeldBody, trailing: [HeldBody]) { if mayAct() { replies.append((envelope.frames, body.array)) } }
    func reply(to envelope: Envelope, bytes: [UInt8]) { if mayAct() { replies.append((envelope.frames, bytes)) } }

    func send(_ order: WorkerOrder, to routingID: [UInt8]) -> Bool {
        guard workers.values.contains(where: { $0.routingID == routingID && $0.connected }) else { return false }
        let grant = order.isHeartbeat && mayAct() ? core?.leaseGrant(forWorkerAt: routingID) : nil
        queued[routingID, default: []].append((order, core?.epoch ?? 0, grant))
        sent.append(Sent(routingID: routingID, order: order))
        return true
    }

    func journal(_ change: RecipeBook.Change, epoch: UInt64) {
        if let database {
            if journalCut || !database.commit(change, epoch: epoch, fencedBy: fencingEpoch) {
                journalRefused = true
                journalMissed.insert(change.key)
                switch change {
                case .removed, .unprotected: removalsMissed.insert(change.key)
                case .started, .appended: break
                }
            } else if case .appended = change {} else {
                journalMissed.remove(change.key)
                removalsMissed.remove(change.key)
            }
            return
        }
        guard journaled != nil else { return }
        switch change {
        case .started(let key, let version, let body):
            journaled?[key] = (version, [body.array], epoch)
            journaledDrops[key] = nil
        case .appended(let key, let version, let body):
            guard let recipe = journaled?[key], recipe.base + recipe.bodies.count == version else {
                // A real journal's chain would be broken: the simulation says so by losing the recipe.
                journaled?[key] = nil
                return
            }
            journaled?[key]?.bodies.append(body.array)
        case .removed(let key, let version):
            // The row stays, not kept, at the epoch the key reached (as the real journal's).
            journaledDrops[key] = (version, max(journaled?[key]?.epoch ?? 0, journaledDrops[key]?.epoch ?? 0))
            journaled?[key] = nil
        case .unprotected(let key, let version):
            journaled?[key] = (version, [RecipeBook.unprotectedMarker], epoch)
            journaledDrops[key] = nil
        }
    }

    func journalEpoch(of key: LayoutKey, epoch: UInt64) {
        if let database {
            if journalCut || !database.commitEpoch(of: key, epoch: epoch, fencedBy: fencingEpoch) {
                journalRefused = true
                journalMissed.insert(key)
            }
            return
        }
        if let entry = journaled?[key] { journaled?[key]?.epoch = max(entry.epoch, epoch) }
        if let entry = journaledDrops[key] { journaledDrops[key]?.epoch = max(entry.epoch, epoch) }
    }

    func publish(_ event: WireEvent, namespace: String) {
        published.append(event)
        publishedNamespaces.append(namespace)
    }

    // MARK: Driving

    @discardableResult
    func join(_ name: String, keys: [ReadyInfo.KeyVersion]? = nil, protocolVersion: Int = WorkerProtocol.extensionVersion, direct: String? = nil) -> SimulatedWorker {
        let worker = workers[name] ?? SimulatedWorker(name: name, routingID: Array("id-\(name)".utf8), storeBytes: workerStoreBytes)
        // A fresh socket per conversation: nothing queued for the last one reaches this one.
        if modelsLinks { clearQueue(worker.routingID) }
        worker.connected = true
        worker.cutOff = nil
        worker.protocolVersion = protocolVersion
        // A process's direct endpoint is its configuration: it joins again with the same one.
        worker.directEndpoint = direct ?? directEndpoints[name] ?? worker.directEndpoint
        if worker.directEndpoint != nil { attachDirectSide(to: worker) }
        workers[name] = worker
        // A descriptor of its own per connection, as the kernel gives: a reused one would make the drop
        // of another connection look like this one's.
        nextDescriptor += 1
        core.workerReady(routingID: worker.routingID, ready: worker.ready(keys: keys), fileDescriptor: nextDescriptor, address: "127.0.0.1", now: clock)
        sendNumberedHeartbeat(from: worker)
        return worker
    }

    /// The worker's process is replaced by a new one under the same name, holding nothing (a kill -9 and
    /// a restart); it has to `join` again.
    func replaceProcess(_ name: String) {
        guard let old = workers[name] else { return }
        clearQueue(old.routingID)
        workers[name] = SimulatedWorker(name: name, routingID: old.routingID + [UInt8(truncatingIfNeeded: sent.count)], storeBytes: workerStoreBytes)
    }

    func record(of name: String) -> WorkerRecord? {
        workers[name].flatMap { core.byRoutingID[$0.routingID] }
    }

    /// A client request, from `caller` when the broker has CURVE; returns its envelope (one routing frame).
    @discardableResult
    func request(_ body: String, as caller: Caller? = nil) -> [[UInt8]] {
        nextClient += 1
        let envelope = [Array("\(envelopePrefix)-\(nextClient)".utf8)]
        core.clientRequest(envelope: Envelope(envelope), body: HeldBody(Array(body.utf8)), caller: caller, now: clock)
        return envelope
    }
}
