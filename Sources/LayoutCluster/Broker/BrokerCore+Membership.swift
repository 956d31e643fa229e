import Foundation
import LayoutServer
import LayoutWire

extension BrokerCore {
    /// A READY: a worker joins (or a worker whose broker restarted comes back with its layouts).
    func workerReady(routingID: [UInt8], ready: ReadyInfo, fileDescriptor: Int32?, address: String, now: Nanos) {
        if let existing = byRoutingID[routingID] {
            workerDied(existing, reason: "sent READY again")
        }
        // The same worker on a new connection (its old one dropped, and this broker may not have seen the
        // drop yet): the old registration ends here, and the keys it owned wait for this READY, which
        // takes back the copies it reports instead of having them released as another's.
        for existing in workers where existing.isConnected && existing.name == ready.workerID {
            workerDied(existing, reason: "registered again on a new connection", keysWaitUntil: now + settings.dropGraceNanos)
        }
        guard speaks(ready.extensionVersion) else {
            logger.warning("worker speaks another protocol version; disconnected", metadata: [
                "worker": "\(ready.workerID)", "protocol": "\(ready.extensionVersion)",
            ])
            _ = output.send(.disconnect, to: routingID)
            return
        }
        let worker = WorkerRecord(number: nextWorkerNumber, routingID: routingID, ready: ready, fileDescriptor: fileDescriptor, address: address, now: now)
        nextWorkerNumber += 1
        workers.append(worker)
        byRoutingID[routingID] = worker
        if let fileDescriptor { byDescriptor[fileDescriptor] = worker }
        addToLive(worker)
        counters.workersJoined += 1
        logger.info("worker joined", metadata: ["worker": "\(worker.name)", "address": "\(address)", "credit": "\(worker.credit)", "keys": "\(ready.keys.count)"])
        // The epoch first, before any request or rebuild (taking its keys back may send both at once): the
        // worker stamps what it changes for this broker with it (simulator, seed 17239: a rebuild sent
        // before it was stamped with no epoch, and a stale copy outranked it after a broker restart).
        _ = output.send(.heartbeat, to: routingID)
        adopt(ready.keys, from: worker)
        rebalance(toward: worker)
    }

    /// Whether the broker takes a worker of protocol `version`: the current one or an earlier one, which
    /// is never sent anything a later version added (a worker of 2 is asked for no snapshot). With CURVE,
    /// not the one before namespaces.
    private func speaks(_ version: Int) -> Bool {
        let oldest = settings.secured ? WorkerProtocol.namespaceVersion : WorkerProtocol.namespacelessVersion
        return version >= oldest && version <= WorkerProtocol.extensionVersion
    }

