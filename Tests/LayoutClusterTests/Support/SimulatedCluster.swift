import Foundation
import LayoutServer
import LayoutWire
import Logging
import Synchronization
import Testing
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
    private var lastReply: [[[UInt8]]: Int] = [:]
    var published: [WireEvent] = []
    /// The namespace of each event in `published`.
    var publishedNamespaces: [String] = []
    var workers: [String: SimulatedWorker] = [:]
    /// Orders sent and not yet delivered, per routing id, in order, with the broker's epoch when each
    /// was sent and the read lease it grants (a HEARTBEAT carries both, computed as it leaves).
    private var queued: [[UInt8]: [(order: WorkerOrder, epoch: UInt64, grant: LeaseGrant?)]] = [:]
    private(set) var sent: [Sent] = []
    /// How many orders at the front of each queue the worker's I/O thread has read already (`readAhead`):
    /// they sit in its pool, run in order, and are not lost with its connection.
    private var inPool: [[UInt8]: Int] = [:]
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

    /// Delivers up to `limit` queued orders to `name` and its replies back to the broker; repeats while
    /// the broker sends more (rebuilds followed by requests).
    func deliver(to name: String, limit: Int = .max) {
        // Nothing crosses a cut link: orders wait in its buffers.
        guard let worker = workers[name], worker.cutOff == nil else { return }
        var delivered = 0
        while delivered < limit, var orders = queued[worker.routingID], !orders.isEmpty {
            let (order, epoch, grant) = orders.removeFirst()
            queued[worker.routingID] = orders
            inPool[worker.routingID] = max(0, (inPool[worker.routingID] ?? 0) - 1)
            delivered += 1
            if case .disconnect = order, modelsLinks {
                // The broker ended the conversation: the worker drops its lease and joins again later.
                worker.disconnected()
                clearQueue(worker.routingID)
                return
            }
            let result = worker.run(order, brokerEpoch: epoch, grant: grant)
            guard let record = core.byRoutingID[worker.routingID] else { continue }
            // What its store evicted running it, reported before its reply, as a worker's mailbox orders them.
            reportEvictions(of: worker, at: record)
            guard let (token, reply) = result else { continue }
            core.workerReply(from: record, token: token, body: HeldBody(reply.bytes), leading: reply.leadingFrame)
        }
    }

    /// The worker's I/O thread reads what the broker sent, as `WorkerLink` does at once: a FENCE acts
    /// and is answered there, and a HEARTBEAT's lease grant extends the lease, ahead of the requests,
    /// rebuilds and releases its pool runs in order (which stay queued, the HEARTBEAT too for the epoch
    /// it carries, read in order with them). Nothing crosses a cut link.
    func readAhead(_ name: String) {
        guard let worker = workers[name], worker.cutOff == nil, let orders = queued[worker.routingID] else { return }
        var waiting: [(order: WorkerOrder, epoch: UInt64, grant: LeaseGrant?)] = []
        var fences: [(RequestToken, ReplyBody)] = []
        for entry in orders {
            switch entry.order {
            case .heartbeat:
                if let grant = entry.grant { worker.directSide?.granted(grant) }
                waiting.append((entry.order, entry.epoch, nil))
            case .fence:
                if let answer = worker.run(entry.order) { fences.append(answer) }
            case .disconnect where modelsLinks:
                // The conversation is over: what came before it was read, and its pool runs it;
                // nothing after it counts.
                queued[worker.routingID] = waiting
                inPool[worker.routingID] = waiting.count
                finishPool(name)
                worker.disconnected()
                clearQueue(worker.routingID)
                return
            default:
                waiting.append(entry)
            }
        }
        queued[worker.routingID] = waiting
        inPool[worker.routingID] = waiting.count
        guard let record = core.byRoutingID[worker.routingID] else { return }
        for (token, reply) in fences { core.workerReply(from: record, token: token, body: HeldBody(reply.bytes), leading: reply.leadingFrame) }
    }

    /// Across a cut link, the HEARTBEATs at the front of the worker's queue get through, late (the link
    /// works toward the worker for a moment; its own heartbeats still do not reach the broker): their
    /// grants name heartbeats sent long ago. A DISCONNECT among them ends the conversation; anything
    /// else stops them (it is read in order when the link heals).
    func deliverHeldHeartbeats(to name: String) {
        guard let worker = workers[name], worker.cutOff != nil, (inPool[worker.routingID] ?? 0) == 0 else { return }
        while var orders = queued[worker.routingID], let first = orders.first {
            switch first.order {
            case .heartbeat:
                orders.removeFirst()
                queued[worker.routingID] = orders
                _ = worker.run(first.order, brokerEpoch: first.epoch, grant: first.grant)
            case .disconnect:
                worker.disconnected()
                clearQueue(worker.routingID)
                return
            default:
                return
            }
        }
    }

    /// The worker's pool runs what its I/O thread read (`readAhead`), answering the broker: before a
    /// direct read, which its key's order puts behind them, and before its link is cut or dropped, which
    /// would not stop them.
    func finishPool(_ name: String) {
        guard let worker = workers[name], let count = inPool[worker.routingID], count > 0, worker.cutOff == nil else { return }
        deliver(to: name, limit: count)
    }

    /// The worker's pool runs what its I/O thread read, and its answers (and evictions) never arrive.
    private func runPoolUnanswered(_ name: String) {
        guard let worker = workers[name] else { return }
        while (inPool[worker.routingID] ?? 0) > 0, var orders = queued[worker.routingID], !orders.isEmpty {
            let (order, epoch, grant) = orders.removeFirst()
            queued[worker.routingID] = orders
            inPool[worker.routingID] = (inPool[worker.routingID] ?? 1) - 1
            _ = worker.run(order, brokerEpoch: epoch, grant: grant)
            _ = worker.takeEvictions()
        }
    }

    /// What `name`'s pool had read from this broker and not run yet (`readAhead`), taken from here: a
    /// real worker's pool runs it even after its conversation ended, whoever it talks to by then.
    func takePool(_ name: String) -> [(order: WorkerOrder, epoch: UInt64)] {
        guard let worker = workers[name], let count = inPool[worker.routingID], count > 0, let orders = queued[worker.routingID] else { return [] }
        queued[worker.routingID] = Array(orders.dropFirst(count))
        inPool[worker.routingID] = 0
        return orders.prefix(count).map { ($0.order, $0.epoch) }
    }

    func clearQueue(_ routingID: [UInt8]) {
        queued[routingID] = []
        inPool[routingID] = 0
    }

    private func reportEvictions(of worker: SimulatedWorker, at record: WorkerRecord) {
        let evicted = worker.takeEvictions()
        guard !evicted.isEmpty else { return }
        let before = evicted.map { core.keys[$0.key].map { ($0.kept, $0.version) } }
        core.workerEvicted(evicted, at: record)
        for (entry, was) in zip(evicted, before) {
            guard let was, was.0, let now = core.keys[entry.key], !now.kept, now.version == entry.version else { continue }
            believedEvictions.append((entry.key, entry.version, worker.name))
        }
    }

    func deliverAll() {
        var more = true
        while more {
            more = false
            for name in workers.keys.sorted() where workers[name]?.cutOff == nil && !(queued[workers[name]!.routingID] ?? []).isEmpty {
                deliver(to: name)
                more = true
            }
        }
    }

    /// The worker's process dies: orders queued for it are lost, and the broker hears the connection drop.
    func kill(_ name: String) {
        guard let worker = workers[name], let record = core.byRoutingID[worker.routingID] else { return }
        // Its pool still runs what its I/O thread read; the answers die with the connection.
        if modelsLinks { runPoolUnanswered(name) }
        worker.connected = false
        clearQueue(worker.routingID)
        core.connectionDropped(fileDescriptor: record.fileDescriptor ?? -1, now: clock)
    }

    /// Time passes by `nanos`: every connected worker's heartbeat reaches the broker, then its tick runs
    /// (heartbeats out, waits over).
    func advance(by nanos: Nanos) {
        clock += nanos
        for worker in workers.values where worker.connected { _ = core.heard(from: worker.routingID, now: clock) }
        core.tick(now: clock)
    }

    /// The worker runs its next order, and is cut off before its reply leaves (a pause or a network
    /// partition at that moment): it applied what the broker will answer `unavailable` for, and keeps its
    /// copies. Whether anything was queued.
    @discardableResult
    func runNextThenCutOff(_ name: String) -> Bool {
        guard let worker = workers[name], var orders = queued[worker.routingID], !orders.isEmpty else { return false }
        let (order, epoch, grant) = orders.removeFirst()
        queued[worker.routingID] = orders
        inPool[worker.routingID] = max(0, (inPool[worker.routingID] ?? 0) - 1)
        _ = worker.run(order, brokerEpoch: epoch, grant: grant)
        // Cut off: what its store evicted never reaches the broker.
        _ = worker.takeEvictions()
        kill(name)
        return true
    }

    func orders(to name: String) -> [WorkerOrder] {
        guard let worker = workers[name] else { return [] }
        return (queued[worker.routingID] ?? []).map(\.order)
    }

    /// The parsed reply sent to `envelope` (the last one).
    func reply(for envelope: [[UInt8]]) -> [String: Any]? {
        guard let body = replyBytes(for: envelope) else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
    }

    func replyBytes(for envelope: [[UInt8]]) -> [UInt8]? {
        lastReply[envelope].map { replies[$0].body }
    }

    /// Where the last reply to `envelope` stands in the order replies were sent; nil before one.
    func answerPlace(of envelope: [[UInt8]]) -> Int? {
        lastReply[envelope]
    }

    func replyCount(for envelope: [[UInt8]]) -> Int {
        replies.filter { $0.envelope == envelope }.count
    }
}

