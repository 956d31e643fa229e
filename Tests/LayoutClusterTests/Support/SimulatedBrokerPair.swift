import Foundation
import LayoutServer
import LayoutWire
@testable import LayoutCluster

/// Two broker processes sharing a simulated PostgreSQL (issue 32), and workers that join whichever is
/// active: each worker lists both brokers, in an order of its own, and goes to the next listed when its
/// broker says DISCONNECT, dies, or is silent for `liveness` heartbeats (paused, or cut off from it by a
/// one-way partition that leaves the other reachable). Every process runs the real broker core and
/// worker code (`SimulatedCluster`); the lease keeper and the loop's drain are modelled
/// (`SimulatedLeaseKeeping`), as is what crosses a socket, and time.
final class SimulatedBrokerPair {
    let time = SimulatedTime(1_000_000_000_000)
    let database: SimulatedDatabase
    let brokers = [SimulatedBrokerProcess(index: 0), SimulatedBrokerProcess(index: 1)]
    let makeKeeper: (Nanos, Nanos) -> any SimulatedLeaseKeeping
    /// The workers, by name, whichever broker they are with.
    private(set) var workers: [String: SimulatedWorker] = [:]
    /// The broker each worker is connected to (nil: looking for one), and the order it lists them in.
    private(set) var attached: [String: Int] = [:]
    var brokerOrder: [String: [Int]] = [:]
    /// Since when a worker has heard nothing from its broker (a pause, a cut link).
    private var silentSince: [String: Nanos] = [:]
    /// What each worker's pool read from a broker it has left and has not run yet (`leftInPool`).
    private var leftInPool: [String: [(order: WorkerOrder, epoch: UInt64)]] = [:]
    /// How many such orders ran after their worker joined another conversation.
    private(set) var leftOrdersRun = 0
    /// One-way partitions: the worker cannot reach that broker (nor it the worker); the other broker,
    /// clients and its direct endpoint still can.
    private(set) var blocked: Set<String> = []
    let clockRates: [String: UInt64]
    let directEndpoints: [String: String]
    let recipeBytes: Int
    let dropGraceNanos: Nanos
    /// The database's lease epoch when each reply left a broker, by its envelope.
    private(set) var epochAtReply: [[[UInt8]]: UInt64] = [:]
    /// The keys the journal kept a recipe of when each reply left a broker (another broker taking the
    /// lease later may give a key a recipe again, from a copy it adopts).
    private(set) var recipesAtReply: [[[UInt8]]: Set<LayoutKey>] = [:]
    /// What the processes did on their own (lease taken, let go, exits), for the walk's history.
    var notes: [String] = []
    static let heartbeat: Nanos = 1_000_000_000
    static let liveness: Nanos = 3
    /// `cluster.rejoinMillis` by default: heartbeat × liveness + reconnect.
    static let rejoin: Nanos = 4_000_000_000
    /// `shutdownGraceSeconds` by default.
    static let grace: Nanos = 30_000_000_000

    init(
        ttl: Nanos = 5_000_000_000, clockRates: [String: UInt64], directEndpoints: [String: String], recipeBytes: Int, dropGraceNanos: Nanos,
        makeKeeper: @escaping (Nanos, Nanos) -> any SimulatedLeaseKeeping
    ) {
        database = SimulatedDatabase(time: time, ttl: ttl)
        self.clockRates = clockRates
        self.directEndpoints = directEndpoints
        self.recipeBytes = recipeBytes
        self.dropGraceNanos = dropGraceNanos
        self.makeKeeper = makeKeeper
    }

    var now: Nanos { time.now }

    private func key(_ worker: String, _ broker: Int) -> String { "\(worker)@\(broker)" }

    func isBlocked(_ worker: String, _ broker: Int) -> Bool { blocked.contains(key(worker, broker)) }

    // MARK: Brokers

