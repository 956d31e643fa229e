import Dispatch
import LayoutServer
import LayoutWire

/// The route table clients read to send reads straight to a key's owner (docs/PROTOCOL.md, Direct
/// reads), and the read leases that keep such reads from a copy the broker has given away.
///
/// The table is versioned: `routeVersion` moves on whenever a key's owner or epoch, or the live
/// workers, change, and the broker's loop publishes the `route` event once per pass when it did: without
/// CURVE once, to everyone; with CURVE to each namespace whose table changed (`RouteChanges`).
extension BrokerCore {
    /// A `route` request, answered by the broker itself; nil when `request` is none.
    func routeAsk(in request: ClientRequest) -> RouteRequest? {
        guard request.route.operation == nil else { return nil }
        return request.body.withUnsafeBytes { RouteRequest(scanning: $0) }
    }

    /// Answers `route`: the live workers with their direct endpoints, and each kept key of the caller's
    /// namespace (or only the one asked about) with its epoch, version and, when it is settled at a
    /// live worker, that worker. A key without an owner there is moving or lost: the client asks the
    /// broker for it.
    func answerRoute(_ request: ClientRequest, _ ask: RouteRequest) {
        let namespace = request.caller?.namespace ?? ""
        var writer = JSONWriter(capacity: 512)
        writer.write(raw: "{\"v\":1,\"id\":")
        writer.write(request.route.id)
        writer.write(raw: ",\"ok\":true,\"result\":{\"role\":\"broker\",\"version\":")
        writer.write(routeVersion)
        writer.write(raw: ",\"epoch\":")
        writer.write(Int64(clamping: epoch))
        writer.write(raw: ",\"workers\":[")
        for (index, worker) in live.enumerated() {
            if index > 0 { writer.write(raw: ",") }
            writer.write(raw: "{\"worker\":")
            writer.write(worker.name)
            if let direct = worker.directEndpoint {
                writer.write(raw: ",\"direct\":")
                writer.write(direct)
            }
            writer.write(raw: "}")
        }
        writer.write(raw: "],\"keys\":[")
        let records: [KeyRecord]
        if let layout = ask.layout {
            records = keys[LayoutKey(namespace: namespace, name: layout)].map { [$0] } ?? []
        } else {
            records = keys.values.filter { $0.key.namespace == namespace }.sorted { $0.key.name < $1.key.name }
        }
        var first = true
        for record in records where record.kept {
            if !first { writer.write(raw: ",") }
            first = false
            writer.write(raw: "{\"layout\":")
            writer.write(record.key.name)
            writer.write(raw: ",\"epoch\":")
            writer.write(Int64(clamping: record.epoch))
            writer.write(raw: ",\"version\":")
            writer.write(record.version)
            if record.isSettled, let owner = record.owner, owner.isAlive {
                writer.write(raw: ",\"worker\":")
                writer.write(owner.name)
            }
            writer.write(raw: "}")
        }
        writer.write(raw: "]}}")
        output.reply(to: request.envelope, bytes: writer.finish())
        // Counted under its own name: `route` is no `OperationName` (a single daemon does not know it).
        clientsInFlight -= 1
        let now = DispatchTime.now().uptimeNanoseconds
        stats.recordRequest(op: "route", micros: (now > request.arrived ? now - request.arrived : 0) / 1000, errorCode: nil)
    }

    /// Whether `route` events are published: only while a worker with a direct endpoint is registered,
    /// so that a cluster without direct reads publishes exactly what it did before (a subscriber to
    /// every topic written before `route` existed sees nothing new).
    var publishesRoutes: Bool {
        workers.contains { $0.isConnected && $0.directEndpoint != nil }
    }

    /// With CURVE, `key`'s owner or epoch changed: its namespace's table did (no other's: a client's
    /// table lists its own namespace's keys only, and must not hint at another's).
    func noteRouteChange(of key: LayoutKey) {
        guard settings.secured, !routeChanges.everyone else { return }
        routeChanges.namespaces.insert(key.namespace)
    }

    /// With CURVE, the live workers changed: every client's table lists them, so every namespace hears it.
    func noteLiveWorkersChanged() {
        guard settings.secured else { return }
        routeChanges.everyone = true
        routeChanges.namespaces = []
    }

    /// The namespaces to tell of the changes since the last call (with CURVE), and forgets them.
    func takeRouteChanges() -> RouteChanges {
        defer { routeChanges = RouteChanges() }
        return routeChanges
    }