/// A worker's handler, store, RESTORE and SNAPSHOT code, run synchronously.
final class SimulatedWorker {
    let name: String
    let routingID: [UInt8]
    let store: LayoutStore
    private(set) var jobs: ClusterJobHandler
    let brokerJobs = BrokerJobDesk()
    var connected = true
    /// The protocol its READY declares.
    var protocolVersion = WorkerProtocol.extensionVersion
    /// The direct endpoint its READY names (`cluster.direct`); nil: none.
    var directEndpoint: String?
    /// Keys it was told to stop answering direct reads of (FENCE).
    let fences = DirectReadFences()
    /// Its clock, read lease and heartbeats, when it has a direct endpoint (`SimulatedDirectReads`).
    private(set) var directSide: SimulatedDirectSide?
    /// Its link to the broker is cut (a partition, or a pause of its I/O thread) while clients still
    /// reach its direct endpoint; nil when the link works. Orders wait; its heartbeats are held until the
    /// link heals, or lost.
    var cutOff: CutLink?
    /// Whether its queue is full for rebuilds: RESTORE answered `busy`, nothing changed.
    var refusesRestores = false
    /// How many RESTOREs it refuses next (a queue full for a while).
    var restoresToRefuse = 0

    /// What its store evicted and the broker has not been told yet.
    private final class EvictionLog: Sendable {
        let entries = Mutex<[ReadyInfo.KeyVersion]>([])
    }
    private let evictions = EvictionLog()