    /// Takes over the routing of layouts a worker reports keeping: after a broker restart this
    /// rebuilds the table; a copy another worker now owns is stale and released. So is a layout no
    /// client of this broker can reach: of a namespace when the broker has no CURVE (everyone is in
    /// ""), or of "" when it has (everyone has a namespace of their own), as after a restart that
    /// turned CURVE on or off.
    private func adopt(_ reported: [ReadyInfo.KeyVersion], from worker: WorkerRecord) {
        var stale: [LayoutKey] = []
        // Older copies that a newer one reported here replaces, by the worker holding them.
        var superseded: [ObjectIdentifier: (worker: WorkerRecord, keys: [LayoutKey])] = [:]
        for entry in reported {
            guard entry.key.namespace.isEmpty != settings.secured else {
                stale.append(entry.key)
                continue
            }
            if let record = keys[entry.key], case .awaitingReturn = record.phase {
                if !takeBack(record, reported: entry, by: worker) { stale.append(entry.key) }
                continue
            }
            guard let record = keys[entry.key] else {
                let record = KeyRecord(key: entry.key, tally: tally)
                record.kept = true
                assignEpoch(record, entry.epoch)
                record.version = entry.version
                keys[entry.key] = record
                setOwner(record, worker)
                continue
            }
            if let owner = record.owner, owner.isConnected {
                guard owner !== worker else { continue }
                if let takenBack = takeBackFormerCopy(record, reported: entry, by: worker) {
                    if takenBack == .now { superseded[ObjectIdentifier(owner), default: (owner, [])].keys.append(entry.key) }
                    continue
                }
                if case .restoring(_, nil) = record.phase, (entry.epoch, entry.version) == (record.epoch, record.version) {
                    // Being rebuilt elsewhere after this worker was cut off, and it still has the very
                    // state being rebuilt: it keeps its copy until the rebuild succeeds, as the worker a
                    // key moves away from does. Released now, the copy would be gone should the broker
                    // die before the rebuild is done (found by the simulator, seed 3151).
                    keepFallback(record, at: worker, stampedAt: entry.epoch)
                    continue
                }
                // Ordered by (epoch, version): a change acknowledged through this broker outranks any copy
                // from before it (versions restarted with the broker's memory); among copies of one
                // earlier broker, the higher version has the acknowledged changes the other missed.
                // (A snapshot in flight does not hold it back: its answer is not used once the owner changed.)
                let requestsInFlight = record.inFlight - (record.snapshotInFlight ? 1 : 0)
                guard (entry.epoch, entry.version) > (record.epoch, record.version), record.isSettled, requestsInFlight == 0, record.held.isEmpty else {
                    stale.append(entry.key)
                    continue
                }
                // A newer copy than the one adopted first: after a broker restart, the worker that
                // rejoined first may hold a key from before it was cut off, while this one holds the
                // rebuild that took the acknowledged changes since (issue 14). Arrival order must not
                // decide: the newer copy wins, the older is released (once its worker stopped answering
                // direct reads of it: `BrokerCore+HandOvers`).
                if handOver(record, HandOver(worker: worker, epoch: entry.epoch, version: entry.version, supersedes: true)) {
                    superseded[ObjectIdentifier(owner), default: (owner, [])].keys.append(entry.key)
                }
                continue
            }
            guard record.isSettled, (entry.epoch, entry.version) >= (record.epoch, record.version) else {
                stale.append(entry.key)
                continue
            }
            if entry.version != record.version || !record.kept, !keepsFallbackRecipe(record, adoptingVersion: entry.version) {
                recipes.unprotect(entry.key, version: entry.version)
            }
            record.version = entry.version
            assignEpoch(record, entry.epoch)
            record.kept = true
            setOwner(record, worker)
            flushHeld(record)
        }
        if !stale.isEmpty { release(stale, at: worker) }
        for (older, keys) in superseded.values { release(keys, at: older) }
        // Copies taken without a recipe that can rebuild them (a broker restarted without a journal, or a
        // copy newer than its recipe) are protected again from a snapshot of each.
        for key in worker.ownedKeys.sorted() {
            if let record = keys[key] { reprotect(record) }
        }
        // Back without some of the keys that waited for it (a new process under its name): rebuilt now.
        endReturnWait(of: worker.name)
    }

    /// Any command from a worker: it is alive. Unknown senders are told to start over (MDP).
    func heard(from routingID: [UInt8], now: Nanos) -> WorkerRecord? {
        guard let worker = byRoutingID[routingID], worker.isConnected else {
            _ = output.send(.disconnect, to: routingID)
            return nil
        }
        worker.lastHeard = now
        return worker
    }

    /// A worker's DISCONNECT: it answers what it has and takes nothing new; its keys move away now.
    func workerLeaving(_ worker: WorkerRecord) {
        guard worker.state == .alive else { return }
        logger.info("worker leaving", metadata: ["worker": "\(worker.name)"])
        worker.state = .leaving
        removeFromLive(worker)
        cancelMovesToward(worker)
        for key in worker.ownedKeys {
            guard let record = keys[key], record.isSettled, let target = rendezvousWinner(record.hash) else { continue }
            startMove(record, to: target)
        }
    }

    /// The socket monitor saw a worker's connection drop. The process may be gone, or only the
    /// connection (a TCP reset healed at once): its requests in flight are answered as after a death (any
    /// of them may be lost with the connection), but its keys wait `cluster.dropGraceMillis` for it to
    /// register again with its copies before they are rebuilt elsewhere.
    func connectionDropped(fileDescriptor: Int32, now: Nanos) {
        guard let worker = byDescriptor[fileDescriptor], worker.isConnected else { return }
        counters.connectionsDropped += 1
        workerDied(worker, reason: "connection dropped", keysWaitUntil: settings.dropGraceNanos > 0 ? now + settings.dropGraceNanos : nil)
        rebuildStandbys(forKeysOf: worker.name)
    }