    /// The standby `broker` tries the lease (when it runs and reaches the database): on success it is
    /// active, with the journal's recipes, waiting `rejoin` for workers before it serves keys.
    func tryAcquire(_ broker: SimulatedBrokerProcess) {
        guard broker.state == .standby, !broker.paused, !broker.databaseCut, now >= broker.nextAcquire else { return }
        broker.nextAcquire = now + database.ttl / 5
        guard let epoch = database.acquire(by: broker.index) else { return }
        broker.takings += 1
        broker.leaseEpoch = epoch
        notes.append("broker \(broker.index) takes the lease (epoch \(epoch))")
        let cluster = SimulatedCluster(
            recipeBytes: recipeBytes, dropGraceNanos: dropGraceNanos, time: time, database: database, leaseEpoch: epoch
        )
        cluster.modelsLinks = true
        cluster.clockRates = clockRates
        cluster.directEndpoints = directEndpoints
        cluster.envelopePrefix = "b\(broker.index)-\(broker.takings)"
        cluster.nextTick = now + Self.heartbeat
        cluster.journalCut = broker.databaseCut
        cluster.onReply = { [unowned self] envelope in
            epochAtReply[envelope] = database.epoch
            recipesAtReply[envelope] = Set(database.recipes.keys.filter { database.hasRecipe($0) })
        }
        cluster.mayAct = { [unowned self, unowned broker] in broker.keeper?.mayAct(now: now) ?? false }
        let journaled = database.journaled
        cluster.core.loadJournaled(journaled.recipes, dropped: journaled.dropped)
        cluster.core.holdKeyedRequests(until: now + Self.rejoin)
        broker.cluster = cluster
        broker.keeper = makeKeeper(database.ttl, now)
        broker.state = .active
    }

    /// The broker's keeper thread, and its loop's drain. A process that exited is started again, a
    /// standby (systemd's `Restart=`, Kubernetes).
    func runKeeper(_ broker: SimulatedBrokerProcess) {
        guard !broker.paused else { return }
        if broker.state == .gone {
            killAndRestart(broker)
            return
        }
        if case .draining(let since) = broker.state {
            // Past its window the loop answers nothing: nothing left to drain.
            if (broker.cluster?.core.clientsInFlight ?? 0) <= 0 || now - since > Self.grace || broker.keeper?.mayAct(now: now) == false {
                stop(broker)
            }
            return
        }
        guard broker.state == .active, var keeper = broker.keeper else { return }
        let verdict = keeper.step(now: now, databaseReachable: !broker.databaseCut) {
            if broker.renewalsToFail > 0 {
                broker.renewalsToFail -= 1
                return nil
            }
            return database.renew(by: broker.index, epoch: broker.leaseEpoch)
        }
        broker.keeper = keeper
        if verdict == .lost {
            notes.append("broker \(broker.index)'s keeper lets go of epoch \(broker.leaseEpoch): draining")
            broker.state = .draining(since: now)
        }
    }

    /// The loop ends: DISCONNECT to its workers (they go to the next broker listed), the lease let go.
    func stop(_ broker: SimulatedBrokerProcess) {
        if !broker.databaseCut { database.release(epoch: broker.leaseEpoch) }
        broker.state = .gone
        notes.append("broker \(broker.index) exits")
        for ticket in broker.waiting { ticket.lost = true }
        broker.waiting = []
        for name in attached.keys.sorted() where attached[name] == broker.index {
            detach(name, heardDisconnect: true)
        }
    }

    /// kill -9 of the broker: what it had not answered is lost; its workers see the connection drop.
    /// A new process starts at once, a standby.
    func killAndRestart(_ broker: SimulatedBrokerProcess) {
        for ticket in broker.waiting { ticket.lost = true }
        broker.waiting = []
        broker.state = .gone
        for name in attached.keys.sorted() where attached[name] == broker.index {
            detach(name, heardDisconnect: true)
        }
        broker.cluster = nil
        broker.keeper = nil
        broker.paused = false
        broker.state = .standby
        broker.nextAcquire = now
    }