    init(name: String, routingID: [UInt8], storeBytes: Int = 1 << 30) {
        self.name = name
        self.routingID = routingID
        let evictions = self.evictions
        let store = LayoutStore(capacityBytes: storeBytes) { change in
            if case .invalidated(let key, let version, .evicted, _, let epoch) = change {
                evictions.entries.withLock { $0.append(ReadyInfo.KeyVersion(key: key, version: version, epoch: epoch)) }
            }
        }
        let stats = ServerStats()
        self.store = store
        let limits = ServerConfiguration().inputLimits
        var jobs = ClusterJobHandler(handler: RequestHandler(store: store, stats: stats, limits: limits, startedAt: Date()), store: store, stats: stats, limits: limits, brokerJobs: brokerJobs)
        jobs.fences = fences
        self.jobs = jobs
    }

    func attach(_ side: SimulatedDirectSide) {
        directSide = side
        jobs.lease = side.lease
    }

    func takeEvictions() -> [ReadyInfo.KeyVersion] {
        evictions.entries.withLock { taken in
            defer { taken = [] }
            return taken
        }
    }

    func ready(keys: [ReadyInfo.KeyVersion]?) -> ReadyInfo {
        var ready = ReadyInfo(extensionVersion: protocolVersion, workerID: name, credit: 64, threads: 2, keys: keys ?? store.summaries().map { .init(key: $0.key, version: $0.version, epoch: $0.epoch) })
        ready.directEndpoint = directEndpoint
        return ready
    }

    /// The epoch of the broker it last heard a HEARTBEAT from.
    var brokerEpoch: UInt64 = 0

