import Foundation
import LayoutServer
import LayoutWire
@testable import LayoutCluster

/// Moving orders and replies between the broker and its workers, and what a test reads back of them.
extension SimulatedCluster {
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
    func runPoolUnanswered(_ name: String) {
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