    /// SIGCONT: the loop reads what waited in its socket (before the keeper's thread, a round trip to
    /// the database away, can tell it anything).
    func resume(_ broker: SimulatedBrokerProcess) {
        guard broker.paused else { return }
        broker.paused = false
        for name in attached.keys.sorted() where attached[name] == broker.index && !isBlocked(name, broker.index) { silentSince[name] = nil }
        let waiting = broker.waiting
        broker.waiting = []
        for ticket in waiting { admit(ticket, at: broker) }
    }

    func pause(_ broker: SimulatedBrokerProcess) {
        guard !broker.paused else { return }
        broker.paused = true
        for name in attached.keys.sorted() where attached[name] == broker.index { silentSince[name] = silentSince[name] ?? now }
    }

    // MARK: Clients

    /// Whether a request's answer can no longer come: the broker process it went to is gone, or
    /// another process (or taking) now runs under that name.
    func abandoned(_ ticket: SimulatedTicket) -> Bool {
        guard !ticket.lost else { return true }
        guard ticket.immediate == nil, ticket.envelope != nil, let cluster = ticket.cluster else { return false }
        let broker = brokers[ticket.broker]
        return broker.cluster !== cluster || broker.state == .gone || broker.state == .standby
    }

    /// A client's request to `broker`.
    func send(_ body: String, to index: Int) -> SimulatedTicket {
        let ticket = SimulatedTicket(body: body, broker: index)
        let broker = brokers[index]
        if broker.paused {
            broker.waiting.append(ticket)
        } else {
            admit(ticket, at: broker)
        }
        return ticket
    }

    private func admit(_ ticket: SimulatedTicket, at broker: SimulatedBrokerProcess) {
        switch broker.state {
        case .standby:
            ticket.immediate = ["ok": false, "error": ["code": "unavailable", "message": "this broker is a standby"]]
        case .gone:
            ticket.lost = true
        case .draining:
            ticket.immediate = ["ok": false, "error": ["code": "busy", "message": "the daemon is shutting down"]]
        case .active:
            // Past its window the broker takes nothing on (its core answers `unavailable`, and the loop
            // sends no reply): the client times out.
            guard let cluster = broker.cluster, broker.keeper?.mayAct(now: now) != false else {
                ticket.lost = true
                return
            }
            ticket.cluster = cluster
            ticket.envelope = cluster.request(ticket.body)
        }
    }

    // MARK: Workers

    /// A worker process starts (or a new one under that name, holding nothing) and looks for a broker.
    func startWorker(_ name: String) {
        if workers[name] != nil, let index = attached[name] { brokers[index].cluster?.lose(name) }
        let worker = SimulatedWorker(name: name, routingID: Array("id-\(name)-\(now)".utf8))
        worker.directEndpoint = directEndpoints[name]
        workers[name] = worker
        attached[name] = nil
        silentSince[name] = nil
        // The old process's pool died with it.
        leftInPool[name] = nil
        attach(name)
    }

    /// The worker joins the first broker, from the one after its last, that is active and reachable.
    func attach(_ name: String) {
        guard attached[name] == nil, let worker = workers[name] else { return }
        let order = brokerOrder[name] ?? [0, 1]
        for index in order {
            let broker = brokers[index]
            guard broker.state == .active, !broker.paused, !isBlocked(name, index), let cluster = broker.cluster else { continue }
            cluster.forget(name)
            cluster.join(moving: worker)
            attached[name] = index
            silentSince[name] = nil
            runLeftInPool(name)
            // It tries that broker first next time round (it rotates from there).
            return
        }
    }