    /// Every heartbeat interval: heartbeats out, and workers silent for `liveness` intervals declared dead.
    /// While `backlogged` (messages from workers wait unread on the back socket), nobody is judged
    /// silent: what a worker sent may be among them, and a backlog on this thread is not the worker's
    /// silence (issue 14, defect 5). It is judged at the next tick that finds the backlog read.
    func tick(now: Nanos, backlogged: Bool = false) {
        endRejoinWait(now: now)
        endReturnWaits(now: now)
        let limit = settings.heartbeatNanos * UInt64(settings.liveness)
        for worker in workers where worker.isConnected {
            if !backlogged, now > worker.lastHeard, now - worker.lastHeard > limit {
                _ = output.send(.disconnect, to: worker.routingID)
                workerDied(worker, reason: "missed \(settings.liveness) heartbeats")
            } else if !output.send(.heartbeat, to: worker.routingID) {
                workerDied(worker, reason: "unreachable")
            }
        }
        // Dead workers stay listed in stats for a while, then go.
        let keepDead = settings.heartbeatNanos * 60
        workers.removeAll { $0.state == .dead && now > $0.lastHeard && now - $0.lastHeard > keepDead }
    }

    /// A worker is gone. Its unanswered read-only requests go to the keys' new owners (or any worker);
    /// its unanswered changes are answered `unavailable` (whether they were applied is unknown); its
    /// keys are rebuilt elsewhere from their recipes, or published as lost.
    /// With `keysWaitUntil`, its settled layouts wait for its return until then (`BrokerCore+Returns`).
    func workerDied(_ worker: WorkerRecord, reason: String, keysWaitUntil grace: Nanos? = nil) {
        guard worker.isConnected else { return }
        // A worker answering direct reads keeps its keys until its read lease has run out, however its
        // registration ends (a dropped connection, a failed send, a READY again): a live process cut
        // off from this broker may answer reads until then, so no change may be made elsewhere first.
        let deadline = [grace, leaseHold(of: worker)].compactMap { $0 }.max()
        logger.warning("worker declared dead", metadata: ["worker": "\(worker.name)", "reason": "\(reason)", "keys": "\(worker.ownedKeys.count)", "inFlight": "\(worker.inFlight)"])
        counters.workersDied += 1
        worker.state = .dead
        removeFromLive(worker)
        if byRoutingID[worker.routingID] === worker { byRoutingID[worker.routingID] = nil }
        if let fd = worker.fileDescriptor, byDescriptor[fd] === worker { byDescriptor[fd] = nil }
        advanceEpoch()

        // Its unanswered work, oldest first.
        var retries: [ClientRequest] = []
        var keyedRetries: [ObjectIdentifier: (record: KeyRecord, requests: [ClientRequest])] = [:]
        var retriedOrder: [KeyRecord] = []
        for token in worker.pendingTokens.sorted() {
            guard let entry = pending.removeValue(forKey: token) else { continue }
            switch entry.kind {
            case .client(let request, let record):
                record?.inFlight -= 1
                guard request.isRetryable else {
                    answer(request, WireError(.unavailable, "the worker running this change stopped before answering, so whether it was applied is unknown; retry (with ifVersion to apply it at most once)"))
                    continue
                }
                counters.retried += 1
                if let record {
                    let id = ObjectIdentifier(record)
                    if keyedRetries[id] == nil {
                        keyedRetries[id] = (record, [])
                        retriedOrder.append(record)
                    }
                    keyedRetries[id]?.requests.append(request)
                } else {
                    retries.append(request)
                }
            case .restore(let record, _, _):
                record.inFlight -= 1
            case .standby(let record, _):
                if record.standby?.token == token { dropStandby(of: record) }
            case .fence(let record):
                record.inFlight -= 1
            case .snapshot(let record, let recipe):
                record.inFlight -= 1
                record.snapshotInFlight = false
                if let recipe { snapshotNotUsed(recipe, record: record, reason: "its worker died") }
            case .listPart(let aggregate):
                guard !aggregate.abandoned else { continue }
                aggregate.abandoned = true
                for other in aggregate.waiting where other != token {
                    if let part = pending.removeValue(forKey: other) {
                        part.worker.pendingTokens.remove(other)
                        part.worker.inFlight -= 1
                    }
                }
                retries.append(aggregate.request)
            }
        }
        worker.pendingTokens = []
        worker.inFlight = 0
        worker.restoresInFlight = 0
        cancelMovesToward(worker)

        // Its keys: back to the worker a move had not finished leaving, or placed anew.
        var affected = retriedOrder
        var waiting: [LayoutKey] = []
        for key in worker.ownedKeys.sorted() {
            guard let record = keys[key] else { continue }
            rememberFormerCopy(of: record, at: worker)
            if ownerGone(during: record, of: worker, deadline: deadline) {
                // Handed over to a copy elsewhere, now or once the lease is over.
            } else if case .restoring(_, let previous) = record.phase, let previous, previous.isConnected {
                fallBack(record, to: previous)
            } else if let deadline, record.kept, record.isSettled || movesOffLeasedCopy(record, of: worker) || rebuildsAtFormerDirectOwner(record, worker) {
                // A move off a worker that may still answer direct reads (its FENCE perhaps unanswered)
                // is called off: the key waits for that worker, or for its lease to run out, like the others.
                // So does a key moving back to a worker that served it directly at the epoch its rebuild
                // stamps: a client's table from then names it, and it may answer once the rebuild lands.
                if !record.isSettled { settle(record) }
                setOwner(record, nil)
                awaitReturn(record, of: worker.name, until: deadline)
                waiting.append(key)
            } else {
                if !record.isSettled { settle(record) }
                setOwner(record, nil)
            }
            if keyedRetries[ObjectIdentifier(record)] == nil { affected.append(record) }
        }
        worker.ownedKeys = []
        if let deadline, !waiting.isEmpty {
            awaitingReturn[worker.name, default: (deadline, [])].keys += waiting
            awaitingReturn[worker.name]?.until = deadline
        }
        for record in affected {
            if let retried = keyedRetries[ObjectIdentifier(record)]?.requests {
                // They arrived before anything held: they go first.
                record.held = retried + record.held
                heldCount += retried.count
            }
            placeOrAnswer(record)
        }
        for request in retries { dispatch(request) }
    }

