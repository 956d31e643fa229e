import LayoutServer

extension BrokerCore {
    /// After a change joined `record`'s recipe: when the recipe has outgrown its `prepare`, asks the key's
    /// owner for a snapshot (SNAPSHOT, protocol 3), one at a time per key. Only a settled key on a live
    /// worker that speaks protocol 3 and has credit is asked; any other waits for its next change.
    ///
    /// The worker runs the snapshot as an op on the key, behind every request sent before it, so it
    /// answers the layout at some version the recipe already holds or will hold once the replies ahead of
    /// it are learned (they come first, on the same connection).
    func compactIfDue(_ record: KeyRecord) {
        guard let recipe = recipes.recipe(for: record.key), recipes.isDueForCompaction(recipe) else { return }
        askSnapshot(of: record, for: recipe)
    }

    /// A kept key without a recipe (adopted after a broker restart without a journal, taken back at a
    /// version its recipe could not reproduce, or whose recipe was dropped) is unprotected: its worker's
    /// death would lose it. Its owner is asked for a snapshot, which starts a recipe at the version the
    /// layout stands at. Asked once; a key it does not reach stays unprotected until its next `prepare`.
    func reprotect(_ record: KeyRecord) {
        guard record.kept, currentRecipe(of: record) == nil, recipes.capacityBytes > 0 else { return }
        askSnapshot(of: record, for: nil)
    }

    /// Sends SNAPSHOT for `record` to its owner, when it is settled on a live worker of protocol 3 with
    /// credit and has no snapshot unanswered.
    private func askSnapshot(of record: KeyRecord, for recipe: Recipe?) {
        guard !record.snapshotInFlight, record.kept, record.isSettled, let owner = record.owner, owner.isAlive,
              owner.takesSnapshots, owner.hasCredit else { return }
        let token = makeToken()
        // Asked while a reply from this worker is being learned: a connection found gone here is left for
        // the socket monitor (or the next request) to report, rather than handled in the middle of that.
        guard output.send(.snapshot(token, SnapshotRequest(key: record.key)), to: owner.routingID) else { return }
        pending[token] = Pending(token: token, worker: owner, kind: .snapshot(record, recipe), epoch: epoch)
        owner.pendingTokens.insert(token)
        owner.inFlight += 1
        record.inFlight += 1
        record.snapshotInFlight = true
    }

    /// A snapshot's answer: its header, and the `prepare` body when it was taken. The body replaces the
    /// recipe's bodies up to the snapshot's version when the recipe is still the one it was asked for,
    /// holds that version, and gets smaller; otherwise it is dropped and the recipe, still valid, stays.
    func snapshotFinished(_ record: KeyRecord, recipe: Recipe?, header: [UInt8], body: HeldBody?, from worker: WorkerRecord) {
        record.snapshotInFlight = false
        let outcome = SnapshotOutcome(frame: header)
        guard let recipe else {
            // Asked by `reprotect`: the recipe starts from it if the key still stands at its version and
            // nothing gave it a recipe meanwhile.
            guard case .taken(_, let version, _)? = outcome, let body, record.kept, record.version == version,
                  record.owner === worker, currentRecipe(of: record) == nil else {
                counters.snapshotFailures += 1
                return
            }
            noteEvicted(recipes.start(record.key, base: version, prepare: body))
            counters.reprotected += 1
            return
        }
        guard case .taken(_, let version, _)? = outcome, let body else {
            snapshotNotUsed(recipe, record: record, reason: "\(outcome.map { "\($0)" } ?? "a malformed answer")")
            return
        }
        switch recipes.compact(recipe, at: version, snapshot: body) {
        case .compacted(let saved):
            counters.snapshots += 1
            logger.debug("recipe compacted", metadata: ["layout": "\(record.key)", "version": "\(version)", "savedBytes": "\(saved)"])
        case .stale:
            snapshotNotUsed(recipe, record: record, reason: "the recipe changed meanwhile")
        case .notSmaller:
            snapshotNotUsed(recipe, record: record, reason: "the snapshot (\(body.count) bytes) is not smaller than what it covers")
        }
    }

    /// A snapshot asked for `recipe` that was not used (also when its worker died): counted, and the
    /// recipe's next one postponed.
    func snapshotNotUsed(_ recipe: Recipe, record: KeyRecord, reason: String) {
        counters.snapshotFailures += 1
        recipes.postponeCompaction(of: recipe)
        logger.debug("snapshot not used", metadata: ["layout": "\(record.key)", "reason": "\(reason)"])
    }
}
