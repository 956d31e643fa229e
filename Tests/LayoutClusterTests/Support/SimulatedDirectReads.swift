import Foundation
import LayoutServer
import Synchronization
@testable import LayoutCluster

/// Direct reads in the simulation (issue 25): workers with a direct endpoint keep a clock of their own,
/// number their heartbeats in the real `HeartbeatLedger` and hold the real `ReadLease` on that clock;
/// their links to the broker can be cut while clients still reach them; and a direct read runs the
/// worker's real decision code (`decodeDirect`, `executeDirect`). What stays simulated is only what
/// crosses a socket, and time.

/// The broker's clock, readable from the `@Sendable` closure a worker's `ReadLease` measures time with.
final class SimulatedTime: Sendable {
    private let nanos: Atomic<UInt64>

    init(_ start: UInt64) {
        nanos = Atomic(start)
    }

    var now: UInt64 { nanos.load(ordering: .relaxed) }

    func set(_ value: UInt64) {
        nanos.store(value, ordering: .relaxed)
    }
}

/// A cut link between the broker and a worker: orders wait in the broker's buffers; the worker's
/// heartbeats are held in its own (and arrive when the link heals, late) or lost.
struct CutLink {
    /// The numbers of the heartbeats held (0 for a worker without a direct endpoint, whose heartbeats
    /// carry none); nil when they are lost.
    var held: [UInt64]?
}

/// A worker process's direct-read side: its monotonic clock, which runs at `permille` thousandths of
/// the broker's rate (drift within the bound the lease's margin covers, docs/PROTOCOL.md §10.5), and
/// the real lease and heartbeat ledger measured on it.
final class SimulatedDirectSide {
    let lease: ReadLease
    var ledger = HeartbeatLedger()
    /// When its next heartbeat leaves, on its own clock.
    var nextHeartbeat: UInt64
    private let time: SimulatedTime
    private let permille: UInt64

    init(time: SimulatedTime, permille: UInt64) {
        self.time = time
        self.permille = permille
        lease = ReadLease { SimulatedDirectSide.local(time.now, permille) }
        nextHeartbeat = Self.local(time.now, permille)
    }

    /// The worker's clock now.
    var now: UInt64 { Self.local(time.now, permille) }

    /// The worker's clock at the broker's instant `nanos`: an offset would change nothing, since each
    /// side only measures intervals of its own clock.
    private static func local(_ nanos: UInt64, _ permille: UInt64) -> UInt64 {
        nanos / 1000 * permille
    }

    /// A HEARTBEAT carrying `grant` arrived: as `WorkerLink` extends its lease.
    func granted(_ grant: LeaseGrant) {
        if let end = ledger.leaseEnd(of: grant) { lease.extend(until: end) }
    }

    /// Its connection ended (or a new one starts): as `WorkerLink.disconnect`.
    func connectionEnded() {
        lease.revoke()
        ledger.forgetConnection()
    }
}

extension SimulatedWorker {
    /// The broker's DISCONNECT: the conversation is over; the worker joins again later.
    func disconnected() {
        connected = false
        cutOff = nil
        directSide?.connectionEnded()
    }

    /// A client's request on the worker's direct endpoint, decoded as it arrives now (in the lease's
    /// term of this instant); nil when it decodes to an answer of its own instead of a read to run.
    func directJob(_ body: String) -> ClusterJobHandler.Job? {
        let outcome = jobs.decodeDirect(RequestBody(Array(body.utf8)), arrivedIn: jobs.lease?.termIfHoldingNow)
        if case .run(let job, _) = outcome { return job }
        return nil
    }

    /// A client's request on the worker's direct endpoint, run at once: its reply.
    func directRead(_ body: String) -> [UInt8] {
        let request = RequestBody(Array(body.utf8), caller: .anonymous)
        // Run at once: it arrives and is answered at one instant, in one term of the lease.
        switch jobs.decodeDirect(request, arrivedIn: jobs.lease?.termIfHoldingNow) {
        case .reply(let reply): return reply.body.bytes
        case .run(let job, _): return jobs.answer(job)?.body.bytes ?? []
        }
    }
}

