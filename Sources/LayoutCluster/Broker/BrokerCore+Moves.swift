import LayoutEngine
import LayoutServer
import LayoutWire

extension BrokerCore {
    /// Gives a settled key without a connected owner one: its layout rebuilt from its recipe on the
    /// key's rendezvous winner; its loss published when it has no recipe; or, for a key that keeps no
    /// layout, only its version count carried over.
    func place(_ record: KeyRecord) {
        guard record.isSettled else { return }
        if let owner = record.owner, !owner.isConnected { setOwner(record, nil) }
        guard record.owner == nil else { return }
        guard let target = rendezvousWinner(record.hash) else { return }
        fallBackToRecipe(record)
        if record.kept, recipes.recipe(for: record.key) == nil { lose(record) }
        if record.kept {
            queueRebuild(record, at: target)
            enqueueRestore(record.key, at: target, urgent: !record.held.isEmpty)
            pumpRestores(at: target)
        } else {
            sendRestore(record, to: target)
        }
    }

    /// Starts moving a settled key to `target` (a joining worker that now wins it, or away from a
    /// leaving one). A kept layout without a recipe cannot move and stays.
    func startMove(_ record: KeyRecord, to target: WorkerRecord) {
        guard record.isSettled, record.owner !== target, target.isAlive else { return }
        guard !record.kept || currentRecipe(of: record) != nil else { return }
        counters.moves += 1
        drain(record, toward: target)
        if let owner = record.owner { fenceDirectReads(of: record, at: owner) }
        if record.inFlight == 0 { drained(record) }
    }

    /// Every request on a moving key at its old owner is answered: its recipe is complete.
    func drained(_ record: KeyRecord) {
        guard case .draining(let target) = record.phase else { return }
        if finishHandOver(record) { return }
        guard target.isAlive else {
            cancelMove(record)
            return
        }
        guard record.kept else {
            // Only the version count moves: no rebuild slot needed.
            settle(record)
            sendRestore(record, to: target)
            return
        }
        queueRebuild(record, at: target)
        enqueueRestore(record.key, at: target, urgent: !record.held.isEmpty)
        pumpRestores(at: target)
    }

    /// A move whose target went away: the key stays with its owner, or is placed anew.
    func cancelMove(_ record: KeyRecord) {
        settle(record)
        if let owner = record.owner, owner.isConnected {
            flushHeld(record)
        } else {
            place(record)
            flushHeld(record)
        }
    }

    func enqueueRestore(_ key: LayoutKey, at worker: WorkerRecord, urgent: Bool) {
        if urgent { worker.urgentRestores.append(key) } else { worker.restoreQueue.append(key) }
    }

    /// A request arrived for a key waiting for its rebuild: the rebuild goes ahead of keys nobody waits for.
    func promoteRestore(_ key: LayoutKey, at worker: WorkerRecord) {
        if worker.restoreQueue.remove(key) { worker.urgentRestores.append(key) }
    }

    /// Sends rebuilds to `worker` while it has rebuild slots.
    func pumpRestores(at worker: WorkerRecord) {
        while worker.isAlive, worker.restoresInFlight < settings.restoresPerWorker, worker.hasCredit {
            guard let key = worker.urgentRestores.popFirst() ?? worker.restoreQueue.popFirst() else { return }
            guard let record = keys[key] else { continue }
            switch record.phase {
            case .queued(let target) where target === worker:
                sendRestore(record, to: worker)
            case .awaitingReturn where record.standby?.worker === worker && record.standby?.token == nil:
                sendStandby(record, to: worker)
            default:
                continue
            }
        }
    }

