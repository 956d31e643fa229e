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
    /// namespace (or only those asked about, `layout` or `layouts`) with its epoch, version and, when it
    /// is settled at a live worker, that worker. A key without an owner there is moving or lost: the
    /// client asks the broker for it.
    func answerRoute(_ request: ClientRequest, _ ask: RouteRequest) {
        if let fault = ask.fault {
            output.reply(to: request.envelope, bytes: ReplyEncoder.failure(id: request.route.id, error: fault))
            recordRoute(request, errorCode: fault.code.rawValue)
            return
        }
        let namespace = request.caller?.namespace ?? ""
        let records: [KeyRecord]
        if let names = ask.askedNames {
            // Each name once, in name order, as the whole table lists them.
            records = Set(names).sorted().compactMap { keys[LayoutKey(namespace: namespace, name: $0)] }
        } else {
            records = keys.values.filter { $0.key.namespace == namespace }.sorted { $0.key.name < $1.key.name }
        }
        let result = RouteResult(
            role: "broker", version: routeVersion, epoch: epoch,
            workers: live.map { RouteResult.Worker(name: $0.name, direct: $0.directEndpoint) },
            keys: records.filter(\.kept).map { record in
                let owner = record.isSettled ? record.owner.flatMap { $0.isAlive ? $0.name : nil } : nil
                return RouteResult.Key(layout: record.key.name, epoch: record.epoch, version: record.version, worker: owner)
            }
        )
        output.reply(to: request.envelope, bytes: ReplyEncoder.success(id: request.route.id, result: result))
        recordRoute(request, errorCode: nil)
    }

    /// Counted under its own name: `route` is no `OperationName` (a single daemon does not know it).
    private func recordRoute(_ request: ClientRequest, errorCode: String?) {
        clientsInFlight -= 1
        let now = DispatchTime.now().uptimeNanoseconds
        stats.recordRequest(op: "route", micros: (now > request.arrived ? now - request.arrived : 0) / 1000, errorCode: errorCode)
    }

    /// Whether `route` events are published: only while a worker with a direct endpoint is registered,
    /// so that a cluster without direct reads publishes exactly what it did before (a subscriber to
    /// every topic written before `route` existed sees nothing new).
    var publishesRoutes: Bool {
        workers.contains { $0.isConnected && $0.directEndpoint != nil }
    }

    /// `key`'s owner or epoch changed: the next `route` event names it (while it names at most
    /// `RouteEvent.maxLayouts`), and with CURVE goes to its namespace (no other's: a client's table lists
    /// its own namespace's keys only, and must not hint at another's).
    func noteRouteChange(of key: LayoutKey) {
        guard !routeChanges.everyone else { return }
        if settings.secured { routeChanges.namespaces.insert(key.namespace) }
        guard !routeChanges.tooManyKeys else { return }
        routeChanges.keys.insert(key)
        if routeChanges.keys.count > RouteEvent.maxLayouts {
            routeChanges.tooManyKeys = true
            routeChanges.keys = []
        }
    }

    /// The live workers changed: every client's table lists them, so every namespace hears it, and the
    /// event names no key (every key may have a new owner).
    func noteLiveWorkersChanged() {
        routeChanges = RouteChanges(everyone: true)
    }

    /// The changes since the last call, for the loop to publish (and for `routeEvent` to describe);
    /// forgets them.
    func takeRouteChanges() -> RouteChanges {
        defer { routeChanges = RouteChanges() }
        routeChangesTaken = routeChanges
        return routeChanges
    }

    /// The `route` event's body for the changes last taken (`takeRouteChanges`): the table's new version,
    /// and the keys that changed when the event goes to everyone alike (without CURVE). With CURVE each
    /// namespace's event names its own keys: `routeEvent(in:)`.
    var routeEvent: WireEvent {
        routeEvent(in: settings.secured ? nil : "")
    }

    /// The `route` event for `namespace`'s subscribers: the keys of it that changed, unless the live
    /// workers changed or too many keys did (nil `namespace`: name no key).
    func routeEvent(in namespace: String?) -> WireEvent {
        let changes = routeChangesTaken
        var layouts: [String]?
        if let namespace, !changes.everyone, !changes.tooManyKeys {
            layouts = changes.keys.filter { $0.namespace == namespace }.map(\.name).sorted()
        }
        return RouteEvent(version: routeVersion, layouts: layouts).wireEvent
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

/// What the `route` event of one pass of the broker's loop tells, and with CURVE who must hear it: every
/// namespace of the allow-list when the live workers changed (each client's table lists them), else those
/// with a key whose owner or epoch changed.
struct RouteChanges: Equatable {
    var everyone = false
    /// Empty while `everyone`: they are among them. Kept with CURVE only.
    var namespaces: Set<String> = []
    /// The keys whose owner or epoch changed; empty while `everyone` or `tooManyKeys`.
    var keys: Set<LayoutKey> = []
    /// More keys changed than an event names.
    var tooManyKeys = false
}