    /// The `route` event's body: the table's new version, for subscribers to fetch it again.
    var routeEvent: WireEvent {
        var writer = JSONWriter(capacity: 48)
        writer.write(raw: "{\"event\":\"route\",\"version\":")
        writer.write(routeVersion)
        writer.write(raw: "}")
        return WireEvent(topic: Array("route".utf8), body: writer.finish())
    }

    /// Worker `worker`'s HEARTBEAT numbered `sequence` arrived at `now`: the lease it asks for counts from
    /// it, and the broker's hold on its keys from `now`. True when the worker has a direct endpoint (its
    /// grant goes at once).
    func heardNumberedHeartbeat(_ sequence: UInt64, from worker: WorkerRecord, now: Nanos) -> Bool {
        guard worker.directEndpoint != nil else { return false }
        worker.leaseHeartbeat = (sequence, now)
        return true
    }

    /// The read lease the next HEARTBEAT to the worker connected with `routingID` grants: counted from
    /// its last numbered heartbeat, one heartbeat shorter than the broker's wait before it judges a
    /// silent worker dead (heartbeat × liveness). Nil for a worker without a direct endpoint, before its
    /// first numbered heartbeat, and with a liveness of 1 (no heartbeat of margin to give).
    ///
    /// Nil, too, while a broker that has just started waits for its workers to register again: until
    /// they all have, a copy adopted from the first to report may yet be superseded by a newer one
    /// reported later, and the RELEASE of the older copy must reach its worker before a lease does, so
    /// that no read can be answered from it (every read arriving after the grant queues behind the
    /// RELEASE, and one arriving before it holds no lease of this connection: `ReadLease`).
    func leaseGrant(forWorkerAt routingID: [UInt8]) -> LeaseGrant? {
        guard rejoinUntil == nil else { return nil }
        guard let worker = byRoutingID[routingID], worker.isConnected, worker.directEndpoint != nil,
              let heartbeat = worker.leaseHeartbeat, settings.liveness > 1 else { return nil }
        let milliseconds = Int(settings.heartbeatNanos / 1_000_000) * (settings.liveness - 1)
        return LeaseGrant(sequence: heartbeat.sequence, milliseconds: milliseconds)
    }

    /// A key moving away from `owner`, a worker with a direct endpoint that still takes work: it is told
    /// to stop answering direct reads of the key (FENCE), and the move waits for its REPLY like any
    /// request in flight there, so the new owner takes no change the old one could still be read
    /// without. A worker that is leaving dropped its read lease before it said so.
    func fenceDirectReads(of record: KeyRecord, at owner: WorkerRecord) {
        guard owner.isAlive, owner.directEndpoint != nil else { return }
        let token = makeToken()
        guard output.send(.fence(token, FenceRequest(key: record.key)), to: owner.routingID) else {
            workerDied(owner, reason: "unreachable")
            return
        }
        pending[token] = Pending(token: token, worker: owner, kind: .fence(record), epoch: epoch)
        owner.pendingTokens.insert(token)
        owner.inFlight += 1
        record.inFlight += 1
        counters.fences += 1
    }

    /// Whether `record` is moving off `worker`, a worker with a read lease, before its FENCE was answered
    /// (draining): the worker may still answer direct reads of it, so it must not go elsewhere before
    /// the lease has run out. (Once drained, the FENCE was answered: the move may go on.)
    func movesOffLeasedCopy(_ record: KeyRecord, of worker: WorkerRecord) -> Bool {
        guard case .draining = record.phase, leaseHold(of: worker) != nil else { return false }
        return true
    }

    /// Until when the keys of `worker`, whose registration ends, must stay where they are: a worker
    /// with a direct endpoint may answer reads until the lease granted from its last heartbeat runs out,
    /// which is within the broker's wait from when that heartbeat was received. Nil when nothing holds
    /// them (no direct endpoint, no lease granted).
    func leaseHold(of worker: WorkerRecord) -> Nanos? {
        guard worker.directEndpoint != nil, let heartbeat = worker.leaseHeartbeat else { return nil }
        return heartbeat.receivedAt + settings.heartbeatNanos * UInt64(settings.liveness)
    }
}

/// Who must hear the `route` event of one pass of the broker's loop, with CURVE: every namespace of the
/// allow-list when the live workers changed (each client's table lists them), else those with a key whose
/// owner or epoch changed.
struct RouteChanges: Equatable {
    var everyone = false
    /// Empty while `everyone`: they are among them.
    var namespaces: Set<String> = []
}