    /// A worker was declared dead, but it may only be paused or cut off, and still finish a change it was
    /// running (issue 14, defect 1): that change is stamped with the epoch it last heard. Every worker
    /// still connected hears the next one now, before any rebuild or request sent after the death, so
    /// what they do from here outranks anything the dead one did, even at an equal version.
    private func advanceEpoch() {
        epoch += 1
        if settings.epochFollowsClock { epoch = max(epoch, UInt64(max(0, Date().timeIntervalSince1970 * 1000))) }
        counters.epochAdvances += 1
        for other in workers where other.isConnected {
            _ = output.send(.heartbeat, to: other.routingID)
        }
    }

    /// Gives a key without an owner one and sends it its waiting requests; with no worker left to take
    /// it, they are answered `unavailable`. (A key queued for a rebuild slot, or waiting for its worker's
    /// return, has no owner yet, but its requests wait like any held ones.)
    func placeOrAnswer(_ record: KeyRecord) {
        if record.owner == nil { place(record) }
        flushHeld(record)
        if record.owner == nil, !record.isHolding, !record.held.isEmpty {
            let stranded = record.held
            record.held = []
            heldCount -= stranded.count
            for request in stranded { answer(request, WireError(.unavailable, "no worker is serving; retry later")) }
        }
    }

    /// Moves toward `worker` (leaving or dead) are called off.
    private func cancelMovesToward(_ worker: WorkerRecord) {
        worker.restoreQueue.removeAll()
        worker.urgentRestores.removeAll()
        for record in keys.values {
            switch record.phase {
            case .draining(let target) where target === worker, .queued(let target) where target === worker:
                cancelMove(record)
            case .restoring(let target, let previous) where target !== worker && previous === worker:
                keepFallback(record, at: nil)
            default:
                continue
            }
        }
    }

    func addToLive(_ worker: WorkerRecord) {
        routeVersion += 1
        noteLiveWorkersChanged()
        live.append(worker)
        liveSeeds.append(worker.seed)
        worker.loadIndex = loadIndex
        loadIndex.insert(worker)
    }

    func removeFromLive(_ worker: WorkerRecord) {
        guard let index = live.firstIndex(where: { $0 === worker }) else { return }
        routeVersion += 1
        noteLiveWorkersChanged()
        live.remove(at: index)
        liveSeeds.remove(at: index)
        loadIndex.remove(worker)
        worker.loadIndex = nil
    }
}