    /// The worker leaves its broker: on a DISCONNECT or a dropped connection the broker knows; on
    /// silence it may not (it keeps a stand-in, cut off, until it judges the worker dead).
    func detach(_ name: String, heardDisconnect: Bool) {
        guard let index = attached[name], let worker = workers[name] else { return }
        attached[name] = nil
        silentSince[name] = nil
        let cluster = brokers[index].cluster
        leftInPool[name, default: []] += cluster?.takePool(name) ?? []
        worker.disconnected()
        if heardDisconnect {
            cluster?.forget(name)
        } else {
            cluster?.lose(name)
        }
        // Next round it starts from the other broker.
        if var order = brokerOrder[name], order.first == index {
            order.append(order.removeFirst())
            brokerOrder[name] = order
        }
    }

    /// What the worker's pool read from the broker it left reaches the pool now, after its READY to the
    /// next (the order a loaded pool can give them): none of it runs, since its connection has ended
    /// (`ClusterJobHandler` refuses requests, rebuilds and snapshots of an ended connection, and skips its
    /// releases: the next broker decides from READY what becomes of each copy). Counted as `leftOrdersRun`.
    private func runLeftInPool(_ name: String) {
        guard let orders = leftInPool.removeValue(forKey: name) else { return }
        for (order, _) in orders {
            switch order {
            case .restore, .release, .snapshot: leftOrdersRun += 1
            case .request, .fence, .heartbeat, .disconnect: continue
            }
        }
    }

    /// kill -9 of a worker: its broker sees the connection drop; a new process starts empty.
    func killWorker(_ name: String) {
        if let index = attached[name], let cluster = brokers[index].cluster, !brokers[index].paused {
            cluster.kill(name)
            cluster.forget(name)
        } else if let index = attached[name] {
            brokers[index].cluster?.lose(name)
        }
        attached[name] = nil
        startWorker(name)
    }

    /// The worker leaves cleanly (SIGTERM): it drops its read lease, says DISCONNECT, answers what it
    /// was given, and exits; a new process starts empty later.
    func leaveCleanly(_ name: String) {
        guard let index = attached[name], let cluster = brokers[index].cluster, !brokers[index].paused, !isBlocked(name, index),
              let worker = workers[name], let record = cluster.record(of: name) else { return }
        worker.directSide?.connectionEnded()
        cluster.core.workerLeaving(record)
        cluster.deliver(to: name)
        cluster.kill(name)
        cluster.forget(name)
        attached[name] = nil
        workers[name] = nil
    }

    /// A one-way partition between `worker` and `broker`.
    func block(_ name: String, from index: Int) {
        blocked.insert(key(name, index))
        if attached[name] == index {
            brokers[index].cluster?.cut(name, holding: false)
            silentSince[name] = silentSince[name] ?? now
        }
    }

    func unblock(_ name: String, from index: Int) {
        guard blocked.remove(key(name, index)) != nil else { return }
        if attached[name] == index {
            brokers[index].cluster?.heal(name)
            if !brokers[index].paused { silentSince[name] = nil }
        } else if let cluster = brokers[index].cluster, cluster.workers[name] != nil, cluster.workers[name] !== workers[name] {
            // Its stand-in's connection is reset: the broker sees it drop.
            cluster.kill(name)
            cluster.forget(name)
        }
    }

    // MARK: Time

    /// Time passes by `nanos`: every running broker's workers read what was sent to them, heartbeats
    /// leave, brokers tick; then keepers renew, standbys try the lease, silent brokers are left, and
    /// workers without a broker look for one.
    func advance(by nanos: Nanos) {
        for broker in brokers where broker.isRunning { broker.cluster?.readAheadAll() }
        time.set(now + nanos)
        for broker in brokers where broker.isRunning { broker.cluster?.timePassed() }
        for broker in brokers { runKeeper(broker) }
        for broker in brokers { tryAcquire(broker) }
        for name in attached.keys.sorted() {
            guard let since = silentSince[name], now - since > Self.heartbeat * Self.liveness else { continue }
            detach(name, heardDisconnect: false)
        }
        for name in workers.keys.sorted() where attached[name] == nil { attach(name) }
    }

    /// Everything a running broker sent is delivered and answered.
    func deliverAll() {
        for broker in brokers where broker.isRunning { broker.cluster?.deliverAll() }
    }
}