    /// Runs one order from the broker of `brokerEpoch` (a HEARTBEAT carries it); the token and reply for
    /// requests, rebuilds and snapshots.
    func run(_ order: WorkerOrder, brokerEpoch epochOfSender: UInt64 = 0, grant: LeaseGrant? = nil) -> (RequestToken, ReplyBody)? {
        switch order {
        case .request(let token, let body, let caller):
            // The caller's frame as the worker reads it off the wire.
            let received = caller.flatMap { Caller(workerFrame: $0.workerFrame) } ?? .anonymous
            return (token, execute(RequestBody(body.array, caller: received), from: ClusterJobHandler.Origin(epoch: brokerEpoch)))
        case .restore(let token, let header, let bodies):
            if refusesRestores || restoresToRefuse > 0 {
                restoresToRefuse = max(0, restoresToRefuse - 1)
                return (token, ReplyBody(RestoreOutcome.failed(code: "busy", message: "the worker's queue is full").body))
            }
            var job = RestoreJob(header: RestoreHeader(frame: header.frame) ?? header, frames: bodies.map(\.array))
            job.epoch = brokerEpoch
            let body = brokerJobs.submit(.restore(job))
            return (token, execute(body))
        case .snapshot(let token, let request):
            // A worker of protocol 2 would not know the command (the broker must not send it one).
            #expect(protocolVersion >= WorkerProtocol.snapshotVersion, "SNAPSHOT sent to a worker of protocol \(protocolVersion)")
            let body = brokerJobs.submit(.snapshot(SnapshotJob(request: SnapshotRequest(frame: request.frame) ?? request)))
            return (token, execute(body))
        case .release(let keys):
            for key in ReleaseFrames.decode(ReleaseFrames.encode(keys)) {
                store.release(key)
                fences.lift(key)
            }
            return nil
        case .fence(let token, let request):
            // Only a worker whose READY named a direct endpoint is fenced.
            #expect(directEndpoint != nil, "FENCE sent to a worker without a direct endpoint")
            fences.fence(FenceRequest(frame: request.frame)?.key ?? request.key)
            return (token, ReplyBody(FenceRequest.done))
        case .heartbeat:
            brokerEpoch = epochOfSender
            if let grant { directSide?.granted(grant) }
            return nil
        case .disconnect:
            return nil
        }
    }

    private func execute(_ body: RequestBody, from origin: ClusterJobHandler.Origin = .none) -> ReplyBody {
        switch jobs.decode(body, context: origin) {
        case .reply(let reply): return reply.body
        case .run(let job, _): return jobs.answer(job)?.body ?? ReplyBody([])
        }
    }
}

extension WorkerOrder {
    var isRestore: Bool { if case .restore = self { true } else { false } }
    var isRequest: Bool { if case .request = self { true } else { false } }
    var isSnapshot: Bool { if case .snapshot = self { true } else { false } }
    var isHeartbeat: Bool { if case .heartbeat = self { true } else { false } }
    var restoreHeader: RestoreHeader? { if case .restore(_, let header, _) = self { header } else { nil } }
    var releasedKeys: [LayoutKey]? { if case .release(let keys) = self { keys } else { nil } }
    var fencedKey: LayoutKey? { if case .fence(_, let request) = self { request.key } else { nil } }
}

/// Workers a and b, `feed` prepared and changed once (version 2): the cluster, the frames a query of
/// `feed` answers, its owner and the other worker.
func feedChangedOnce(dropGraceNanos: Nanos = 0) throws -> (cluster: SimulatedCluster, frames: [UInt8], owner: String, other: String) {
    let cluster = SimulatedCluster(dropGraceNanos: dropGraceNanos)
    cluster.join("a")
    cluster.join("b")
    cluster.request(prepareBody("feed"))
    cluster.deliverAll()
    cluster.request(updateBody("feed", insert: "x"))
    cluster.deliverAll()
    let query = cluster.request(queryBody("feed", id: "same"))
    cluster.deliverAll()
    let frames = try #require(cluster.replyBytes(for: query))
    let owner = try #require(cluster.core.keys[LayoutKey(name: "feed")]?.owner?.name)
    return (cluster, frames, owner, owner == "a" ? "b" : "a")
}

extension SimulatedCluster {
    /// Whether worker `name`'s store keeps a layout under `key`.
    func keeps(_ name: String, _ key: String = "feed") -> Bool {
        workers[name]?.store.entry(forKey: LayoutKey(name: key)) != nil
    }
}

/// A list layout of `count` items with ids, under `key`.
func prepareBody(_ key: String, count: Int = 50, id: String = "p") -> String {
    let ids = (0..<count).map { "\"i\($0)\"" }.joined(separator: ",")
    let heights = (0..<count).map { String(10 + $0 % 7) }.joined(separator: ",")
    return #"{"v":1,"id":"\#(id)","op":"prepare","layout":"\#(key)","bounds":{"width":320,"height":600},"spec":{"type":"list","spacing":2},"sections":[{"ids":[\#(ids)],"heights":[\#(heights)]}]}"#
}

func updateBody(_ key: String, insert id: String, at index: Int = 0, requestID: String = "u") -> String {
    #"{"v":1,"id":"\#(requestID)","op":"update","layout":"\#(key)","updates":[{"insert":[0,\#(index)],"item":{"id":"\#(id)","height":33}}]}"#
}

func queryBody(_ key: String, id: String = "q") -> String {
    #"{"v":1,"id":"\#(id)","op":"query","layout":"\#(key)","rect":{"x":0,"y":0,"width":320,"height":100000}}"#
}