    /// Sends RESTORE for `record` to `target`, which becomes its owner; requests waiting for the move
    /// follow at once and queue behind the rebuild there.
    func sendRestore(_ record: KeyRecord, to target: WorkerRecord) {
        let previous = record.owner.flatMap { $0 !== target && $0.isConnected ? $0 : nil }
        let recipe = record.kept ? currentRecipe(of: record) : nil
        let header = RestoreHeader(key: record.key, version: record.version, base: recipe?.base ?? 0)
        let token = makeToken()
        guard output.send(.restore(token, header, recipe?.bodies ?? []), to: target.routingID) else {
            settle(record)
            workerDied(target, reason: "unreachable")
            if record.owner == nil || record.owner?.isConnected == false { place(record) }
            flushHeld(record)
            return
        }
        pending[token] = Pending(token: token, worker: target, kind: .restore(record, header, fromRecipe: recipe != nil), epoch: epoch)
        target.pendingTokens.insert(token)
        target.inFlight += 1
        if recipe != nil {
            target.restoresInFlight += 1
            counters.restores += 1
        } else {
            counters.seeds += 1
        }
        record.inFlight += 1
        setOwner(record, target)
        let stamp = record.epoch
        // An assignment: from here a copy stamped with an earlier epoch is older than this rebuild, even
        // one at a higher version (a change answered unavailable that its cut-off worker applied), and
        // loses to it whatever becomes of the rebuild (simulator, seed 67458: such a copy was taken back
        // after the rebuild's worker was cut off, and the abandoned rebuild's copy outranked it later).
        assignEpoch(record, max(record.epoch, epoch))
        beginRebuild(record, at: target, keepingCopyAt: previous, stampedAt: stamp)
        flushHeld(record)
    }

    /// A rebuild's answer: the key is settled at its new owner, and the worker it left forgets it.
    /// `epoch` is the one the rebuild was sent under, which the worker stamped its copy with.
    func restoreFinished(_ record: KeyRecord, header: RestoreHeader, at worker: WorkerRecord, outcome: RestoreOutcome?, epoch: UInt64) {
        guard case .restoring(let target, let previous) = record.phase, target === worker else { return }
        if case .failed(let code, _)? = outcome, code == WireError.Code.busy.rawValue, worker.isAlive {
            // The worker's queue was full and it changed nothing: the rebuild goes again (a version-only
            // one too, or the key's count would start over there: issue 14), once the
            // requests sent behind it have come back (keyQuieted).
            queueRebuild(record, at: worker)
            setOwner(record, previous)
            // Its copy's stamp: the key's epoch while it serves (the retry raises it again).
            if previous != nil { assignEpoch(record, record.fallbackEpoch) }
            if record.inFlight > 0 {
                record.rebuildWhenQuiet = true
            } else {
                enqueueRestore(record.key, at: worker, urgent: true)
            }
            return
        }
        settle(record)
        if let previous, previous.isConnected { release([record.key], at: previous) }
        // The requests that waited for the rebuild go now, in arrival order.
        defer { flushHeld(record) }
        if case .restored? = outcome {
            // The key's new assignment: any copy made before it (a dead worker's) ranks below it.
            assignEpoch(record, max(record.epoch, epoch))
            noteRebuilt(record)
            return
        }
        counters.restoreFailures += 1
        logger.warning("rebuild failed; the layout is lost", metadata: [
            "layout": "\(record.key)", "worker": "\(worker.name)", "outcome": "\(String(describing: outcome))",
        ])
        // The worker made the key's count continue past the loss's version, as `lose` publishes it.
        if record.kept { lose(record) }
    }

    func release(_ keys: [LayoutKey], at worker: WorkerRecord) {
        counters.released += keys.count
        _ = output.send(.release(keys), to: worker.routingID)
    }

    /// Sends a key's waiting requests to its owner, in arrival order.
    func flushHeld(_ record: KeyRecord) {
        guard !record.isHolding, let owner = record.owner, owner.isConnected, !record.held.isEmpty else { return }
        let held = record.held
        record.held = []
        heldCount -= held.count
        for request in held { send(request, to: owner, record: record) }
    }

    /// After a worker joined: keys it now wins move to it, and keys without a worker get one.
    func rebalance(toward worker: WorkerRecord) {
        for record in keys.values where record.isSettled {
            if record.owner?.isConnected != true {
                // While a restarted broker waits for its workers, a key no worker reported yet may be on
                // one still to come: it is placed when the wait is over (`placeUnclaimed`), not rebuilt
                // on the first worker to join.
                if rejoinUntil != nil && record.held.isEmpty { continue }
                place(record)
                flushHeld(record)
                continue
            }
            guard record.kept, record.owner !== worker, currentRecipe(of: record) != nil else { continue }
            if rendezvousWinner(record.hash) === worker { startMove(record, to: worker) }
        }
    }
}
