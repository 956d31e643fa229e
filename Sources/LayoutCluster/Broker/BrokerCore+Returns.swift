import LayoutServer
import LayoutWire

/// Keys whose worker's connection dropped, waiting for it to register again (issue 14, defect 5). A TCP
/// reset healed within `cluster.dropGraceMillis` then moves no key: the worker reports its copies and
/// takes them back, instead of every key being rebuilt elsewhere and later moved back (two rebuilds per
/// key per blip).
///
/// The wait must not make a real death slower to recover from (the broker cannot tell a killed process
/// from a reset connection): while a key waits, its layout is rebuilt on the worker that would take it
/// (a standby). A worker that returns in time keeps its keys and the standbys are released; one that does
/// not is replaced by them at once, so a death costs the longer of the grace and the rebuild, not both.
extension BrokerCore {
    /// The earliest end of a wait, for the I/O loop's timer; nil when no key waits.
    var nextReturnDeadline: Nanos? {
        awaitingReturn.values.map(\.until).min()
    }

    /// Starts a standby rebuild of every key waiting for `name` that has a recipe.
    func rebuildStandbys(forKeysOf name: String) {
        guard let waiting = awaitingReturn[name] else { return }
        var targets: [ObjectIdentifier: WorkerRecord] = [:]
        for key in waiting.keys {
            guard let record = keys[key], case .awaitingReturn = record.phase, record.standby == nil, record.handOver == nil,
                  currentRecipe(of: record) != nil, let target = rendezvousWinner(record.hash) else { continue }
            record.standby = Standby(worker: target)
            enqueueRestore(key, at: target, urgent: !record.held.isEmpty)
            targets[ObjectIdentifier(target)] = target
        }
        for target in targets.values { pumpRestores(at: target) }
    }

    /// Sends the standby rebuild of `record` to its worker. Like a rebuild, it is an assignment: the key's
    /// epoch rises to the broker's, so that the standby copy never outranks what the key becomes.
    func sendStandby(_ record: KeyRecord, to target: WorkerRecord) {
        guard var standby = record.standby, let recipe = currentRecipe(of: record) else {
            record.standby = nil
            return
        }
        let header = RestoreHeader(key: record.key, version: record.version, base: recipe.base)
        let token = makeToken()
        guard output.send(.restore(token, header, recipe.bodies), to: target.routingID) else {
            record.standby = nil
            workerDied(target, reason: "unreachable")
            return
        }
        pending[token] = Pending(token: token, worker: target, kind: .standby(record, header), epoch: epoch)
        target.pendingTokens.insert(token)
        target.inFlight += 1
        target.restoresInFlight += 1
        counters.standbyRebuilds += 1
        standby.token = token
        standby.before = (record.epoch, record.version)
        record.standby = standby
        assignEpoch(record, max(record.epoch, epoch))
    }

    /// A standby rebuild's answer. One its key no longer waits for (taken back, or owned elsewhere by now)
    /// is released, unless the key's copy there is needed (its owner's, or a later standby's).
    func standbyFinished(_ record: KeyRecord, token: RequestToken, at worker: WorkerRecord, outcome: RestoreOutcome?) {
        let restored = if case .restored? = outcome { true } else { false }
        if var standby = record.standby, standby.token == token {
            // Failed or refused: the key is placed as after a death if its worker does not return.
            guard restored else {
                dropStandby(of: record)
                return
            }
            standby.ready = true
            record.standby = standby
            return
        }
        guard restored, record.owner !== worker else { return }
        if var later = record.standby, later.worker === worker, later.token != nil {
            // A later standby's RESTORE is on its way there: a RELEASE now would follow it and remove
            // its copy (seed 202810). That standby releases the copy if it is not used.
            later.releasesEarlierCopy = true
            record.standby = later
            return
        }
        release([record.key], at: worker)
    }

    /// The key's standby is not used (failed, its worker gone, its copy evicted): a copy it made there, or
    /// an earlier one's, is released, and the key stands at the epoch it had before the standby was sent,
    /// so that its owner's copy is still taken back when it returns.
    ///
    /// Not when the standby's worker is gone: it may only be cut off, and come back with the standby's
    /// copy, stamped with the raised epoch, which no RELEASE reached. Lowered, the key's epoch would rank
    /// that copy above the owner's, even one with a later change taken back meanwhile, and the stale
    /// copy would replace it (simulator, seed 328772: a change read, then rolled back). The key keeps
    /// the raised epoch: its owner's copy is then rebuilt rather than taken back.
    func dropStandby(of record: KeyRecord) {
        guard let standby = record.standby else { return }
        record.standby = nil
        if (standby.ready || standby.releasesEarlierCopy), standby.worker.isConnected { release([record.key], at: standby.worker) }
        if standby.token != nil, standby.worker.isConnected { assignEpoch(record, standby.before.epoch) }
    }