extension SimulatedCluster {
    /// A cluster whose one worker, "a", has a direct endpoint and keeps "feed" (`items` items) under a
    /// lease that holds: what tests of a worker's direct reads start from.
    static func withLeasedWorker(items: Int) -> (cluster: SimulatedCluster, worker: SimulatedWorker) {
        let cluster = SimulatedCluster()
        cluster.modelsLinks = true
        let worker = cluster.join("a", direct: "tcp://a:5570")
        cluster.request(prepareBody("feed", count: items))
        cluster.deliverAll()
        cluster.advanceClocks(by: 500_000_000)
        return (cluster, worker)
    }

    /// A worker with a direct endpoint gets its clock, lease and ledger once per process; a new
    /// conversation drops the lease, as `WorkerLink.connect` follows a `disconnect`.
    func attachDirectSide(to worker: SimulatedWorker) {
        if let side = worker.directSide {
            side.connectionEnded()
        } else {
            worker.attach(SimulatedDirectSide(time: time, permille: clockRates[worker.name] ?? 1000))
        }
    }

    /// A numbered heartbeat leaves `worker` now (right after READY, and each heartbeat interval on its
    /// clock); it reaches the broker at once unless the link is cut.
    func sendNumberedHeartbeat(from worker: SimulatedWorker) {
        guard modelsLinks, let side = worker.directSide else { return }
        let sequence = side.ledger.noteSent(at: side.now)
        side.nextHeartbeat = side.now + 1_000_000_000
        heartbeatArrives(from: worker, sequence: sequence)
    }

    /// A heartbeat of `worker` reaches the broker (numbered `sequence`, 0 for none), or the cut link's
    /// buffer. As `BrokerLoop` takes one: the grant goes back at once.
    private func heartbeatArrives(from worker: SimulatedWorker, sequence: UInt64) {
        if worker.cutOff != nil {
            worker.cutOff?.held?.append(sequence)
            return
        }
        guard let record = core.heard(from: worker.routingID, now: clock) else { return }
        if sequence > 0, core.heardNumberedHeartbeat(sequence, from: record, now: clock) {
            _ = send(.heartbeat, to: worker.routingID)
        }
    }

    /// Time passes by `nanos` on the broker's clock: each worker reads the grants and fences sent to it
    /// until now, then sends the heartbeats its own clock calls for, and the broker ticks when its
    /// interval is up.
    func advanceClocks(by nanos: Nanos) {
        readAheadAll()
        clock += nanos
        timePassed()
    }

    /// Each worker reads what was sent to it until now (a grant spends a step on its way, where a cut
    /// can catch it).
    func readAheadAll() {
        for name in workers.keys.sorted() where workers[name]?.connected == true { readAhead(name) }
    }

    /// The shared clock moved on (`advanceClocks`, or another broker's): heartbeats due leave, and the
    /// broker ticks when its interval is up.
    func timePassed() {
        for name in workers.keys.sorted() {
            guard let worker = workers[name], worker.connected else { continue }
            if let side = worker.directSide {
                if side.now >= side.nextHeartbeat { sendNumberedHeartbeat(from: worker) }
            } else {
                heartbeatArrives(from: worker, sequence: 0)
            }
        }
        if clock >= nextTick {
            nextTick = clock + 1_000_000_000
            core.tick(now: clock)
        }
    }

    /// The link between the broker and `name` is cut (`holding`: its heartbeats wait in a buffer, else
    /// they are lost); its direct endpoint still answers.
    func cut(_ name: String, holding: Bool) {
        guard let worker = workers[name], worker.connected, worker.cutOff == nil else { return }
        finishPool(name)
        worker.cutOff = CutLink(held: holding ? [] : nil)
    }

    /// The link heals: heartbeats held arrive now, late, and orders flow again.
    func heal(_ name: String) {
        guard let worker = workers[name], let link = worker.cutOff else { return }
        worker.cutOff = nil
        for sequence in link.held ?? [] { heartbeatArrives(from: worker, sequence: sequence) }
    }
}