    /// A worker reported `entry` for a key waiting for a return: taken back when its copy is the one the
    /// key stands at or newer (a change answered `unavailable` may have been applied on it before the
    /// drop); with a standby rebuild sent, only at the version the standby has, since the standby's
    /// later epoch would outrank a newer copy taken back (its extra change, answered `unavailable`,
    /// then resolves as not applied). False otherwise: that copy is released, and the key waits on (for
    /// the worker it waits for, until the end of its READY, which places every key it did not take back).
    func takeBack(_ record: KeyRecord, reported entry: ReadyInfo.KeyVersion, by worker: WorkerRecord) -> Bool {
        // A copy elsewhere was taking the key over from this one (`BrokerCore+HandOvers`): it still does.
        guard record.handOver == nil else { return false }
        if let standby = record.standby, standby.token != nil {
            guard entry.version == standby.before.version, entry.epoch >= standby.before.epoch else { return false }
        } else {
            guard (entry.epoch, entry.version) >= (record.epoch, record.version) else { return false }
        }
        if entry.version != record.version {
            // It applied a change answered `unavailable` before the drop: the recipe cannot reproduce
            // that version, so it goes, as when a newer copy is adopted.
            recipes.unprotect(record.key, version: entry.version)
        }
        settle(record)
        abandonStandby(of: record)
        record.formerCopy = nil
        record.version = entry.version
        // The copy's own stamp again (below a standby's, which is released).
        assignEpoch(record, entry.epoch)
        setOwner(record, worker)
        if var waiting = awaitingReturn[worker.name] {
            waiting.keys.removeAll { $0 == record.key }
            awaitingReturn[worker.name] = waiting.keys.isEmpty ? nil : waiting
        }
        counters.keysKeptThroughDrops += 1
        flushHeld(record)
        reprotect(record)
        return true
    }

    /// The key's standby is not needed: released where it is built; one still being built is released
    /// when its answer comes (`standbyFinished`); one waiting for a slot is never sent.
    private func abandonStandby(of record: KeyRecord) {
        guard let standby = record.standby else { return }
        record.standby = nil
        if standby.ready || standby.releasesEarlierCopy, standby.worker.isConnected { release([record.key], at: standby.worker) }
    }

    /// Once the wait's time is over: the keys still waiting are rebuilt elsewhere.
    func endReturnWaits(now: Nanos) {
        for (name, waiting) in awaitingReturn where waiting.until <= now {
            logger.warning("worker did not return after its connection dropped; its layouts go to other workers", metadata: ["worker": "\(name)", "layouts": "\(waiting.keys.count)"])
            endReturnWait(of: name)
        }
    }

    /// The keys waiting for `name` stop waiting: each goes to its standby, or is placed anew.
    func endReturnWait(of name: String) {
        guard let waiting = awaitingReturn.removeValue(forKey: name) else { return }
        for key in waiting.keys {
            guard let record = keys[key], case .awaitingReturn(let from, _) = record.phase, from == name else { continue }
            if finishHandOverAfterWait(record) { continue }
            counters.keysRebuiltAfterDrops += 1
            if promoteStandby(of: record) { continue }
            settle(record)
            placeOrAnswer(record)
        }
    }

    /// The key's standby becomes its copy: at once when it is built, else as the key's rebuild. False
    /// when it has none (or its worker is gone).
    private func promoteStandby(of record: KeyRecord) -> Bool {
        guard let standby = record.standby else { return false }
        guard standby.worker.isAlive, let token = standby.token else {
            dropStandby(of: record)
            return false
        }
        record.standby = nil
        if standby.ready {
            settle(record)
            setOwner(record, standby.worker)
            noteRebuilt(record)
        } else {
            guard let rebuild = pending[token], case .standby(_, let header) = rebuild.kind else { return false }
            rebuild.kind = .restore(record, header, fromRecipe: true)
            record.inFlight += 1
            setOwner(record, standby.worker)
            beginRebuild(record, at: standby.worker, keepingCopyAt: nil)
        }
        // A rebuild from its recipe that became the key's copy, as `restores` counts them.
        counters.standbysUsed += 1
        counters.restores += 1
        flushHeld(record)
        return true
    }
}
